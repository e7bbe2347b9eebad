// A bounded memory of folded streams for the generic command handler, so that a command on a
// long stream reads only the events appended since the last command instead of the whole
// stream. Per stream it keeps the state a decider folded, the event that fold ended with and
// the derived event ids seen (for the handler's redelivery check). It is a hint, never the
// truth: the handler reads forward from the cached revision on every command, checks that the
// stream still holds the event the fold ended with, and folds from the start when it does not
// (a stream erased, truncated or written anew). Other writers (other processes on the same
// SQLite file) are therefore seen on the next read, as without the cache.
//
// A cached state may be evolved by several callers, so the decider's `evolve` must leave the
// state it is given valid (a persistent fold: pure, or copy-on-write as the session state is).
// The bounds are lru-cache's `max` and `maxSize`; what it cannot say is kept beside it: a fold is
// handed out only to its owner (looked at with `peek`, so a refused look does not count as a
// use), and lru-cache weighs in positive integers, so a weight is rounded up and a fold weighing
// nothing counts one.
import { LRUCache } from 'lru-cache';
import type { RecordedEvent } from '../port';
import { isDerivedEventId } from './derived-event-id';

/** How many streams a cache keeps by default. */
export const DEFAULT_FOLDED_STREAMS = 1_000;

/**
 * The derived event ids (`derivedEventId`) of one incarnation of a stream, each with its
 * revision. Shared by the cached folds that extend each other, so a later fold does not copy it;
 * a fold sees only the ids at or below its own revision.
 */
export class SeenDerivedIds {
  private readonly revisionById = new Map<string, bigint>();

  record(id: string, revision: bigint): void {
    if (isDerivedEventId(id)) this.revisionById.set(id, revision);
  }

  /** Whether `id` was recorded at `revision` or before. */
  seenBy(id: string, revision: bigint): boolean {
    return this.revisionOf(id, revision) !== undefined;
  }

  /** The revision `id` was recorded at, when that is `revision` or before. */
  revisionOf(id: string, revision: bigint): bigint | undefined {
    const recordedAt = this.revisionById.get(id);
    return recordedAt !== undefined && recordedAt <= revision ? recordedAt : undefined;
  }
}

/** The event a cached fold ended with. */
export interface FoldEnd {
  readonly revision: bigint;
  readonly id: string;
  /** Global positions are never reused, so a stream written anew cannot match. */
  readonly position: bigint;
  /** Its integrity hash, when the fold read the event (unknown after the handler's own append). */
  readonly hash: string | undefined;
}

/** A stream folded up to `end`. */
export interface CachedFold<State> {
  readonly state: State;
  readonly end: FoldEnd;
  readonly seenIds: SeenDerivedIds;
}

/** Who made a fold: the same decider and event parser always fold the same events alike. */
export interface FoldOwner {
  readonly decider: object;
  readonly parseEvent: (event: RecordedEvent) => unknown;
}

interface OwnedFold<State> {
  readonly owner: FoldOwner;
  readonly fold: CachedFold<State>;
}

/**
 * What is used of the LRUCache, in method syntax: it keeps the class covariant in State
 * (`HandleCommandOptions` defaults it to never), where LRUCache's own option fields would not.
 */
interface Folds<State> {
  readonly size: number;
  readonly calculatedSize: number;
  peek(streamId: string): OwnedFold<State> | undefined;
  get(streamId: string): OwnedFold<State> | undefined;
  set(streamId: string, owned: OwnedFold<State>): unknown;
  delete(streamId: string): boolean;
  clear(): void;
}

export interface FoldedStreamCacheOptions<State> {
  /** Streams kept; the least recently used one is dropped first. `DEFAULT_FOLDED_STREAMS` by default. */
  readonly maxStreams?: number;
  /** The most total weight kept (at least 1); a fold heavier than this alone is not kept. Unbounded by default. */
  readonly maxWeight?: number;
  /** The weight of a folded state, a whole number in the caller's unit (e.g. entries). 1 by default. */
  readonly weightOf?: (state: State) => number;
}

