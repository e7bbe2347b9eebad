// Verifying hash chains (DESIGN.md decision 4): recompute every event's hash and check that
// it links to its predecessor, naming the first event where a stream's history was altered.
import type { EventFilter, EventStore } from '@strata/event-store';
import { GENESIS_HASH, eventHash, isHash, type HashedEventFields } from './event-seal';

export type ChainBreakReason =
  /** The event carries no `hash` / `previousHash` of the right form. */
  | 'missing_seal'
  /** Revisions do not follow on from 0 (an event was removed or reordered). */
  | 'revision_gap'
  /** `previousHash` is not the hash of the stream's previous event. */
  | 'previous_hash_mismatch'
  /** The stored content no longer gives the stored hash. */
  | 'hash_mismatch'
  /** The time the store reports differs from the time sealed with the event (seal version 2). */
  | 'time_mismatch'
  /** The sealed time is earlier than the sealed time of the stream's previous event. */
  | 'time_backwards';

export interface ChainBreak {
  readonly revision: bigint;
  readonly eventId: string;
  readonly reason: ChainBreakReason;
}

export type StreamVerification =
  | { readonly ok: true; readonly events: number; readonly headHash: string | null }
  | { readonly ok: false; readonly brokenAt: ChainBreak; readonly verifiedEvents: number };

/** Incremental checker of one stream's chain, fed its events in revision order. */
export class ChainChecker {
  private expectedRevision = 0n;
  private previousHash = GENESIS_HASH;
  private previousSealedTime = Number.NEGATIVE_INFINITY;
  verified = 0;

  /**
   * The break this event shows, or undefined when it extends the chain. With the time the store
   * reports (`createdAt`), an event sealed with its time (version 2) must report that time.
   */
  check(event: HashedEventFields & { readonly createdAt?: string }): ChainBreak | undefined {
    const breakOf = (reason: ChainBreakReason): ChainBreak => ({
      revision: event.revision,
      eventId: event.id,
      reason,
    });
    const { hash, previousHash } = event.metadata;
    if (!isHash(hash) || !isHash(previousHash)) return breakOf('missing_seal');
    if (event.revision !== this.expectedRevision) return breakOf('revision_gap');
    if (previousHash !== this.previousHash) return breakOf('previous_hash_mismatch');
    if (!hashHolds(event, hash)) return breakOf('hash_mismatch');
    const sealedTime = event.metadata['recordedAt'];
    if (typeof sealedTime === 'string') {
      if (event.createdAt !== undefined && event.createdAt !== sealedTime) return breakOf('time_mismatch');
      const sealedMs = Date.parse(sealedTime);
      if (!(sealedMs >= this.previousSealedTime)) return breakOf('time_backwards');
      this.previousSealedTime = sealedMs;
    }
    this.expectedRevision += 1n;
    this.previousHash = hash;
    this.verified += 1;
    return undefined;
  }

  get headHash(): string | null {
    return this.verified === 0 ? null : this.previousHash;
  }

  /** The revision of the last event that extended the chain; null before the first. */
  get headRevision(): bigint | null {
    return this.verified === 0 ? null : this.expectedRevision - 1n;
  }
}

/** Whether the event's content gives `hash` (content that has no JSON form does not). */
function hashHolds(event: HashedEventFields, hash: string): boolean {
  try {
    return eventHash(event) === hash;
  } catch {
    return false;
  }
}

/** Why a break says the chain is broken there, in words. */
export function explainChainBreak(reason: ChainBreakReason): string {
  switch (reason) {
    case 'missing_seal':
      return 'it carries no integrity seal';
    case 'revision_gap':
      return 'its revision does not follow the previous one (an event was removed or reordered)';
    case 'previous_hash_mismatch':
      return 'its previousHash is not the hash of the event before it';
    case 'hash_mismatch':
      return 'its stored content no longer gives its hash (it was altered)';
    case 'time_mismatch':
      return 'the time stored with it is not the time sealed in it (its stored time was altered)';
    case 'time_backwards':
      return 'its sealed time is earlier than that of the event before it';
    default: {
      const unhandled: never = reason;
      return String(unhandled);
    }
  }
}

/** `<stream>: chain broken at revision <r>, event <id>: <reason> (<why>)`. */
export function describeChainBreak(streamId: string, broken: ChainBreak): string {
  return `${streamId}: chain broken at revision ${broken.revision}, event ${broken.eventId}: ${broken.reason} (${explainChainBreak(broken.reason)})`;
}

/** Verifies one stream from its first event. A missing (or erased) stream verifies with 0 events. */
export async function verifyStream(store: EventStore, streamId: string): Promise<StreamVerification> {
  const checker = new ChainChecker();
  for await (const event of store.readStream(streamId, { uncached: true })) {
    const broken = checker.check(event);
    if (broken !== undefined) return { ok: false, brokenAt: broken, verifiedEvents: checker.verified };
  }
  return { ok: true, events: checker.verified, headHash: checker.headHash };
}

export interface BrokenStream extends ChainBreak {
  readonly streamId: string;
}

export interface StoreVerification {
  readonly ok: boolean;
  readonly streams: number;
  /** Events read (of broken streams, up to and including the break). */
  readonly events: number;
  /** The first break of each broken stream, in the order found. */
  readonly broken: readonly BrokenStream[];
}

/**
 * Verifies every stream (or those the filter selects) in one pass over the global log,
 * keeping one small checker per stream.
 */
export async function verifyAll(
  store: EventStore,
  options: { readonly filter?: EventFilter } = {},
): Promise<StoreVerification> {
  const checkers = new Map<string, ChainChecker | 'broken'>();
  const broken: BrokenStream[] = [];
  let events = 0;
  for await (const event of store.readAll({
    uncached: true,
    ...(options.filter === undefined ? {} : { filter: options.filter }),
  })) {
    let checker = checkers.get(event.streamId);
    if (checker === 'broken') continue;
    if (checker === undefined) {
      checker = new ChainChecker();
      checkers.set(event.streamId, checker);
    }
    events += 1;
    const found = checker.check(event);
    if (found !== undefined) {
      broken.push({ streamId: event.streamId, ...found });
      checkers.set(event.streamId, 'broken');
    }
  }
  return { ok: broken.length === 0, streams: checkers.size, events, broken };
}
