// Classifies a failed HTTP exchange with a model server into a `SummarizerError`: by status first,
// then by the error text (overflow phrasings, and the reference's retryable wording for servers
// that report rate limits or overload with an unusual status).
import { isContextOverflowText, isRateLimitText } from './context-overflow';
import { type HeaderLookup, retryAfterFromHeaders, retryAfterFromText } from './retry-after';
import { type SummarizerErrorCode, SummarizerError } from './summarizer-error';

/** Wording that marks a failure as temporary (reference §5.5). */
const retryableWording =
  /overloaded|rate.?limit|usage.?limit|too many requests|service.?unavailable|server error|internal error|connection.?error|fetch failed|retry delay/i;

/** `value` as a header lookup when it has a `get` method (SDK errors type their headers loosely). */
export function headerLookupOf(value: unknown): HeaderLookup | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return typeof (value as { get?: unknown }).get === 'function' ? (value as HeaderLookup) : undefined;
}

export interface HttpFailure {
  readonly summarizer: string;
  readonly status: number;
  /** The error's message, as shown to people. */
  readonly message: string;
  /** Further text to inspect (for instance the raw error body); it is not shown. */
  readonly detail?: string;
  readonly headers?: HeaderLookup | undefined;
  /** Current time, epoch milliseconds (for HTTP-date and epoch retry hints). */
  readonly now: number;
  readonly cause?: unknown;
}

function codeFor(status: number, text: string, hasRetryHint: boolean): SummarizerErrorCode {
  // Groq answers a request above its tokens-per-minute limit with 413 (`rate_limit_exceeded`).
  if (status === 429 || (status === 413 && isRateLimitText(text))) return 'rate_limited';
  if (status === 413 || isContextOverflowText(text)) return 'context_overflow';
  if (status === 529 || /overloaded/i.test(text)) return 'overloaded';
  if (status === 408 || status === 504) return 'timed_out';
  if (status >= 500) return 'server_error';
  if (status === 401 || status === 403) return 'authentication_failed';
  if (status === 404) return 'not_found';
  if (hasRetryHint || retryableWording.test(text)) return 'rate_limited';
  return 'bad_request';
}

/** The typed error for a non-2xx response. */
export function httpFailureError(failure: HttpFailure): SummarizerError {
  const text = failure.detail === undefined ? failure.message : `${failure.message}\n${failure.detail}`;
  const retryAfterMs =
    retryAfterFromHeaders(failure.headers, failure.now) ?? retryAfterFromText(text, failure.now);
  return new SummarizerError({
    code: codeFor(failure.status, text, retryAfterMs !== undefined),
    message: failure.message,
    summarizer: failure.summarizer,
    status: failure.status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    cause: failure.cause,
  });
}
