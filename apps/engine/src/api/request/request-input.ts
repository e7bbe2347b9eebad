// Reading what a client sends — body, query string, path parameters — through zod schemas
// (STYLE.md habit 15). Bodies are read by the API itself (no framework body parser), so the
// size limit is enforced while reading and a JSON body is never used before it is validated.
import type { IncomingMessage } from 'node:http';
import { afterLargeStep } from '@strata/event-store';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '@strata/session';
import type { z } from 'zod';
import { invalidInput, payloadTooLarge, type InputProblem } from '../problem/api-errors';

/** Bytes read and dropped after the limit before the connection is cut. */
const DISCARD_ALLOWANCE_FACTOR = 4;

export function inputProblems(where: string, error: z.ZodError): InputProblem[] {
  return error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

function mediaTypeOf(request: IncomingMessage): string | undefined {
  return request.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase() || undefined;
}

/**
 * The most of a body an answer given before reading it lets Node read off the wire and drop, to
 * keep the connection; a longer body, or one of unknown length, closes it instead. Small, unlike
 * the allowance past a body limit: a write refused early is refused so as not to spend on it.
 */
export const EARLY_ANSWER_DRAIN_BYTES = 64 * 1024;

/**
 * What the body will take, known before it is read: its Content-Length, at most `limitBytes`
 * (a longer body is refused as it is read); `limitBytes` for a body of unknown length (chunked);
 * 0 for a request without a body.
 */
export function declaredBodyBytes(request: IncomingMessage, limitBytes: number): number {
  if (request.headers['transfer-encoding'] !== undefined) return limitBytes;
  const length = request.headers['content-length'];
  if (length === undefined) return 0;
  const declared = Number(length);
  return Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, limitBytes) : limitBytes;
}

/**
 * The headers that keep a connection sound when the answer comes before the body is read: none
 * when the body is short enough for Node to drop after the answer (the connection is kept);
 * `Connection: close` otherwise, as for a body over its limit.
 */
export function earlyAnswerHeaders(request: IncomingMessage): Readonly<Record<string, string>> {
  const declared = Number(request.headers['content-length'] ?? 0);
  const drained =
    request.headers['transfer-encoding'] === undefined &&
    Number.isSafeInteger(declared) &&
    declared <= EARLY_ANSWER_DRAIN_BYTES;
  return drained ? {} : { Connection: 'close' };
}

/** Where a body's bytes are gathered while it is read. */
interface BodyBytes {
  add(chunk: Buffer): void;
  bytes(): Buffer;
}

/** Chunks kept as they come and joined at the end: for a body of unknown length. */
function joinedChunks(): BodyBytes {
  const chunks: Buffer[] = [];
  return { add: (chunk) => chunks.push(chunk), bytes: () => Buffer.concat(chunks) };
}

/**
 * One buffer of the declared length, each chunk copied in as it arrives: the body is copied
 * once, a chunk at a time, instead of joined in one long copy at its end (70–100 ms on the event
 * loop for a 60 MB session file). `shared`: the buffer is a SharedArrayBuffer, so that a worker
 * thread given the body reads these bytes instead of a copy made when it is sent.
 */
function preallocated(length: number, shared: boolean): BodyBytes {
  const buffer = shared ? Buffer.from(new SharedArrayBuffer(length)) : Buffer.allocUnsafe(length);
  let filled = 0;
  return {
    add: (chunk) => {
      // Node's parser never hands more than Content-Length; a copy past the end would only drop bytes
      filled += chunk.copy(buffer, filled);
    },
    bytes: () => buffer.subarray(0, filled),
  };
}

export interface ReadBodyOptions {
  /** Gather the body in a SharedArrayBuffer (to hand it to a worker thread without a copy). */
  readonly shared?: boolean;
}

/**
 * The body's bytes; `payload_too_large` beyond `limitBytes` (checked against the header first).
 * A body of declared length within the limit is gathered in one buffer of that length.
 */
