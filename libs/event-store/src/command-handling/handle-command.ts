// The one generic command handler (STYLE.md habit 6): read the stream, fold it with `evolve`,
// `decide`, append the new events through the caller's appender (the engine's is
// @strata/integrity's, which seals them into the stream's hash chain: DESIGN.md decision 4)
// at exactly the revision that was read, and on a conflict
// read and decide again, a bounded number of times. Events read back are parsed by the
// caller's `parseEvent` (a trust boundary). Event ids derive from `idSeed` when it is given,
// so a command handled again (a redelivery) finds its first id already recorded and writes
// nothing; otherwise they are uuidv7. A seeded command may carry a digest of what it asks: the
// first event records it, a repeat is told the digest recorded the first time (so the caller
// can refuse a seed reused for something else), and after an append the first event is read
// back, because a store answers an append whose ids it already holds at that place as an
// idempotent retry even when a concurrent command with the same seed wrote it. The first event of
// a seeded command therefore also records a `writeId` of its own handling (issue 25): only the
// handling whose `writeId` the store holds wrote the events; another one that asked the same
// (same seed and digest, say two requests with one idempotency key racing through one group
// commit) was answered as a retry and is told it was handled before, as if it had come later.
// With a `FoldedStreamCache` a command reads only the events appended since the cached fold
// (see folded-stream-cache.ts); with `trustWrittenHead` as well, a first attempt whose cached
// fold ends with the store's own last write reads nothing, and its append names that event
// (`expectedPosition`): a refusal then only means the stream moved, and the next attempt reads
// it (at once, without the pause after a conflict, and not counted as one).
import { newEventId } from '../ids/uuidv7';
import {
  ConcurrencyError,
  DuplicateEventIdError,
  readsEventsLazily,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type RecordedEvent,
} from '../port';
import type { Decider, DomainEvent } from './decider';
import { derivedEventId } from './derived-event-id';
import {
  foldStream,
  foldOwnerOf,
  movedSince,
  type FoldStreamRequest,
  type FoldedStream,
} from './fold-stream';
import type { FoldedStreamCache } from './folded-stream-cache';

/**
 * How new events reach the store: `plainAppender`, or the integrity layer's `sealingAppender`
 * (@strata/integrity), which gives each event the audit metadata and its place in the stream's
 * hash chain, after `lastEvent`.
 */
export type StreamAppender = (request: {
  readonly store: EventStore;
  readonly streamId: string;
  readonly events: readonly EventToAppend[];
  readonly expectedRevision: ExpectedRevision;
  /** The stream's last event as read for this decision; undefined for a new stream. */
  readonly lastEvent: RecordedEvent | undefined;
  /**
   * When the stream was not read (`trustWrittenHead`): the position of `lastEvent`, to pass on
   * to the store as `AppendOptions.expectedPosition`.
   */
  readonly expectedPosition?: bigint;
}) => Promise<{ readonly nextExpectedRevision: bigint; readonly position: bigint }>;

/**
 * Appends without a seal. Only for streams kept outside the integrity chain: once a sealed
 * stream gets an unsealed event, `verify` reports it and later sealed appends are refused.
 */
export const plainAppender: StreamAppender = ({
  store,
  streamId,
  events,
  expectedRevision,
  expectedPosition,
}) =>
  store.appendToStream(streamId, events, {
    expectedRevision,
    ...(expectedPosition === undefined ? {} : { expectedPosition }),
  });

