// Capabilities some adapters add to the port (EventStore), each with its guard: callers use
// them when a store has them and fall back to the port's reads and appends when it does not.
// Neither changes what is stored or read; they spare the thread that answers requests work.
import type { StoredText } from '../shared/stored-text';
import type { AppendOptions, AppendResult, RecordedEvent } from './event-store';

/**
 * An event whose data and metadata are already the JSON text to store (encoded off the event
 * loop); a large event's data may be its UTF-8 in shared memory (stored-text.ts).
 */
export interface EncodedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: StoredText;
  readonly metadata: string;
  /** As `EventToAppend.createdAt`. */
  readonly createdAt?: string;
}

/**
 * A store that also writes events already encoded as JSON text (SQLite), so that the thread that
 * answers requests never serialises a large batch: a worker thread prepared, sealed and encoded
 * it. The same rules as `appendToStream` hold (expectation, idempotency, erasure); the texts
 * must be JSON objects (metadata) and JSON values (data), which the encoder guarantees.
 */
export interface EncodedAppends {
  appendEncoded(
    streamId: string,
    events: readonly EncodedEvent[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
}

/** Whether `store` writes encoded events (see EncodedAppends). */
export function acceptsEncodedAppends<Store extends object>(store: Store): store is Store & EncodedAppends {
  return typeof (store as Partial<EncodedAppends>).appendEncoded === 'function';
}

/**
 * A store that spares the write side reading back what it has just written (SQLite): it reads
 * one event of a stream without its data, fetching the data only if it is used (the write side
 * checks the last event of a cached fold and reads a command's first event back for its
 * metadata: neither needs megabytes of content), and folds the events another command has just
 * appended from its memory of them.
 */
export interface LazyEventReads {
  /**
   * The events of `streamId` from `fromRevision` on, as a forward `readStream` gives them; events
   * this store wrote itself may come from its memory of what it wrote instead of the file. For
   * folding the write side's state after another command's append, never for checking what the
   * file holds (verification reads the file with `readStream`).
   */
  readRecentEvents(streamId: string, fromRevision: bigint): AsyncIterable<RecordedEvent>;
  /**
   * The event of `streamId` at `revision`, or undefined when the stream has none there. Its
   * `data`, when first read, comes from the store then; it throws when the event has been erased
   * meanwhile.
   */
  readEventAt(streamId: string, revision: bigint): Promise<RecordedEvent | undefined>;
}

/** Whether `store` reads single events lazily (see LazyEventReads). */
export function readsEventsLazily<Store extends object>(store: Store): store is Store & LazyEventReads {
  return typeof (store as Partial<LazyEventReads>).readEventAt === 'function';
}

/** An event read by `readEventAndEnd`, with the revision its stream ended at then. */
export interface EventAndStreamEnd {
  /** As `readEventAt` answers: undefined when the stream has no event at that revision. */
  readonly event: RecordedEvent | undefined;
  /** The stream's last revision, read with the event; undefined when the event is. */
  readonly lastRevision: bigint | undefined;
}

/**
 * A lazy single-event read that also says where the stream ends, in one read of the file
 * (SQLite): the write side's check of a cached fold then knows that no event follows without
 * asking for the events after it.
 */
export interface StreamEndReads {
  readEventAndEnd(streamId: string, revision: bigint): Promise<EventAndStreamEnd>;
}

/** Whether `store` reads an event with its stream's end (see StreamEndReads). */
export function readsStreamEnds<Store extends object>(store: Store): store is Store & StreamEndReads {
  return typeof (store as Partial<StreamEndReads>).readEventAndEnd === 'function';
}

/** Where a stream's last event is: its revision, id and global position. */
export interface StreamHead {
  readonly revision: bigint;
  readonly id: string;
  readonly position: bigint;
}

/**
 * A store that remembers the last event it wrote to each stream (SQLite) and checks an append's
 * `expectedPosition` inside its write: the write side then skips reading a stream back before
 * an append when the store wrote the stream's last event itself, and lets the append say which
 * event it expects to follow (a stream another process wrote, erased or wrote anew meanwhile
 * refuses it as a conflict, and the write side reads it then).
 */
export interface WrittenHeadReads {
  /**
   * The event at `head`, built from the store's memory when it is the last event this store
   * wrote to `streamId`; undefined when it remembers another one or none. Not read from the
   * file: the stream may have moved since, which only an append naming `head.position` as its
   * `expectedPosition` finds out. Its data, when read, comes from the file.
   */
  writtenHeadAt(streamId: string, head: StreamHead): RecordedEvent | undefined;
}

/** Whether `store` remembers its written heads and checks `expectedPosition` (see WrittenHeadReads). */
export function remembersWrittenHeads<Store extends object>(store: Store): store is Store & WrittenHeadReads {
  return typeof (store as Partial<WrittenHeadReads>).writtenHeadAt === 'function';
}
