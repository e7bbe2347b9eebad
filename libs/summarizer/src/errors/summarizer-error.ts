// The closed set of summariser failures (STYLE.md habit 12). Each failure has a stable `code`;
// its `kind` follows from the code and tells the retry loop what to do with it.

/**
 * - `retryable`: the same call may succeed later (rate limit, overload, 5xx, connection, timeout).
 * - `overflow`: the prompt does not fit the model's context; retrying the same model cannot help.
 * - `aborted`: the caller's signal aborted the call.
 * - `invalid_response`: the provider answered, but not with a usable summary.
 * - `fatal`: the request or the configuration is wrong (authentication, bad request).
 */
export type SummarizerErrorKind = 'retryable' | 'overflow' | 'aborted' | 'invalid_response' | 'fatal';

const kindOfCode = {
  rate_limited: 'retryable',
  overloaded: 'retryable',
  server_error: 'retryable',
  connection_failed: 'retryable',
  timed_out: 'retryable',
  context_overflow: 'overflow',
  aborted: 'aborted',
  truncated: 'invalid_response',
  empty_summary: 'invalid_response',
  missing_summary: 'invalid_response',
  malformed_response: 'invalid_response',
  refused: 'invalid_response',
  incomplete: 'invalid_response',
  authentication_failed: 'fatal',
  bad_request: 'fatal',
  not_found: 'fatal',
  no_candidate: 'fatal',
  unexpected: 'fatal',
} as const satisfies Record<string, SummarizerErrorKind>;

export type SummarizerErrorCode = keyof typeof kindOfCode;

export function kindOf(code: SummarizerErrorCode): SummarizerErrorKind {
  return kindOfCode[code];
}

export interface SummarizerErrorDetails {
  readonly code: SummarizerErrorCode;
  readonly message: string;
  /** The `name` of the summariser that failed. */
  readonly summarizer: string;
  /** The HTTP status, when the failure came from a response. */
  readonly status?: number;
  /** How long the server asked us to wait before retrying, in milliseconds. */
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
}

export class SummarizerError extends Error {
  readonly code: SummarizerErrorCode;
  readonly kind: SummarizerErrorKind;
  readonly summarizer: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(details: SummarizerErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'SummarizerError';
    this.code = details.code;
    this.kind = kindOf(details.code);
    this.summarizer = details.summarizer;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
  }
}

export function isSummarizerError(error: unknown): error is SummarizerError {
  return error instanceof SummarizerError;
}

export function abortedError(summarizer: string, cause?: unknown): SummarizerError {
  return new SummarizerError({ code: 'aborted', message: 'Summary cancelled', summarizer, cause });
}

interface ErrorLike {
  readonly name: string;
  readonly message: string;
  readonly code?: unknown;
  readonly cause?: unknown;
}

/** Duck-typed, because errors raised inside Node (fetch, fs) come from another realm under Jest. */
function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

export function timedOutError(summarizer: string, timeoutMs: number, cause?: unknown): SummarizerError {
  return new SummarizerError({
    code: 'timed_out',
    message: `Summary request timed out after ${timeoutMs} ms`,
    summarizer,
    cause,
  });
}

export function errorText(error: unknown): string {
  if (isErrorLike(error)) return error.message;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? 'unknown error');
}

/** The error's message followed by those of its causes and their codes. */
function fullText(error: ErrorLike): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isErrorLike(current); depth += 1) {
    parts.push(current.message);
    if (typeof current.code === 'string') parts.push(current.code);
    current = current.cause;
  }
  return parts.join(' ');
}

const connectionFailureText =
  /fetch failed|network|socket|ECONNREFUSED|ECONNRESET|ENOTFOUND|EPIPE|other side closed/i;

/**
 * Any error thrown while summarising, as a `SummarizerError`. Provider-specific errors are mapped by
 * the providers first; this handles what is left: aborts (`signal` aborted, or an AbortError),
 * network failures from `fetch`, JSON syntax errors, and everything else as `unexpected`.
 */
export function toSummarizerError(error: unknown, summarizer: string, signal?: AbortSignal): SummarizerError {
  if (error instanceof SummarizerError) return error;
  if (signal?.aborted === true) return abortedError(summarizer, error);
  const message = errorText(error);
  const named = isErrorLike(error) ? error.name : '';
  if (named === 'AbortError' || named === 'TimeoutError') {
    return new SummarizerError({
      code: 'timed_out',
      message: `Summary request timed out: ${message}`,
      summarizer,
      cause: error,
    });
  }
  if (named === 'SyntaxError') {
    return new SummarizerError({
      code: 'malformed_response',
      message: `Malformed response: ${message}`,
      summarizer,
      cause: error,
    });
  }
  if (isErrorLike(error) && connectionFailureText.test(fullText(error))) {
    return new SummarizerError({
      code: 'connection_failed',
      message: `Connection error: ${message}`,
      summarizer,
      cause: error,
    });
  }
  return new SummarizerError({ code: 'unexpected', message, summarizer, cause: error });
}
