// The liveness lease of an engine among several on one store (decision 0017). Each engine with a
// configured id keeps a small stream of its own, `strata-engine-<id>`, and appends a renewal to it
// every `renewEveryMs` saying until when it is alive. Another engine that finds the last renewal
// past its expiry may take the engine's open attempts over: it appends a takeover to that stream,
// at the revision it read, so the store's optimistic concurrency lets exactly one engine claim
// one expiry, and an owner that renewed meanwhile keeps its attempts. What to do with a lease is
// decided here, as pure functions of its last event and the time; the service does the I/O.
import { z } from 'zod';

export const ENGINE_LEASE_STREAM_PREFIX = 'strata-engine-';

export function engineLeaseStream(engineId: string): string {
  return `${ENGINE_LEASE_STREAM_PREFIX}${engineId}`;
}

const isoTime = z.string().datetime();

export const engineLeaseEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('EngineLeaseRenewed'),
    data: z.object({ engineId: z.string().min(1), renewedAt: isoTime, expiresAt: isoTime }),
  }),
  z.object({
    type: z.literal('EngineLeaseTakenOver'),
    data: z.object({
      engineId: z.string().min(1),
      /** The engine that took the open attempts over. */
      by: z.string().min(1),
      /** The expiry of the renewal it found last. */
      leaseExpiredAt: isoTime,
      takenOverAt: isoTime,
    }),
  }),
]);

export type EngineLeaseEvent = z.infer<typeof engineLeaseEventSchema>;

/** The last event of an engine's lease stream, at its revision. */
export interface EngineLeaseRecord {
  readonly event: EngineLeaseEvent;
  readonly revision: bigint;
}

/** Reads a stored lease event (a trust boundary: the store); undefined when it is not one. */
export function parseEngineLeaseEvent(stored: {
  readonly type: string;
  readonly data: unknown;
}): EngineLeaseEvent | undefined {
  const parsed = engineLeaseEventSchema.safeParse({ type: stored.type, data: stored.data });
  return parsed.success ? parsed.data : undefined;
}

/** What an engine does about another engine that owns open attempts. */
export type TakeoverDecision =
  /** It never held a lease (an engine of an older version, or one alone on its store): leave it. */
  | { readonly kind: 'unknown' }
  /** Its lease holds until `expiresAt`. */
  | { readonly kind: 'alive'; readonly expiresAt: number }
  /** Its lease expired: claim it at `expectedRevision`. */
  | { readonly kind: 'claim'; readonly expectedRevision: bigint; readonly leaseExpiredAt: string }
  /** Its attempts were taken over by `by` (this engine, which ends them; or another). */
  | { readonly kind: 'taken'; readonly by: string; readonly leaseExpiredAt: string };

/** The decision on an engine's lease, from the last event of its stream at `now` (ms). */
export function decideTakeover(last: EngineLeaseRecord | undefined, now: number): TakeoverDecision {
  if (last === undefined) return { kind: 'unknown' };
  const { event } = last;
  switch (event.type) {
    case 'EngineLeaseRenewed': {
      const expiresAt = Date.parse(event.data.expiresAt);
      return expiresAt > now
        ? { kind: 'alive', expiresAt }
        : { kind: 'claim', expectedRevision: last.revision, leaseExpiredAt: event.data.expiresAt };
    }
    case 'EngineLeaseTakenOver':
      return { kind: 'taken', by: event.data.by, leaseExpiredAt: event.data.leaseExpiredAt };
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled lease event ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The renewal an engine appends at `now` (ms) to hold its lease for `durationMs`. */
export function leaseRenewal(engineId: string, now: number, durationMs: number): EngineLeaseEvent {
  return {
    type: 'EngineLeaseRenewed',
    data: {
      engineId,
      renewedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + durationMs).toISOString(),
    },
  };
}

/** The claim `by` appends at `now` (ms) on an engine whose lease expired at `leaseExpiredAt`. */
export function leaseTakeover(
  engineId: string,
  by: string,
  leaseExpiredAt: string,
  now: number,
): EngineLeaseEvent {
  return {
    type: 'EngineLeaseTakenOver',
    data: { engineId, by, leaseExpiredAt, takenOverAt: new Date(now).toISOString() },
  };
}