/** `State` (the decider's) only types `cache`; leave it out when no cache is given. */
export interface HandleCommandOptions<Event, State = never> {
  /** Validates and converts an event read back from the store; throws when it is not one. */
  readonly parseEvent: (event: RecordedEvent) => Event;
  /** Event ids become `derivedEventId(idSeed, index)`: a retried command proposes the same ids. */
  readonly idSeed?: string;
  /**
   * Seeds that earlier versions of the caller gave the same command: a stream holding the first
   * id of one of them has handled it already (with `idSeed` only).
   */
  readonly formerIdSeeds?: readonly string[];
  /**
   * What the seeded command asks, as a digest: recorded in the first new event's metadata
   * (`requestDigest`), and returned with `earlier` when the command was handled before.
   */
  readonly requestDigest?: string;
  /**
   * Makes the `writeId` a seeded handling records on its first event (uuidv7 by default). Only
   * for tests that compare the events two stores hold: it must differ between handlings.
   */
  readonly newWriteId?: () => string;
  /** Names each new event's id (wins over `idSeed`). */
  readonly eventIdOf?: (event: Event, index: number) => string;
  /** Metadata written with every new event; its `tenant`, `actor`, `correlationId` and `causationId` go into the seal. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** How many times to read, decide and append before a conflict is reported. 8 by default. */
  readonly maxAttempts?: number;
  /**
   * Waited for after a conflict, before the next attempt (`attempt` is the one that lost).
   * By default a random pause of up to `RETRY_JITTER_MS × 2^(attempt − 1)` ms (exponential
   * backoff, full jitter), so writers that keep meeting in step (two engines on one file, whose
   * appends a group commit puts in the same transaction) fall out of step.
   */
  readonly pauseBeforeRetry?: (attempt: number) => Promise<void>;
  /**
   * How the events reach the store; no default, so that every caller says whether its stream
   * is sealed (`sealingAppender` of @strata/integrity) or kept outside the chain (`plainAppender`).
   */
  readonly appender: StreamAppender;
  /**
   * Folds kept between commands: the stream is then read forward from the cached revision
   * only (and from the start when it no longer holds the cached fold's last event). Without
   * it, every attempt reads the whole stream.
   */
  readonly cache?: FoldedStreamCache<State>;
  /**
   * With `cache`: a first attempt takes a cached fold that ends with the event the store wrote
   * last to the stream as current without reading the stream (`WrittenHeadReads`), and appends
   * naming that event. Only with an appender that passes `expectedPosition` on to the store
   * (`plainAppender` and @strata/integrity's sealing appenders do).
   */
  readonly trustWrittenHead?: boolean;
}

export interface CommandHandled<Event, State> {
  /** The new events, in append order (empty when the decider had nothing to add). */
  readonly events: readonly Event[];
  readonly eventIds: readonly string[];
  /** The revision of the stream's last event afterwards; null when the stream still does not exist. */
  readonly revision: bigint | null;
  /** The state after the new events. */
  readonly state: State;
  /** 1 when the first append went through. */
  readonly attempts: number;
  /** True when the stream already held the events of this `idSeed` (nothing was decided or written). */
  readonly alreadyHandled: boolean;
  /** When `alreadyHandled`: where and how the command was handled the first time. */
  readonly earlier?: EarlierHandling;
}

/** The first handling of a seeded command, as the stream records it. */
export interface EarlierHandling {
  /** The seed its event ids derive from: `idSeed`, or one of `formerIdSeeds`. */
  readonly idSeed: string;
  /** The revision of its first event. */
  readonly revision: bigint;
  /** The `requestDigest` it recorded; undefined when it recorded none. */
  readonly requestDigest: string | undefined;
}

/** The metadata key of a seeded command's request digest (on its first event). */
export const REQUEST_DIGEST_KEY = 'requestDigest';

/** The metadata key of the id of the handling that wrote a seeded command's events (on its first event). */
export const WRITE_ID_KEY = 'writeId';

/** The longest default pause after the first lost race, in milliseconds. */
export const RETRY_JITTER_MS = 5;

function jitteredPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_JITTER_MS * 2 ** (attempt - 1)));
}

/** The event at `revision`; its data is not read when the store reads events lazily (only its metadata is used). */
async function eventAt(
  store: EventStore,
  streamId: string,
  revision: bigint,
): Promise<RecordedEvent | undefined> {
  if (readsEventsLazily(store)) return store.readEventAt(streamId, revision);
  for await (const event of store.readStream(streamId, { fromRevision: revision, maxCount: 1 })) {
    return event.revision === revision ? event : undefined;
  }
  return undefined;
}

