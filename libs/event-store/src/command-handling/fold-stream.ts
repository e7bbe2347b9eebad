// Folding a stream for the generic command handler: from the start, or, with a cache, forward
// from the cached fold after checking that the stream still holds the event the fold ended with
// (else from the start again). The cache is updated only from events read from the store. A
// store that reads single events lazily (LazyEventReads) is asked for that last event without
// its data: the check looks at its id, position and hash only, and a command after a large
// append does not copy the appended content out of the store again; the events appended since
// are taken from the store's memory of what it wrote when it has them; a store that reads that
// event with the stream's end (StreamEndReads) says in the same read whether any follow. Asked
// to trust a store that remembers its written heads (WrittenHeadReads), a fold that ends with
// the event the store wrote last to the stream is not checked at all: the stream is taken to end
// there, and the append that follows names that event's position (`expectedPosition`), which
// the store checks as it writes, refusing the append as a conflict when the stream moved.
import {
  readsEventsLazily,
  readsStreamEnds,
  remembersWrittenHeads,
  type EventStore,
  type RecordedEvent,
} from '../port';
import {
  SeenDerivedIds,
  endsFold,
  foldEndOf,
  type CachedFold,
  type FoldOwner,
  type FoldedStreamCache,
} from './folded-stream-cache';
import { eventLoopSlice } from '../shared/work-slice';
import type { Decider } from './decider';

export interface FoldStreamRequest<Command, Event, State> {
  readonly store: EventStore;
  readonly streamId: string;
  readonly decider: Decider<State, Command, Event>;
  readonly parseEvent: (event: RecordedEvent) => Event;
  /** Event ids to look for (only derived ids are remembered by a cache); the first found is reported. */
  readonly lookFor: readonly string[];
  readonly cache: FoldedStreamCache<State> | undefined;
  /**
   * Take a cached fold that ends with the store's last written event of the stream as current,
   * without reading (see WrittenHeadReads); the append must then name `expectedPosition`.
   */
  readonly trustWrittenHead?: boolean;
}

export interface FoldedStream<State> {
  readonly state: State;
  readonly lastEvent: RecordedEvent | undefined;
  /** The event of the stream that has one of the ids looked for; undefined when none has. */
  readonly sawEvent: SeenEvent | undefined;
  /** With a cache: the derived ids of this incarnation of the stream, to extend after an append. */
  readonly seenIds: SeenDerivedIds | undefined;
  /**
   * Set when the stream was not read (`trustWrittenHead`): the position of `lastEvent`, which an
   * append after it must give as its `expectedPosition`.
   */
  readonly expectedPosition?: bigint;
}

/** An event found by its id. */
export interface SeenEvent {
  readonly id: string;
  readonly revision: bigint;
}

export function foldOwnerOf<Command, Event, State>(
  request: FoldStreamRequest<Command, Event, State>,
): FoldOwner {
  return { decider: request.decider, parseEvent: request.parseEvent };
}

/** Reads and folds `streamId`, through the cache when one is given. */
export async function foldStream<Command, Event, State>(
  request: FoldStreamRequest<Command, Event, State>,
): Promise<FoldedStream<State>> {
  const { cache, streamId } = request;
  if (cache === undefined) return foldFromStart(request, undefined);
  const owner = foldOwnerOf(request);
  const cached = cache.get(streamId, owner);
  if (cached !== undefined) {
    const trusted = request.trustWrittenHead === true ? trustedFold(request, cached) : undefined;
    if (trusted !== undefined) return trusted;
    const resumed = await foldForward(request, cached);
    if (resumed !== undefined) {
      cache.remember(streamId, owner, resumed.fold);
      return resumed.folded;
    }
    cache.forget(streamId, cached);
  }
  const folded = await foldFromStart(request, new SeenDerivedIds());
  if (folded.lastEvent !== undefined && folded.seenIds !== undefined) {
    cache.remember(streamId, owner, {
      state: folded.state,
      end: foldEndOf(folded.lastEvent),
      seenIds: folded.seenIds,
    });
  }
  return folded;
}

async function foldFromStart<Command, Event, State>(
  request: FoldStreamRequest<Command, Event, State>,
  seenIds: SeenDerivedIds | undefined,
): Promise<FoldedStream<State>> {
  const { decider, parseEvent, lookFor } = request;
  let state = decider.initialState();
  let lastEvent: RecordedEvent | undefined;
  let sawEvent: SeenEvent | undefined;
  for await (const recorded of request.store.readStream(request.streamId)) {
    // a stream of megabyte events is read and parsed on the event loop: it has its turn between
    // them (the reads resolve as promises alone, which let no request in)
    if (eventLoopSlice.isDue) await eventLoopSlice.yield();
    state = decider.evolve(state, parseEvent(recorded));
    lastEvent = recorded;
    if (sawEvent === undefined && lookFor.includes(recorded.id)) {
      sawEvent = { id: recorded.id, revision: recorded.revision };
    }
    seenIds?.record(recorded.id, recorded.revision);
  }
  return { state, lastEvent, sawEvent, seenIds };
}