/** The end of a fold that read `event` last. */
export function foldEndOf(event: RecordedEvent): FoldEnd {
  const hash = event.metadata['hash'];
  return {
    revision: event.revision,
    id: event.id,
    position: event.position,
    hash: typeof hash === 'string' ? hash : undefined,
  };
}

/** Whether `event`, read at the fold's end revision, is the very event the fold ended with. */
export function endsFold(event: RecordedEvent, end: FoldEnd): boolean {
  return (
    event.revision === end.revision &&
    event.id === end.id &&
    event.position === end.position &&
    (end.hash === undefined || event.metadata['hash'] === end.hash)
  );
}

/**
 * Folded streams, the least recently used dropped first while there are more than `maxStreams`
 * or they weigh more than `maxWeight`. Give one to `handleCommand` as `cache`. One cache per
 * decider is best: a fold made by another decider or parser is never used, only replaced.
 */
export class FoldedStreamCache<State> {
  readonly maxStreams: number;
  readonly maxWeight: number;
  private readonly folds: Folds<State>;

  constructor(options: FoldedStreamCacheOptions<State> = {}) {
    const maxStreams = options.maxStreams ?? DEFAULT_FOLDED_STREAMS;
    if (!Number.isSafeInteger(maxStreams) || maxStreams < 1) {
      throw new RangeError(`maxStreams must be a positive integer, not ${maxStreams}`);
    }
    const maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY;
    if (Number.isNaN(maxWeight) || maxWeight < 1) {
      throw new RangeError(`maxWeight must be at least 1, not ${maxWeight}`);
    }
    this.maxStreams = maxStreams;
    this.maxWeight = maxWeight;
    const weightOf = options.weightOf ?? (() => 1);
    const bounded = Number.isFinite(maxWeight);
    this.folds = new LRUCache<string, OwnedFold<State>>({
      max: maxStreams,
      ...(bounded ? { maxSize: Math.floor(maxWeight) } : {}),
      // weighed even when unbounded (maxEntrySize alone bounds nothing), so that `weight` tells
      maxEntrySize: bounded ? Math.floor(maxWeight) : Number.MAX_SAFE_INTEGER,
      sizeCalculation: (owned) => Math.max(1, Math.ceil(weightOf(owned.fold.state))),
    });
  }

  /** How many streams are cached. */
  get size(): number {
    return this.folds.size;
  }

  /** The total weight of the folds kept (a fold weighing nothing counts one). */
  get weight(): number {
    return this.folds.calculatedSize;
  }

  /** The fold of `streamId` made by `owner`, now the most recently used; undefined when none. */
  get(streamId: string, owner: FoldOwner): CachedFold<State> | undefined {
    const cached = this.folds.peek(streamId);
    if (cached === undefined || !sameOwner(cached.owner, owner)) return undefined;
    return this.folds.get(streamId)?.fold;
  }

  /** Keeps `fold` unless the cache holds a later fold of the same incarnation of the stream. */
  remember(streamId: string, owner: FoldOwner, fold: CachedFold<State>): void {
    const cached = this.folds.peek(streamId);
    const later =
      cached !== undefined &&
      sameOwner(cached.owner, owner) &&
      cached.fold.seenIds === fold.seenIds &&
      cached.fold.end.revision > fold.end.revision;
    // a fold heavier than maxWeight alone is not kept, and the one it would replace is dropped
    this.folds.set(streamId, later ? cached : { owner, fold });
  }

  /** Drops `fold` of `streamId` (a newer fold stays); every fold of it when none is named. */
  forget(streamId: string, fold?: CachedFold<State>): void {
    if (fold === undefined || this.folds.peek(streamId)?.fold === fold) this.folds.delete(streamId);
  }

  clear(): void {
    this.folds.clear();
  }
}

function sameOwner(left: FoldOwner, right: FoldOwner): boolean {
  return left.decider === right.decider && left.parseEvent === right.parseEvent;
}