function digestOf(event: RecordedEvent | undefined): string | undefined {
  const digest = event?.metadata[REQUEST_DIGEST_KEY];
  return typeof digest === 'string' ? digest : undefined;
}

async function earlierHandling(
  store: EventStore,
  streamId: string,
  idSeed: string,
  revision: bigint,
): Promise<EarlierHandling> {
  return { idSeed, revision, requestDigest: digestOf(await eventAt(store, streamId, revision)) };
}

/**
 * Whether the store holds this handling's first event where the append says it wrote it: the
 * same id, the same digest when one is given, and this handling's `writeId`. Events written
 * without a `writeId` (by earlier versions) pass as before, on their id and digest.
 */
async function holdsOwnWrite(
  store: EventStore,
  streamId: string,
  ids: readonly string[],
  result: { readonly nextExpectedRevision: bigint },
  requestDigest: string | undefined,
  writeId: string,
): Promise<boolean> {
  const recorded = await eventAt(store, streamId, result.nextExpectedRevision - BigInt(ids.length) + 1n);
  if (recorded === undefined || recorded.id !== ids[0]) return false;
  if (requestDigest !== undefined && digestOf(recorded) !== requestDigest) return false;
  const recordedWriteId = recorded.metadata[WRITE_ID_KEY];
  return recordedWriteId === undefined || recordedWriteId === writeId;
}

function eventIds<Event, State>(
  events: readonly Event[],
  options: HandleCommandOptions<Event, State>,
): string[] {
  const { eventIdOf, idSeed } = options;
  return events.map((event, index) => {
    if (eventIdOf) return eventIdOf(event, index);
    return idSeed !== undefined ? derivedEventId(idSeed, index) : newEventId();
  });
}

