// The errors of the client: the engine's refusal (its problem+json document, RFC 9457), a request
// that met no engine (network) or took too long (timeout), and an event stream that broke the
// protocol or its bounds. Each carries what a caller needs to decide, without parsing messages.

/** The problem document the engine answers an error with (`application/problem+json`). */
export interface ProblemDocument {
  readonly type?: string;
  readonly title?: string;
  readonly status: number;
  readonly detail: string;
  /** The stable code: validation, unauthorized, forbidden, not_found, conflict, payload_too_large… */
  readonly code: string;
  /** The finer reason some problems carry (`idempotency_mismatch`, `revision_conflict`, …). */
  readonly reason?: string;
  /** `leaf_conflict`: the leaf the session holds now (null when it is empty). */
  readonly currentLeafId?: string | null;
  /** `leaf_conflict`: the revision of the session's last event, read with `currentLeafId`. */
  readonly currentRevision?: string | null;
  /** `tool_result_unpaired`: the call id the refused tool result names. */
  readonly toolCallId?: string;
  /** `lease_held`: who holds the session's writer lease. */
  readonly holder?: string;
  /** `lease_held`: when that lease expires unless renewed (ISO 8601). */
  readonly expiresAt?: string;
  readonly [extension: string]: unknown;
}

/** Base class of every error this client throws. */
export class StrataClientError extends Error {
  override readonly name: string = 'StrataClientError';
}

/** The engine answered with an error status. */
export class StrataApiError extends StrataClientError {
  override readonly name = 'StrataApiError';
  /** The problem code (`code` of the document; `http_<status>` when the body was not one). */
  readonly code: string;
  readonly reason: string | undefined;
  readonly detail: string;
  /** `leaf_conflict`: the leaf the session holds now; undefined for other problems. */
  readonly currentLeafId: string | null | undefined;
  /** `leaf_conflict`: the revision read with that leaf; undefined for other problems. */
  readonly currentRevision: string | null | undefined;
  /** `tool_result_unpaired`: the call id of the refused result. */
  readonly toolCallId: string | undefined;
  /** `lease_held`: who holds the lease, and until when (ISO 8601). */
  readonly holder: string | undefined;
  readonly expiresAt: string | undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    /** The problem document as the engine sent it (a stand-in when the body was not one). */
    readonly problem: ProblemDocument,
    /** The delay the engine asked for in `Retry-After`, in milliseconds. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`${method} ${path} answered ${status} ${problem.code}: ${problem.detail}`);
    this.code = problem.code;
    this.reason = problem.reason;
    this.detail = problem.detail;
    this.currentLeafId = problem.currentLeafId;
    this.currentRevision = problem.currentRevision;
    this.toolCallId = problem.toolCallId;
    this.holder = problem.holder;
    this.expiresAt = problem.expiresAt;
  }
}

/** The request reached no engine, or its connection broke before the answer was read. */
export class StrataNetworkError extends StrataClientError {
  override readonly name = 'StrataNetworkError';

  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path} failed: ${causeText(cause)}`);
  }
}

/** The request did not complete within its time limit. */
export class StrataTimeoutError extends StrataClientError {
  override readonly name = 'StrataTimeoutError';

  constructor(
    readonly method: string,
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} ${path} did not complete within ${timeoutMs} ms`);
  }
}

/** An answer or event the client will not take: over its size bounds, or not what the API sends. */
export class StrataProtocolError extends StrataClientError {
  override readonly name = 'StrataProtocolError';
}

/** The most telling text of a fetch failure (undici puts the socket error in `cause`). */
export function causeText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof AggregateError && cause.errors.length > 0)
      return cause.errors.map(causeText).join('; ');
    if (cause instanceof Error && cause.message !== '') return cause.message;
    return error.message;
  }
  return String(error);
}
