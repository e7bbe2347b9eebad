// TEST FIXTURE. `Streams.Read` of the EventStoreDB protocol test server: stream reads and `$all`
// reads in both directions with a count; subscriptions are handed to subscription-service.ts.
// Stream reads are inclusive of their start revision in both directions; `$all` reads are
// inclusive forwards and exclusive backwards, as on the real server. A missing stream is a
// `stream_not_found` reply, a tombstoned one a `stream-deleted` trailer error.
import { ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { EventLog, LogRecord } from './event-log';
import { eventResponse, recordFilter, send, type ReadCall } from './read-responses';
import { subscribeToAll, subscribeToStream, type SubscriptionRegistry } from './subscription-service';
import { invalidArgumentError, streamDeletedError, streamIdentifier } from './wire';

export async function handleRead(
  log: EventLog,
  registry: SubscriptionRegistry,
  call: ReadCall,
): Promise<void> {
  const options = call.request.getOptions();
  if (options === undefined) {
    call.emit('error', invalidArgumentError('Read request without options'));
    return;
  }
  const structuredIds = options.getUuidOption()?.hasStructured() ?? false;
  const subscribing = options.getCountOptionCase() === ReadReq.Options.CountOptionCase.SUBSCRIPTION;
  const streamOptions = options.getStream();
  if (streamOptions !== undefined) {
    if (subscribing) await subscribeToStream(log, registry, call, streamOptions, structuredIds);
    else await readStream(log, call, options, streamOptions, structuredIds);
    return;
  }
  const allOptions = options.getAll();
  if (allOptions === undefined) {
    call.emit('error', invalidArgumentError('Read request without a stream or $all'));
    return;
  }
  if (subscribing) await subscribeToAll(log, registry, call, options, allOptions, structuredIds);
  else await readAll(log, call, options, allOptions, structuredIds);
}

async function readStream(
  log: EventLog,
  call: ReadCall,
  options: ReadReq.Options,
  streamOptions: ReadReq.Options.StreamOptions,
  structuredIds: boolean,
): Promise<void> {
  const identifier = streamOptions.getStreamIdentifier();
  const streamName =
    identifier === undefined ? '' : Buffer.from(identifier.getStreamName_asU8()).toString('utf8');
  const view = log.view(streamName);
  if (view.kind === 'deleted') {
    call.emit('error', streamDeletedError(streamName));
    return;
  }
  if (view.kind === 'not_found') {
    const notFound = new ReadResp.StreamNotFound();
    notFound.setStreamIdentifier(streamIdentifier(streamName));
    const response = new ReadResp();
    response.setStreamNotFound(notFound);
    await send(call, response);
    call.end();
    return;
  }
  const forwards = options.getReadDirection() === ReadReq.Options.ReadDirection.FORWARDS;
  const count = BigInt(options.getCount());
  const Case = ReadReq.Options.StreamOptions.RevisionOptionCase;
  const revisionOption = streamOptions.getRevisionOptionCase();
  let selected: readonly LogRecord[];
  switch (revisionOption) {
    case Case.REVISION: {
      const from = BigInt(streamOptions.getRevision());
      selected = forwards
        ? view.events.filter((event) => event.revision >= from)
        : view.events.filter((event) => event.revision <= from).reverse();
      break;
    }
    case Case.END:
      selected = forwards ? [] : [...view.events].reverse();
      break;
    case Case.START:
    case Case.REVISION_OPTION_NOT_SET:
      selected = forwards ? view.events : view.events.slice(0, 1);
      break;
    default: {
      const unexpected: never = revisionOption;
      throw new Error(`Unknown revision option ${String(unexpected)}`);
    }
  }
  const limit = count < BigInt(selected.length) ? Number(count) : selected.length;
  for (const record of selected.slice(0, limit)) {
    if (!(await send(call, eventResponse(record, structuredIds, false)))) return;
  }
  call.end();
}

async function readAll(
  log: EventLog,
  call: ReadCall,
  options: ReadReq.Options,
  allOptions: ReadReq.Options.AllOptions,
  structuredIds: boolean,
): Promise<void> {
  const forwards = options.getReadDirection() === ReadReq.Options.ReadDirection.FORWARDS;
  let remaining = BigInt(options.getCount());
  const matches = recordFilter(options);
  const Case = ReadReq.Options.AllOptions.AllOptionCase;
  const position = allOptions.getPosition();
  const from = position === undefined ? undefined : BigInt(position.getCommitPosition());
  let index: number;
  if (forwards) {
    index = allOptions.getAllOptionCase() === Case.END ? log.length : 0;
    while (from !== undefined && index < log.length && log.recordAt(index)!.position < from) index++;
  } else {
    index = allOptions.getAllOptionCase() === Case.START ? -1 : log.length - 1;
    while (from !== undefined && index >= 0 && log.recordAt(index)!.position >= from) index--;
  }
  while (remaining > 0n) {
    const record = log.recordAt(index);
    if (record === undefined) break;
    index += forwards ? 1 : -1;
    if (!matches(record)) continue;
    if (!(await send(call, eventResponse(record, structuredIds, true)))) return;
    remaining--;
  }
  call.end();
}
