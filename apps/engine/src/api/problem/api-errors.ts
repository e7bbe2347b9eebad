// The closed set of errors the HTTP API answers with (STYLE.md habit 12): a stable code per
// kind, each with one status. Anything else that escapes a handler is a bug and answers
// `internal` (500) without details.
export const problemStatuses = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  too_many_requests: 429,
  headers_too_large: 431,
  unavailable: 503,
  set_aside: 503,
  internal: 500,
} as const;

export type ProblemCode = keyof typeof problemStatuses;

export const problemCodes = Object.keys(problemStatuses) as readonly ProblemCode[];

export const problemTitles: Readonly<Record<ProblemCode, string>> = {
  validation: 'The request is not valid',
  unauthorized: 'An API key is required',
  forbidden: 'This API key may not do that',
  not_found: 'Not found',
  request_timeout: 'The request did not arrive in time',
  conflict: 'Conflict with the current state',
  gone: 'The session was erased',
  payload_too_large: 'The request body is too large',
  too_many_requests: "This tenant's share is in use",
  headers_too_large: 'The request headers are too large',
  unavailable: 'The service is not available right now',
  set_aside: 'The read models have set this session aside',
  internal: 'Internal error',
};

/** One problem with one part of the input. */
export interface InputProblem {
  /** Where: `body.entries.0.id`, `query.limit`, `header.last-event-id`. */
  readonly path: string;
  readonly message: string;
}

/** An error the API answers with as it is: code, a human detail, and extension members. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly code: ProblemCode,
    message: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
    /** Extra response headers (`WWW-Authenticate`, `Retry-After`). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  get status(): number {
    return problemStatuses[this.code];
  }
}

export function invalidInput(message: string, errors: readonly InputProblem[] = []): ApiError {
  return new ApiError('validation', message, errors.length > 0 ? { errors } : {});
}

export function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, {}, { 'WWW-Authenticate': 'Bearer realm="strata"' });
}

export function forbidden(message: string): ApiError {
  return new ApiError('forbidden', message);
}

export function notFound(message: string): ApiError {
  return new ApiError('not_found', message);
}

export function payloadTooLarge(limitBytes: number): ApiError {
  return new ApiError(
    'payload_too_large',
    `the request body is larger than the limit of ${limitBytes} bytes`,
    { limitBytes },
    { Connection: 'close' },
  );
}

export function unavailable(message: string, retryAfterSeconds?: number): ApiError {
  return new ApiError(
    'unavailable',
    message,
    {},
    retryAfterSeconds !== undefined ? { 'Retry-After': String(retryAfterSeconds) } : {},
  );
}