export function readRequestBytes(
  request: IncomingMessage,
  limitBytes: number,
  options: ReadBodyOptions = {},
): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  const known =
    request.headers['transfer-encoding'] === undefined &&
    Number.isSafeInteger(declared) &&
    declared >= 0 &&
    declared <= limitBytes;
  return new Promise((resolve, reject) => {
    const body = known ? preallocated(declared, options.shared === true) : joinedChunks();
    let received = 0;
    let tooLarge = Number.isFinite(declared) && declared > limitBytes;
    const finish = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limitBytes) tooLarge = true;
      if (!tooLarge) body.add(chunk);
      else if (received > limitBytes * DISCARD_ALLOWANCE_FACTOR) {
        finish();
        reject(payloadTooLarge(limitBytes));
        request.resume();
      }
    };
    const onEnd = (): void => {
      finish();
      if (tooLarge) reject(payloadTooLarge(limitBytes));
      else resolve(body.bytes());
    };
    const onError = (error: Error): void => {
      finish();
      reject(error);
    };
    if (tooLarge && declared > limitBytes * DISCARD_ALLOWANCE_FACTOR) {
      reject(payloadTooLarge(limitBytes));
      request.resume();
      return;
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as UTF-8 text; `validation` when they are not UTF-8 (instead of replacing bad bytes). */
export function utf8BodyText(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalidInput('the body is not UTF-8 text');
  }
}

/** The body as UTF-8 text; `validation` when it is not UTF-8 (instead of replacing bad bytes). */
export async function readRequestText(request: IncomingMessage, limitBytes: number): Promise<string> {
  return utf8BodyText(await readRequestBytes(request, limitBytes));
}

/** `validation` unless the request says its body is JSON (or says nothing). */
export function requireJsonMediaType(request: IncomingMessage): void {
  const mediaType = mediaTypeOf(request);
  if (mediaType !== undefined && mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    throw invalidInput(`the body must be application/json, not ${mediaType}`);
  }
}

/**
 * A body's text as a JSON value: `{}` for an empty body; `validation` for text that is not JSON
 * or nests deeper than MAX_JSON_DEPTH (refused before anything recurses over it, see
 * @strata/session json-depth.ts).
 */
export function jsonBodyValue(text: string): unknown {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidInput(`the body is not JSON: ${(error as Error).message}`);
  }
  if (exceedsJsonDepth(value)) throw invalidInput(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/** A body's JSON value checked against `schema`; `validation` naming every problem. */
export function checkedBody<Schema extends z.ZodType>(value: unknown, schema: Schema): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidInput('the body is not valid', inputProblems('body', parsed.error));
  return parsed.data;
}

/** A JSON body checked against `schema` (jsonBodyValue, then checkedBody). */
export async function readJsonBody<Schema extends z.ZodType>(
  request: IncomingMessage,
  schema: Schema,
  limitBytes: number,
): Promise<z.output<Schema>> {
  const text = await readRequestText(request, limitBytes);
  requireJsonMediaType(request);
  const value = jsonBodyValue(text);
  await afterLargeStep(text.length);
  return checkedBody(value, schema);
}

/** The media types a session file may be sent as. */
export const sessionFileMediaTypes = ['application/x-ndjson', 'application/jsonl', 'text/plain'] as const;

/** Whether every byte is JSON whitespace (found at the first other byte, without a copy of the body). */
function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09);
}

/**
 * A JSON Lines body (a pi session file) as bytes: the session-file parser checks each line's
 * UTF-8 itself, so that a bad line is named (or skipped when lenient). The bytes are in a
 * SharedArrayBuffer: the worker thread that parses the file reads them where they are.
 */
export async function readJsonLinesBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const mediaType = mediaTypeOf(request);
  const bytes = await readRequestBytes(request, limitBytes, { shared: true });
  if (mediaType !== undefined && !(sessionFileMediaTypes as readonly string[]).includes(mediaType)) {
    throw invalidInput(`the body must be one of ${sessionFileMediaTypes.join(', ')}, not ${mediaType}`);
  }
  if (isBlank(bytes)) {
    throw invalidInput('the body is empty; send a session file (JSON Lines)');
  }
  return bytes;
}

/** The query string as single values (a repeated name keeps its last value). */
export function queryOf(request: IncomingMessage): Record<string, string> {
  const search = new URL(request.url ?? '/', 'http://localhost').searchParams;
  const values: Record<string, string> = {};
  for (const [name, value] of search) values[name] = value;
  return values;
}

export function parseQuery<Schema extends z.ZodType>(
  request: IncomingMessage,
  schema: Schema,
): z.output<Schema> {
  const parsed = schema.safeParse(queryOf(request));
  if (!parsed.success) throw invalidInput('the query is not valid', inputProblems('query', parsed.error));
  return parsed.data;
}

export function parseParameter<Schema extends z.ZodType>(
  name: string,
  value: unknown,
  schema: Schema,
): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw invalidInput(
      `the path parameter ${name} is not valid`,
      inputProblems(`path.${name}`, parsed.error),
    );
  }
  return parsed.data;
}
