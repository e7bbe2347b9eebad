// What crosses between a SQLite file's users and its writer: write requests (an operation of an
// operations module, its arguments, its size and its deadline), their outcomes, and errors as
// plain data. The writer runs on a thread of its own, so everything here is structured-clone
// data; errors of the port are sent by name and fields and rebuilt as the same classes, so a
// caller cannot tell a writer thread from a write made in place.
import {
  ConcurrencyError,
  DuplicateEventIdError,
  ReservedStreamMetadataError,
  StreamErasedError,
  type ExpectedRevision,
} from '../../port';

/** One write: `operation` of the operations module at `module` (an absolute path), with `args`. */
export interface WriteRequest {
  readonly seq: number;
  readonly module: string;
  readonly operation: string;
  readonly args: unknown;
  /** About how many bytes the request writes (bounds the size of one transaction). */
  readonly bytes: number;
  /** `Date.now()` after which the request is answered `StoreBusyError` if it has not begun. */
  readonly deadline: number;
  /** Runs alone, outside any transaction (a pragma that a transaction forbids). */
  readonly outsideTransaction?: boolean;
  /** Depends on no request before it: when small, it may be committed ahead of large ones. */
  readonly independent?: boolean;
}

export type WriteOutcome =
  | { readonly seq: number; readonly ok: true; readonly value: unknown }
  | { readonly seq: number; readonly ok: false; readonly error: SerializedError };

export type ToWriter =
  { readonly type: 'requests'; readonly requests: readonly WriteRequest[] } | { readonly type: 'close' };

export type FromWriter =
  | { readonly type: 'ready' }
  | { readonly type: 'outcomes'; readonly outcomes: readonly WriteOutcome[] }
  | { readonly type: 'closed' }
  | { readonly type: 'failed'; readonly error: SerializedError };

export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

/**
 * No write could begin before its deadline: another connection (another process, a backup, a
 * `sqlite3` shell) held the database's write lock. Its `code` is `SQLITE_BUSY`, which the HTTP
 * edge answers with 503 and `Retry-After`; nothing of the write was stored.
 */
export class StoreBusyError extends Error {
  override readonly name = 'StoreBusyError';
  readonly code = 'SQLITE_BUSY';

  constructor(
    readonly waitedMs: number,
    message?: string,
  ) {
    super(
      message ??
        `the database's write lock was held by another connection for ${waitedMs} ms; nothing was written, try again`,
    );
  }
}

function revisionField(value: ExpectedRevision | bigint | null): unknown {
  return value;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof ConcurrencyError) {
    return {
      name: error.name,
      message: error.message,
      fields: {
        streamId: error.streamId,
        expected: revisionField(error.expected),
        actual: revisionField(error.actual),
      },
    };
  }
  if (error instanceof StreamErasedError) {
    return { name: error.name, message: error.message, fields: { streamId: error.streamId } };
  }
  if (error instanceof DuplicateEventIdError) {
    return {
      name: error.name,
      message: error.message,
      fields: { streamId: error.streamId, eventId: error.eventId },
    };
  }
  if (error instanceof ReservedStreamMetadataError) {
    return {
      name: error.name,
      message: error.message,
      fields: { streamId: error.streamId, keys: [...error.keys] },
    };
  }
  if (error instanceof StoreBusyError) {
    return {
      name: error.name,
      message: error.message,
      code: error.code,
      fields: { waitedMs: error.waitedMs },
    };
  }
  // Not `instanceof Error`: the native addon's errors may belong to another realm (under Jest).
  if (typeof error === 'object' && error !== null && typeof (error as Error).message === 'string') {
    const { name, message, code } = error as { name?: unknown; message: string; code?: unknown };
    return {
      name: typeof name === 'string' ? name : 'Error',
      message,
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

function text(fields: Readonly<Record<string, unknown>>, key: string): string {
  const value = fields[key];
  return typeof value === 'string' ? value : '';
}

/** The error a serialized one stands for: the port's own classes again, else an Error with its name and code. */
export function deserializeError(serialized: SerializedError): Error {
  const fields = serialized.fields ?? {};
  switch (serialized.name) {
    case 'ConcurrencyError':
      return new ConcurrencyError(
        text(fields, 'streamId'),
        fields['expected'] as ExpectedRevision,
        fields['actual'] as bigint | null,
        serialized.message,
      );
    case 'StreamErasedError':
      return new StreamErasedError(text(fields, 'streamId'), serialized.message);
    case 'DuplicateEventIdError':
      return new DuplicateEventIdError(text(fields, 'streamId'), text(fields, 'eventId'), serialized.message);
    case 'ReservedStreamMetadataError':
      return new ReservedStreamMetadataError(text(fields, 'streamId'), fields['keys'] as string[]);
    case 'StoreBusyError':
      return new StoreBusyError(Number(fields['waitedMs'] ?? 0), serialized.message);
    case 'TypeError':
      return new TypeError(serialized.message);
    case 'RangeError':
      return new RangeError(serialized.message);
    default: {
      const error = new Error(serialized.message);
      error.name = serialized.name;
      if (serialized.code !== undefined) Object.assign(error, { code: serialized.code });
      return error;
    }
  }
}