/**
 * Handles `command` on `streamId`. Throws what `decide` or `parseEvent` throw, and a
 * `ConcurrencyError` when every attempt met a conflicting writer.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamId: string,
  command: Command,
  decider: Decider<State, Command, Event>,
  options: HandleCommandOptions<Event, NoInfer<State>>,
): Promise<CommandHandled<Event, State>> {
  const maxAttempts = options.maxAttempts ?? 8;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, not ${maxAttempts}`);
  }
  const { appender } = options;
  const seeds =
    options.idSeed !== undefined && !options.eventIdOf
      ? [options.idSeed, ...(options.formerIdSeeds ?? [])]
      : [];
  const lookFor = seeds.map((seed) => derivedEventId(seed, 0));
  const foldRequest: FoldStreamRequest<Command, Event, State> = {
    store,
    streamId,
    decider,
    parseEvent: options.parseEvent,
    lookFor,
    cache: options.cache,
  };
  let duplicate: DuplicateEventIdError | undefined;
  const writeId = (options.newWriteId ?? newEventId)();
  // trusted until an append naming the remembered head is refused
  let trustWrittenHead = options.trustWrittenHead === true;
  for (let attempt = 1; ; attempt += 1) {
    const folded = await foldStream({ ...foldRequest, trustWrittenHead });
    const { state, lastEvent, expectedPosition } = folded;
    const trusted = expectedPosition !== undefined;
    const revision = lastEvent?.revision ?? null;
    const unchanged = { events: [], eventIds: [], revision, state, attempts: attempt };
    // On a fold taken on trust, whatever is answered without an append that names the head (a
    // repeat, a refusal, nothing to do, a failed append) stands only if the stream, read now,
    // still ends there; else it is read and decided again, the attempt not counted.
    const moved = async (ids: readonly string[], refused = false): Promise<boolean> => {
      if (!trusted || !(refused || (await movedSince(foldRequest, folded, ids)))) return false;
      trustWrittenHead = false;
      return true;
    };
    if (folded.sawEvent) {
      if (await moved([])) {
        attempt -= 1;
        continue;
      }
      const seed = seeds[lookFor.indexOf(folded.sawEvent.id)]!;
      const earlier = await earlierHandling(store, streamId, seed, folded.sawEvent.revision);
      return { ...unchanged, alreadyHandled: true, earlier };
    }
    if (duplicate !== undefined) throw duplicate;
    let events: readonly Event[];
    try {
      events = decider.decide(command, state);
    } catch (error) {
      if (!(await moved([]))) throw error;
      attempt -= 1;
      continue;
    }
    if (events.length === 0) {
      if (!(await moved([]))) return { ...unchanged, alreadyHandled: false };
      attempt -= 1;
      continue;
    }
    const ids = eventIds(events, options);
    const toAppend = events.map((event, index) => {
      const seededFirst = index === 0 && seeds.length > 0;
      const digest = seededFirst ? options.requestDigest : undefined;
      const metadata = seededFirst
        ? {
            ...options.metadata,
            ...(digest !== undefined ? { [REQUEST_DIGEST_KEY]: digest } : {}),
            [WRITE_ID_KEY]: writeId,
          }
        : options.metadata;
      return { id: ids[index]!, type: event.type, data: event.data, ...(metadata ? { metadata } : {}) };
    });
    let result: { readonly nextExpectedRevision: bigint; readonly position: bigint };
    try {
      result = await appender({
        store,
        streamId,
        events: toAppend,
        expectedRevision: revision ?? 'no_stream',
        lastEvent,
        ...(expectedPosition === undefined ? {} : { expectedPosition }),
      });
    } catch (error) {
      // a conflict on a trusted fold: the store refused the head named (the stream moved)
      if (await moved(ids, error instanceof ConcurrencyError)) {
        attempt -= 1;
        continue;
      }
      // A seeded id already recorded: handled meanwhile when the next read finds it here.
      if (error instanceof DuplicateEventIdError && seeds.length > 0 && duplicate === undefined) {
        duplicate = error;
        continue;
      }
      if (!(error instanceof ConcurrencyError) || attempt >= maxAttempts) throw error;
      await (options.pauseBeforeRetry ?? jitteredPause)(attempt);
      continue;
    }
    if (
      seeds.length > 0 &&
      !(await holdsOwnWrite(store, streamId, ids, result, options.requestDigest, writeId))
    ) {
      // Another handling with this seed wrote there (the store took this append for a retry of
      // it): the next read finds its events and answers how it was handled.
      if (attempt >= maxAttempts) {
        const message = `Append to ${streamId} kept meeting commands with the same seed`;
        throw new ConcurrencyError(streamId, revision ?? 'no_stream', null, message);
      }
      continue;
    }
    const after = events.reduce((current, event) => decider.evolve(current, event), state);
    rememberAppend(foldRequest, folded, ids, result, after);
    return {
      events,
      eventIds: ids,
      revision: result.nextExpectedRevision,
      state: after,
      attempts: attempt,
      alreadyHandled: false,
    };
  }
}

/**
 * Extends the cached fold with the handler's own append: the store put exactly these events
 * after the revision read (the append expected it), so the next command need not read them.
 */
function rememberAppend<Command, Event, State>(
  request: FoldStreamRequest<Command, Event, State>,
  folded: FoldedStream<State>,
  ids: readonly string[],
  result: { readonly nextExpectedRevision: bigint; readonly position: bigint },
  state: State,
): void {
  const { cache } = request;
  const lastId = ids[ids.length - 1];
  const { seenIds } = folded;
  if (cache === undefined || seenIds === undefined || lastId === undefined) return;
  const before = folded.lastEvent?.revision ?? -1n;
  if (result.nextExpectedRevision !== before + BigInt(ids.length)) return;
  ids.forEach((id, index) => seenIds.record(id, before + 1n + BigInt(index)));
  cache.remember(request.streamId, foldOwnerOf(request), {
    state,
    end: { revision: result.nextExpectedRevision, id: lastId, position: result.position, hash: undefined },
    seenIds,
  });
}
