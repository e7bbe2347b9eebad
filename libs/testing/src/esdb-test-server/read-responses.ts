// TEST FIXTURE. The replies of `Streams.Read` shared by reads and subscriptions of the
// EventStoreDB protocol test server: recorded events as the real server encodes them (ids in
// the requested UUID form, revision, commit and prepare positions, `type` / `content-type` /
// `created` metadata), checkpoints, filter matching, and writes with back-pressure.
import type { ServerWritableStream } from '@grpc/grpc-js';
import { ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { LogRecord } from './event-log';
import { Empty, streamIdentifier, wireUuid } from './wire';

export type ReadCall = ServerWritableStream<ReadReq, ReadResp>;

function recordedEvent(record: LogRecord, structuredIds: boolean): ReadResp.ReadEvent.RecordedEvent {
  const recorded = new ReadResp.ReadEvent.RecordedEvent();
  recorded.setId(wireUuid(record.eventId, structuredIds));
  recorded.setStreamIdentifier(streamIdentifier(record.streamName));
  recorded.setStreamRevision(record.revision.toString(10));
  recorded.setCommitPosition(record.position.toString(10));
  recorded.setPreparePosition(record.position.toString(10));
  const metadata = recorded.getMetadataMap();
  metadata.set('type', record.eventType);
  metadata.set('content-type', record.contentType);
  metadata.set('created', record.createdTicks.toString(10));
  recorded.setCustomMetadata(record.customMetadata);
  recorded.setData(record.data);
  return recorded;
}

export function eventResponse(record: LogRecord, structuredIds: boolean, withPosition: boolean): ReadResp {
  const readEvent = new ReadResp.ReadEvent();
  readEvent.setEvent(recordedEvent(record, structuredIds));
  if (withPosition) readEvent.setCommitPosition(record.position.toString(10));
  else readEvent.setNoPosition(new Empty());
  const response = new ReadResp();
  response.setEvent(readEvent);
  return response;
}

export function checkpointResponse(position: bigint): ReadResp {
  const checkpoint = new ReadResp.Checkpoint();
  checkpoint.setCommitPosition(position.toString(10));
  checkpoint.setPreparePosition(position.toString(10));
  const response = new ReadResp();
  response.setCheckpoint(checkpoint);
  return response;
}

/** The filter as a predicate on records (every record passes when there is none). */
export function recordFilter(options: ReadReq.Options): (record: LogRecord) => boolean {
  const filter = options.hasFilter() ? options.getFilter() : undefined;
  if (filter === undefined) return () => true;
  const onStreams = filter.hasStreamIdentifier();
  const expression = onStreams ? filter.getStreamIdentifier() : filter.getEventType();
  const prefixes = expression?.getPrefixList() ?? [];
  const regexText = expression?.getRegex() ?? '';
  const pattern = regexText.length > 0 ? new RegExp(regexText) : undefined;
  return (record) => {
    const value = onStreams ? record.streamName : record.eventType;
    if (prefixes.length > 0) return prefixes.some((prefix) => value.startsWith(prefix));
    return pattern === undefined || pattern.test(value);
  };
}

/** Writes with back-pressure; resolves false when the call ended meanwhile. */
export async function send(call: ReadCall, response: ReadResp): Promise<boolean> {
  if (call.cancelled || call.writableEnded) return false;
  if (call.write(response)) return true;
  return new Promise((resolve) => {
    const done = (drained: boolean) => {
      call.off('drain', onDrain);
      call.off('cancelled', onCancel);
      resolve(drained);
    };
    const onDrain = () => done(true);
    const onCancel = () => done(false);
    call.on('drain', onDrain);
    call.on('cancelled', onCancel);
  });
}
