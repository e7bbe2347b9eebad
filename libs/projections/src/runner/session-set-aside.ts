// A session the read models have set aside: one of its events could not be read back or
// applied, so what they hold of it would be wrong. Its reads answer this error (the engine maps
// it to its own problem code) until a rebuild — after a fix — or its erasure brings it back.
import type { ParkedPartition } from '@strata/processing';

export interface SetAsideEvent {
  /** The read model that set the session aside. */
  readonly projection: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly position: bigint;
  readonly reason: string;
}

export class SessionSetAsideError extends Error {
  override readonly name = 'SessionSetAsideError';

  constructor(
    readonly sessionId: string,
    readonly event: SetAsideEvent,
  ) {
    super(
      `session ${sessionId} is set aside by the ${event.projection} read model: event ${event.eventId} ` +
        `(${event.eventType}) at position ${event.position} could not be projected: ${event.reason}`,
    );
  }

  static fromParked(sessionId: string, parked: ParkedPartition): SessionSetAsideError {
    return new SessionSetAsideError(sessionId, {
      projection: parked.processor,
      eventId: parked.eventId,
      eventType: parked.eventType,
      position: parked.position,
      reason: parked.reason,
    });
  }
}
