// Appending sealed events: the revision written at must be known to chain the hashes, so the
// appender seals after the stream's last event its caller read and expects exactly that revision.
import {
  ConcurrencyError,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type RecordedEvent,
  type StreamAppender,
} from '@strata/event-store';
import { sealEventsOffLoop, type AuditContext } from './event-seal';

/** What the generic command handler hands its appender (structurally its `StreamAppender`). */
export interface SealingAppendRequest {
  readonly store: EventStore;
  readonly streamId: string;
  readonly events: readonly EventToAppend[];
  readonly expectedRevision: ExpectedRevision;
  /** The stream's last event as read for this decision; undefined for a new stream. */
  readonly lastEvent: RecordedEvent | undefined;
  /** The position of `lastEvent` when it was not read but remembered (passed on to the store). */
  readonly expectedPosition?: bigint;
}

/** A batch sealed at the previous event's time because the clock stood behind it. */
export interface ClockStep {
  readonly streamId: string;
  /** How far the clock stood behind the stream's last event. */
  readonly stepMs: number;
  /** The time the batch was sealed at (the last event's). */
  readonly recordedAt: string;
}

export interface SealingAppenderOptions {
  /** The clock the seal reads; the system clock by default. */
  readonly now?: () => Date;
  /** Told when a batch is sealed at the previous event's time (the engine logs a warning). */
  readonly onClockStep?: (step: ClockStep) => void;
}

/**
 * An appender for callers that already read the stream (the generic command handler): seals
 * the events after `lastEvent` and appends at exactly its revision. Conflicts are thrown for
 * the caller to re-read and retry. `context` may depend on the request.
 */
export function createSealingAppender(
  context: AuditContext | ((request: SealingAppendRequest) => AuditContext) = {},
  options: SealingAppenderOptions = {},
): (request: SealingAppendRequest) => Promise<AppendResult> {
  return async (request) => {
    const { store, streamId, events, lastEvent } = request;
    const exact = lastEvent?.revision ?? 'no_stream';
    const expected = request.expectedRevision;
    if ((typeof expected === 'bigint' || expected === 'no_stream') && expected !== exact) {
      throw new RangeError(`expectedRevision ${String(expected)} disagrees with the last event read`);
    }
    if (expected === 'stream_exists' && lastEvent === undefined) {
      throw new ConcurrencyError(streamId, expected, null);
    }
    const audit = typeof context === 'function' ? context(request) : context;
    const now = options.now?.() ?? new Date();
    const sealed = await sealEventsOffLoop(streamId, events, lastEvent, audit, now);
    const step = sealed[0]?.metadata?.['clockStepMs'];
    if (typeof step === 'number' && options.onClockStep !== undefined) {
      options.onClockStep({ streamId, stepMs: step, recordedAt: sealed[0]?.createdAt ?? now.toISOString() });
    }
    const { expectedPosition } = request;
    return await store.appendToStream(streamId, sealed, {
      expectedRevision: exact,
      ...(expectedPosition === undefined ? {} : { expectedPosition }),
    });
  };
}

/**
 * The generic command handler's sealing appender: seals with the audit fields (tenant, actor,
 * correlation and causation ids) of each event's metadata.
 */
export const sealingAppender: StreamAppender = createSealingAppender();