/**
 * The cached fold as it is, when the store remembers writing its last event (the fold stays the
 * most recently used). The stream is not read: the append names the event's position.
 */
function trustedFold<Command, Event, State>(
  request: FoldStreamRequest<Command, Event, State>,
  cached: CachedFold<State>,
): FoldedStream<State> | undefined {
  const { store, streamId, lookFor } = request;
  if (!remembersWrittenHeads(store)) return undefined;
  const { end, seenIds, state } = cached;
  const lastEvent = store.writtenHeadAt(streamId, end);
  if (lastEvent === undefined) return undefined;
  const sawEvent = seenEventOf(lookFor, seenIds, end.revision, []);
  return { state, lastEvent, sawEvent, seenIds, expectedPosition: end.position };
}

/**
 * After a decision or an append failed on a fold taken on trust: whether the stream, read now,
 * ends with another event than the fold took for its last (then an attempt that reads it may
 * decide otherwise). Not when it ends with one of `ids`, the events of this attempt: they were
 * written after all (the store failed to answer), and the failure stands, as it would have.
 */
export async function movedSince<Command, Event, State>(
  request: FoldStreamRequest<Command, Event, State>,
  trusted: FoldedStream<State>,
  ids: readonly string[],
): Promise<boolean> {
  const { lastEvent } = await foldStream({ ...request, trustWrittenHead: false });
  if (lastEvent !== undefined && ids.includes(lastEvent.id)) return false;
  return lastEvent?.position !== trusted.lastEvent?.position;
}

/**
 * Folds the events after `cached.end` onto the cached state. Undefined when the stream no longer
 * holds the fold's last event at its revision, or its revisions do not follow on.
 */
async function foldForward<Command, Event, State>(
  request: FoldStreamRequest<Command, Event, State>,
  cached: CachedFold<State>,
): Promise<{ folded: FoldedStream<State>; fold: CachedFold<State> } | undefined> {
  const { decider, parseEvent, lookFor, store, streamId } = request;
  let state = cached.state;
  let lastEvent: RecordedEvent | undefined;
  let fromRevision = cached.end.revision;
  if (readsEventsLazily(store)) {
    // with the stream's end when the store can read both at once: when it ends there, no
    // events follow and none are asked for
    const read = readsStreamEnds(store)
      ? await store.readEventAndEnd(streamId, cached.end.revision)
      : { event: await store.readEventAt(streamId, cached.end.revision), lastRevision: undefined };
    lastEvent = read.event;
    // its metadata (the hash the next append chains to) is loaded now: an event erased since
    // the read above then folds from the start, as a plain read would have found it gone
    if (lastEvent === undefined || !holdsMetadata(lastEvent) || !endsFold(lastEvent, cached.end)) {
      return undefined;
    }
    if (read.lastRevision === cached.end.revision) {
      const { seenIds } = cached;
      const sawEvent = seenEventOf(lookFor, seenIds, cached.end.revision, []);
      return {
        folded: { state, lastEvent, sawEvent, seenIds },
        fold: { state, end: foldEndOf(lastEvent), seenIds },
      };
    }
    fromRevision += 1n;
  }
  const newEvents: RecordedEvent[] = [];
  const events = readsEventsLazily(store)
    ? store.readRecentEvents(streamId, fromRevision)
    : store.readStream(streamId, { fromRevision });
  for await (const recorded of events) {
    if (eventLoopSlice.isDue) await eventLoopSlice.yield();
    if (lastEvent === undefined) {
      if (!endsFold(recorded, cached.end)) return undefined;
    } else {
      if (recorded.revision !== lastEvent.revision + 1n) return undefined;
      state = decider.evolve(state, parseEvent(recorded));
      newEvents.push(recorded);
    }
    lastEvent = recorded;
  }
  if (lastEvent === undefined) return undefined;
  const { seenIds } = cached;
  for (const recorded of newEvents) seenIds.record(recorded.id, recorded.revision);
  const sawEvent = seenEventOf(lookFor, seenIds, cached.end.revision, newEvents);
  return {
    folded: { state, lastEvent, sawEvent, seenIds },
    fold: { state, end: foldEndOf(lastEvent), seenIds },
  };
}

/** Whether the event's metadata can be read (a lazily read event's can be gone, erased meanwhile). */
function holdsMetadata(event: RecordedEvent): boolean {
  try {
    return typeof event.metadata === 'object';
  } catch {
    return false;
  }
}

/** The first event with an id of `lookFor`: among the cached fold's ids, else among the new events. */
function seenEventOf(
  lookFor: readonly string[],
  seenIds: SeenDerivedIds,
  cachedRevision: bigint,
  newEvents: readonly RecordedEvent[],
): SeenEvent | undefined {
  for (const id of lookFor) {
    const revision = seenIds.revisionOf(id, cachedRevision);
    if (revision !== undefined) return { id, revision };
  }
  const recorded = newEvents.find((event) => lookFor.includes(event.id));
  return recorded === undefined ? undefined : { id: recorded.id, revision: recorded.revision };
}
