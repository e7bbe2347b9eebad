// The errors every adapter of the event-store port throws the same way: a conflict on the
// expected revision, an erased stream, a reused event id, an append larger than the store takes,
// and stream metadata the port does not delegate to the store.
import type { ExpectedRevision } from './event-store';

function describeRevision(revision: ExpectedRevision | bigint | null): string {
  if (revision === null) return 'no stream';
  return typeof revision === 'bigint' ? `revision ${revision}` : revision;
}

/** The one typed conflict error: the stream was not in the state the writer expected. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';

  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The revision of the stream's last event when the append was refused; null = no stream. */
    readonly actual: bigint | null,
    message?: string,
  ) {
    super(
      message ??
        `Append to ${streamId} expected ${describeRevision(expected)} but found ${describeRevision(actual)}`,
    );
  }
}

/** Appending to (or reading, where that matters) a stream that was erased. */
export class StreamErasedError extends Error {
  override readonly name = 'StreamErasedError';

  constructor(
    readonly streamId: string,
    message?: string,
  ) {
    super(message ?? `Stream ${streamId} was erased`);
  }
}

/**
 * An event id of the batch is already recorded elsewhere (another stream or another revision),
 * or appears twice in the batch. Not a retryable conflict: the caller reused an id.
 */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError';

  constructor(
    readonly streamId: string,
    readonly eventId: string,
    message?: string,
  ) {
    super(message ?? `Event id ${eventId} appended to ${streamId} is already recorded`);
  }
}

/**
 * The store refuses a batch larger than it takes in one append (an EventStoreDB or KurrentDB
 * node's `MaxAppendSize`, 1 MiB by default); nothing of it was stored.
 */
export class AppendTooLargeError extends Error {
  override readonly name = 'AppendTooLargeError';

  constructor(
    readonly streamId: string,
    /** The store's bound, in bytes of the events' data and metadata. */
    readonly maxAppendBytes: number,
  ) {
    super(
      `the event store refuses an append to ${streamId} over ${maxAppendBytes} bytes (its maximum append size)`,
    );
  }
}

/** Stream metadata that would set retention or access control; nothing was stored. */
export class ReservedStreamMetadataError extends Error {
  override readonly name = 'ReservedStreamMetadataError';

  constructor(
    readonly streamId: string,
    readonly keys: readonly string[],
  ) {
    super(
      `Stream metadata of ${streamId} may not set ${keys.join(', ')}: events leave a stream only ` +
        'through eraseStream, so retention and access control are not delegated to the store',
    );
  }
}
