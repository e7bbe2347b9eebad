// TEST FIXTURE. Wire helpers of the EventStoreDB protocol test server: the generated message
// classes shipped inside @eventstore/db-client (the same module instances the client uses, so the
// generated serialisers accept our replies), identifier and UUID conversion, and the gRPC errors
// whose trailers the client turns into its typed errors.
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  Empty,
  MaximumAppendSizeExceeded,
  StreamDeleted,
  StreamIdentifier,
  UUID,
  WrongExpectedVersion,
} from '@eventstore/db-client/generated/shared_pb';
import { Status } from '@eventstore/db-client/generated/status_pb';
import { Code } from '@eventstore/db-client/generated/code_pb';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { Empty as ProtobufEmpty } from 'google-protobuf/google/protobuf/empty_pb';

export { Empty, ProtobufEmpty, StreamIdentifier, UUID };

/** The revision EventStoreDB gives a tombstone record (and reports for a hard-deleted stream). */
export const DELETED_STREAM_REVISION = 9223372036854775807n;

/** What the writer believed about the stream, as the protocol expresses it. */
export type WireExpectation = 'any' | 'no_stream' | 'stream_exists' | bigint;

export function streamNameOf(identifier: StreamIdentifier | undefined): string {
  if (identifier === undefined) return '';
  return Buffer.from(identifier.getStreamName_asU8()).toString('utf8');
}

export function streamIdentifier(streamName: string): StreamIdentifier {
  const identifier = new StreamIdentifier();
  identifier.setStreamName(Uint8Array.from(Buffer.from(streamName, 'utf8')));
  return identifier;
}

/** Reads a protocol UUID (string or structured form) as its canonical text. */
export function uuidText(uuid: UUID | undefined): string {
  if (uuid === undefined) return '';
  if (uuid.hasStructured()) {
    const structured = uuid.getStructured()!;
    const bytes = Buffer.alloc(16);
    bytes.writeBigInt64BE(BigInt(structured.getMostSignificantBits()), 0);
    bytes.writeBigInt64BE(BigInt(structured.getLeastSignificantBits()), 8);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return uuid.getString().toLowerCase();
}

/** Writes a UUID in the form the request asked for (`structured` or string). */
export function wireUuid(text: string, structured: boolean): UUID {
  const uuid = new UUID();
  if (!structured) {
    uuid.setString(text);
    return uuid;
  }
  const bytes = Buffer.from(text.replace(/-/g, ''), 'hex');
  const parts = new UUID.Structured();
  parts.setMostSignificantBits(bytes.readBigInt64BE(0).toString(10));
  parts.setLeastSignificantBits(bytes.readBigInt64BE(8).toString(10));
  uuid.setStructured(parts);
  return uuid;
}

function serviceError(code: status, details: string, metadata: Metadata): ServiceError {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata });
}

/** The legacy version number EventStoreDB puts in `expected-version` trailers. */
function legacyExpectedVersion(expected: WireExpectation): string {
  switch (expected) {
    case 'no_stream':
      return '-1';
    case 'any':
      return '-2';
    case 'stream_exists':
      return '-4';
    default:
      return expected.toString(10);
  }
}

/** `exception: wrong-expected-version` with `stream-name`, `expected-version`, `actual-version`. */
export function wrongExpectedVersionError(
  streamName: string,
  expected: WireExpectation,
  actual: bigint | null,
): ServiceError {
  const metadata = new Metadata();
  metadata.set('exception', 'wrong-expected-version');
  metadata.set('stream-name', streamName);
  metadata.set('expected-version', legacyExpectedVersion(expected));
  if (actual !== null) metadata.set('actual-version', actual.toString(10));
  return serviceError(
    status.FAILED_PRECONDITION,
    `Append failed due to WrongExpectedVersion. Stream: ${streamName}, Expected version: ${legacyExpectedVersion(expected)}, Actual version: ${actual ?? -1}`,
    metadata,
  );
}

/** `exception: stream-deleted` with `stream-name`. */
export function streamDeletedError(streamName: string): ServiceError {
  const metadata = new Metadata();
  metadata.set('exception', 'stream-deleted');
  metadata.set('stream-name', streamName);
  return serviceError(status.FAILED_PRECONDITION, `Event stream '${streamName}' is deleted.`, metadata);
}

/** `exception: maximum-append-size-exceeded` with `maximum-append-size` (the Append error form). */
export function maximumAppendSizeError(maxAppendBytes: number): ServiceError {
  const metadata = new Metadata();
  metadata.set('exception', 'maximum-append-size-exceeded');
  metadata.set('maximum-append-size', String(maxAppendBytes));
  return serviceError(
    status.INVALID_ARGUMENT,
    `Maximum Append Size of ${maxAppendBytes} Exceeded.`,
    metadata,
  );
}

/** A `google.rpc.Status` whose details pack a `MaximumAppendSizeExceeded` (the BatchAppend error form). */
export function maximumAppendSizeStatus(maxAppendBytes: number): Status {
  const details = new MaximumAppendSizeExceeded();
  details.setMaxappendsize(maxAppendBytes);
  return packedStatus(
    Code.INVALID_ARGUMENT,
    `Maximum Append Size of ${maxAppendBytes} Exceeded.`,
    details.serializeBinary(),
    'MaximumAppendSizeExceeded',
  );
}

export function invalidArgumentError(details: string): ServiceError {
  return serviceError(status.INVALID_ARGUMENT, details, new Metadata());
}

/** A `google.rpc.Status` whose details pack a `WrongExpectedVersion` (the BatchAppend error form). */
export function wrongExpectedVersionStatus(expected: WireExpectation, actual: bigint | null): Status {
  const details = new WrongExpectedVersion();
  if (actual === null) details.setCurrentNoStream(new ProtobufEmpty());
  else details.setCurrentStreamRevision(actual.toString(10));
  switch (expected) {
    case 'any':
      details.setExpectedAny(new ProtobufEmpty());
      break;
    case 'no_stream':
      details.setExpectedNoStream(new ProtobufEmpty());
      break;
    case 'stream_exists':
      details.setExpectedStreamExists(new ProtobufEmpty());
      break;
    default:
      details.setExpectedStreamPosition(expected.toString(10));
  }
  return packedStatus(
    Code.FAILED_PRECONDITION,
    'WrongExpectedVersion',
    details.serializeBinary(),
    'WrongExpectedVersion',
  );
}

/** A `google.rpc.Status` whose details pack a `StreamDeleted` (the BatchAppend error form). */
export function streamDeletedStatus(streamName: string): Status {
  const details = new StreamDeleted();
  details.setStreamIdentifier(streamIdentifier(streamName));
  return packedStatus(Code.FAILED_PRECONDITION, 'StreamDeleted', details.serializeBinary(), 'StreamDeleted');
}

function packedStatus(code: Code, message: string, bytes: Uint8Array, typeName: string): Status {
  const packed = new Any();
  packed.pack(bytes, `event_store.client.${typeName}`);
  const result = new Status();
  result.setCode(code);
  result.setMessage(message);
  result.setDetails(packed);
  return result;
}
