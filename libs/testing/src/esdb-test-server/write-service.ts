// TEST FIXTURE. The writing RPCs of the EventStoreDB protocol test server: `Streams.Append`
// (client-streaming: options, then one proposed message per event; a wrong expected version is a
// reply, a deleted stream a trailer error), `Streams.BatchAppend` (bidi, chunks correlated by id
// until `is_final`; failures are `google.rpc.Status` replies), and the unary `Streams.Delete`
// (soft) and `Streams.Tombstone` (hard), whose failures are trailer errors.
import type { sendUnaryData, ServerDuplexStream, ServerReadableStream, ServerUnaryCall } from '@grpc/grpc-js';
import {
  AppendReq,
  AppendResp,
  BatchAppendReq,
  BatchAppendResp,
  DeleteReq,
  DeleteResp,
  TombstoneReq,
  TombstoneResp,
} from '@eventstore/db-client/generated/streams_pb';
import { AllStreamPosition } from '@eventstore/db-client/generated/shared_pb';
import type { EventLog, ProposedEvent, WriteOutcome } from './event-log';
import type { SubscriptionRegistry } from './subscription-service';
import {
  Empty,
  ProtobufEmpty,
  invalidArgumentError,
  maximumAppendSizeError,
  maximumAppendSizeStatus,
  streamDeletedError,
  streamDeletedStatus,
  streamIdentifier,
  streamNameOf,
  uuidText,
  type UUID,
  wrongExpectedVersionError,
  wrongExpectedVersionStatus,
  type WireExpectation,
} from './wire';

type ExpectationSource = {
  getRevision?(): string;
  getStreamPosition?(): string;
  hasNoStream(): boolean;
  hasAny(): boolean;
  hasStreamExists(): boolean;
};

function expectationOf(options: ExpectationSource): WireExpectation {
  if (options.hasNoStream()) return 'no_stream';
  if (options.hasAny()) return 'any';
  if (options.hasStreamExists()) return 'stream_exists';
  return BigInt(options.getRevision?.() ?? options.getStreamPosition?.() ?? '0');
}

