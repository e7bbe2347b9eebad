// How the EventStoreDB adapter translates between the port and @eventstore/db-client 6.2.1:
// expected revisions, global positions, recorded events, the streams Strata keeps for itself,
// and which events of `$all` the port never shows.
//
// Positions. EventStoreDB orders `$all` by (commit, prepare) log positions. Every event written
// outside a legacy TCP transaction — so every event written through gRPC — is committed by its
// own prepare record, and the server reports commit == prepare == that record's log position:
// one number per event, strictly increasing in `$all` order. The port's position is that
// number. Resuming is exact: `{ commit: p, prepare: p }` is the position of the event at p, so a
// subscription from it starts right after that event and a forward read from it starts with it.
// An event whose commit and prepare differ (a legacy transaction) cannot be named by one number
// without losing order or exactness, so reading one fails loudly instead of guessing. Stream
// reads carry positions on servers newer than 22.6 (older ones are refused the same way).
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  type AppendExpectedRevision,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { createHash } from 'node:crypto';
import {
  ERASURE_EVENT_TYPE,
  ERASURE_LOG_STREAM,
  erasureRecordOfEvent,
  type ExpectedRevision,
  type RecordedEvent,
} from '../port';

/** The audit stream of erasures (who, when, why, how many; never content): the port's erasure log. */
export const ERASURE_STREAM = ERASURE_LOG_STREAM;
export { ERASURE_EVENT_TYPE };
/** The log of signed anchors (stream heads; never content). */
export const ANCHOR_STREAM = 'strata-anchors';
export const ANCHOR_EVENT_TYPE = 'strata.anchor-signed';
/** Checkpoint streams are `strata-checkpoint-<subscriber>`, each with `maxCount: 1`. */
export const CHECKPOINT_STREAM_PREFIX = 'strata-checkpoint-';
export const CHECKPOINT_EVENT_TYPE = 'strata.checkpoint-stored';

export function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

export function toEsdbPosition(position: bigint): Position {
  return { commit: position, prepare: position };
}

/** The port position of an ESDB position (see the module header). */
export function fromEsdbPosition(position: Position, what: string): bigint {
  if (position.commit !== position.prepare) {
    throw new Error(
      `${what} has commit position ${position.commit} and prepare position ${position.prepare}: ` +
        'events of legacy TCP transactions cannot be given one global position',
    );
  }
  return position.commit;
}

/** Streams Strata keeps for itself on the server: not part of what readAll or subscribe show. */
export function isInternalStream(streamId: string): boolean {
  return (
    streamId === ERASURE_STREAM || streamId === ANCHOR_STREAM || streamId.startsWith(CHECKPOINT_STREAM_PREFIX)
  );
}

/**
 * Whether `$all` shows an event to the port: never system streams or system events (metastreams,
 * tombstone records, projections' links), the checkpoints, events that are not JSON, or events of
 * erased streams (which stay in `$all` until the server scavenges them). The erasure log's records
 * are shown (the port filter then lets them through only to `includeErasures`).
 */
export function isVisibleInAll(resolved: ResolvedEvent, erasedStreams: ReadonlySet<string>): boolean {
  const event = resolved.event;
  if (event === undefined) return false;
  if (event.streamId.startsWith('$') || event.type.startsWith('$')) return false;
  if (!event.isJson) return false;
  if (event.streamId === ERASURE_STREAM) return event.type === ERASURE_EVENT_TYPE;
  return !isInternalStream(event.streamId) && !erasedStreams.has(event.streamId);
}

/**
 * Adds the stream an erasure record names to `erasedStreams`, so that a read or subscription that
 * passes the record never shows an event of that stream after it (an append that raced the
 * tombstone is removed by it, and is not shown meanwhile).
 */
export function noteErasure(resolved: ResolvedEvent, erasedStreams: Set<string>): void {
  const event = resolved.event;
  if (event === undefined || event.streamId !== ERASURE_STREAM || !event.isJson) return;
  const record = erasureRecordOfEvent(event);
  if (record !== undefined) erasedStreams.add(record.streamId);
}

/** The client's metadata of an event as the port's record (binary or absent metadata is `{}`). */
export function metadataRecordOf(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array)
    ? (value as Readonly<Record<string, unknown>>)
    : {};
}

/**
 * Where the adapter keeps the time an event was appended with (`EventToAppend.createdAt`): the
 * server stamps every event with its own `created`, so the given time travels in the event's
 * metadata under this key, and is taken out again when the event is read (reported as its
 * `createdAt`; its metadata is what the caller appended).
 */
export const GIVEN_TIME_KEY = '$createdAt';

/** The port's view of a JSON event read through the client (undefined for anything else). */
export function toRecordedEvent(resolved: ResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (event === undefined || !event.isJson) return undefined;
  if (event.position === undefined) {
    throw new Error(`Event ${event.id} of ${event.streamId} came without a position (servers before 22.6)`);
  }
  const { [GIVEN_TIME_KEY]: given, ...metadata } = metadataRecordOf(event.metadata);
  return {
    streamId: event.streamId,
    id: event.id,
    type: event.type,
    data: event.data,
    metadata,
    revision: event.revision,
    position: fromEsdbPosition(event.position, `Event ${event.id} of ${event.streamId}`),
    createdAt: typeof given === 'string' ? given : event.created.toISOString(),
  };
}

/**
 * A stable event id for the erasure record of a stream (a name-based UUID, version 5 layout), so
 * that a retried erasure appends the same record again, which the server treats as a retry.
 */
export function erasureEventId(streamId: string): string {
  const bytes = createHash('sha1').update(`strata-erasure:${streamId}`, 'utf8').digest().subarray(0, 16);
  bytes[6] = 0x50 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