function proposedEvent(message: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage): ProposedEvent {
  const metadata = message.getMetadataMap();
  return {
    eventId: uuidText(message.getId()),
    eventType: metadata.get('type') ?? '',
    contentType: metadata.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

function appendReply(
  expected: WireExpectation,
  outcome: Exclude<WriteOutcome, { kind: 'stream_deleted' }>,
): AppendResp {
  const reply = new AppendResp();
  if (outcome.kind === 'written') {
    const success = new AppendResp.Success();
    if (outcome.lastRevision === null) success.setNoStream(new Empty());
    else success.setCurrentRevision(outcome.lastRevision.toString(10));
    if (outcome.position === null) success.setNoPosition(new Empty());
    else {
      const position = new AppendResp.Position();
      position.setCommitPosition(outcome.position.toString(10));
      position.setPreparePosition(outcome.position.toString(10));
      success.setPosition(position);
    }
    reply.setSuccess(success);
    return reply;
  }
  const wrong = new AppendResp.WrongExpectedVersion();
  if (outcome.actual === null) wrong.setCurrentNoStream(new Empty());
  else wrong.setCurrentRevision(outcome.actual.toString(10));
  switch (expected) {
    case 'any':
      wrong.setExpectedAny(new Empty());
      break;
    case 'no_stream':
      wrong.setExpectedNoStream(new Empty());
      break;
    case 'stream_exists':
      wrong.setExpectedStreamExists(new Empty());
      break;
    default:
      wrong.setExpectedRevision(expected.toString(10));
  }
  reply.setWrongExpectedVersion(wrong);
  return reply;
}

/** The bytes an append carries, as the server counts them against its maximum append size. */
function appendBytes(events: readonly ProposedEvent[]): number {
  return events.reduce((total, event) => total + event.data.length + event.customMetadata.length, 0);
}

export function handleAppend(
  log: EventLog,
  call: ServerReadableStream<AppendReq, AppendResp>,
  callback: sendUnaryData<AppendResp>,
  maxAppendBytes?: number,
): void {
  let options: AppendReq.Options | undefined;
  const proposed: ProposedEvent[] = [];
  call.on('data', (request: AppendReq) => {
    if (request.hasOptions()) options = request.getOptions();
    const message = request.getProposedMessage();
    if (message !== undefined) proposed.push(proposedEvent(message));
  });
  call.on('end', () => {
    if (options === undefined) {
      callback(invalidArgumentError('Append without options'), null);
      return;
    }
    const streamName = streamNameOf(options.getStreamIdentifier());
    const expected = expectationOf(options);
    if (maxAppendBytes !== undefined && appendBytes(proposed) > maxAppendBytes) {
      callback(maximumAppendSizeError(maxAppendBytes), null);
      return;
    }
    const outcome = log.append(streamName, expected, proposed);
    if (outcome.kind === 'stream_deleted') callback(streamDeletedError(streamName), null);
    else callback(null, appendReply(expected, outcome));
  });
}

function batchReply(
  correlationId: UUID | undefined,
  streamName: string,
  expected: WireExpectation,
  outcome: WriteOutcome | { readonly kind: 'too_large'; readonly maxAppendBytes: number },
): BatchAppendResp {
  const reply = new BatchAppendResp();
  reply.setCorrelationId(correlationId);
  reply.setStreamIdentifier(streamIdentifier(streamName));
  switch (expected) {
    case 'any':
      reply.setAny(new ProtobufEmpty());
      break;
    case 'no_stream':
      reply.setNoStream(new ProtobufEmpty());
      break;
    case 'stream_exists':
      reply.setStreamExists(new ProtobufEmpty());
      break;
    default:
      reply.setStreamPosition(expected.toString(10));
  }
  switch (outcome.kind) {
    case 'too_large':
      reply.setError(maximumAppendSizeStatus(outcome.maxAppendBytes));
      return reply;
    case 'stream_deleted':
      reply.setError(streamDeletedStatus(streamName));
      return reply;
    case 'wrong_expected_version':
      reply.setError(wrongExpectedVersionStatus(expected, outcome.actual));
      return reply;
    case 'written': {
      const success = new BatchAppendResp.Success();
      if (outcome.lastRevision === null) success.setNoStream(new ProtobufEmpty());
      else success.setCurrentRevision(outcome.lastRevision.toString(10));
      if (outcome.position === null) success.setNoPosition(new ProtobufEmpty());
      else {
        const position = new AllStreamPosition();
        position.setCommitPosition(outcome.position.toString(10));
        position.setPreparePosition(outcome.position.toString(10));
        success.setPosition(position);
      }
      reply.setSuccess(success);
      return reply;
    }
    default: {
      const unexpected: never = outcome;
      throw new Error(`Unknown outcome ${JSON.stringify(unexpected)}`);
    }
  }
}

export function handleBatchAppend(
  log: EventLog,
  registry: SubscriptionRegistry,
  call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>,
  maxAppendBytes?: number,
): void {
  const pending = new Map<string, { options?: BatchAppendReq.Options; events: ProposedEvent[] }>();
  const unregister = registry.add(() => {
    if (!call.writableEnded) call.end();
  });
  call.on('data', (request: BatchAppendReq) => {
    const key = uuidText(request.getCorrelationId());
    const batch = pending.get(key) ?? { events: [] };
    pending.set(key, batch);
    if (request.hasOptions()) batch.options = request.getOptions();
    for (const message of request.getProposedMessagesList()) batch.events.push(proposedEvent(message));
    if (!request.getIsFinal()) return;
    pending.delete(key);
    if (batch.options === undefined) {
      call.emit('error', invalidArgumentError('BatchAppend without options'));
      return;
    }
    const streamName = streamNameOf(batch.options.getStreamIdentifier());
    const expected = expectationOf(batch.options);
    const outcome =
      maxAppendBytes !== undefined && appendBytes(batch.events) > maxAppendBytes
        ? { kind: 'too_large' as const, maxAppendBytes }
        : log.append(streamName, expected, batch.events);
    if (!call.writableEnded)
      call.write(batchReply(request.getCorrelationId(), streamName, expected, outcome));
  });
  call.on('end', () => {
    unregister();
    if (!call.writableEnded) call.end();
  });
  call.on('cancelled', unregister);
}

function deletion(
  log: EventLog,
  options: DeleteReq.Options | TombstoneReq.Options | undefined,
  write: (log: EventLog, streamName: string, expected: WireExpectation) => WriteOutcome,
): { readonly position: bigint | null } | Error {
  if (options === undefined) return invalidArgumentError('Delete without options');
  const streamName = streamNameOf(options.getStreamIdentifier());
  const expected = expectationOf(options);
  const outcome = write(log, streamName, expected);
  switch (outcome.kind) {
    case 'stream_deleted':
      return streamDeletedError(streamName);
    case 'wrong_expected_version':
      return wrongExpectedVersionError(streamName, expected, outcome.actual);
    case 'written':
      return { position: outcome.position };
    default: {
      const unexpected: never = outcome;
      throw new Error(`Unknown outcome ${JSON.stringify(unexpected)}`);
    }
  }
}

export function handleDelete(
  log: EventLog,
  call: ServerUnaryCall<DeleteReq, DeleteResp>,
  callback: sendUnaryData<DeleteResp>,
): void {
  const result = deletion(log, call.request.getOptions(), (target, name, expected) =>
    target.softDelete(name, expected),
  );
  if (result instanceof Error) return callback(result, null);
  const reply = new DeleteResp();
  if (result.position === null) reply.setNoPosition(new Empty());
  else {
    const position = new DeleteResp.Position();
    position.setCommitPosition(result.position.toString(10));
    position.setPreparePosition(result.position.toString(10));
    reply.setPosition(position);
  }
  callback(null, reply);
}

export function handleTombstone(
  log: EventLog,
  call: ServerUnaryCall<TombstoneReq, TombstoneResp>,
  callback: sendUnaryData<TombstoneResp>,
): void {
  const result = deletion(log, call.request.getOptions(), (target, name, expected) =>
    target.tombstone(name, expected),
  );
  if (result instanceof Error) return callback(result, null);
  const reply = new TombstoneResp();
  if (result.position === null) reply.setNoPosition(new Empty());
  else {
    const position = new TombstoneResp.Position();
    position.setCommitPosition(result.position.toString(10));
    position.setPreparePosition(result.position.toString(10));
    reply.setPosition(position);
  }
  callback(null, reply);
}
