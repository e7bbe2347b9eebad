import { httpFailureError } from './http-failure';

const now = 1_700_000_000_000;

function classify(status: number, message: string, headers?: Record<string, string>) {
  return httpFailureError({
    summarizer: 'test',
    status,
    message,
    now,
    ...(headers === undefined ? {} : { headers: new Headers(headers) }),
  });
}

describe('a failed HTTP exchange', () => {
  it.each([
    [429, 'too many requests', 'rate_limited', 'retryable'],
    [529, 'Overloaded', 'overloaded', 'retryable'],
    [503, 'service unavailable', 'server_error', 'retryable'],
    [500, 'oops', 'server_error', 'retryable'],
    [504, 'gateway timeout', 'timed_out', 'retryable'],
    [400, 'prompt is too long: 250000 tokens', 'context_overflow', 'overflow'],
    [413, 'payload too large', 'context_overflow', 'overflow'],
    [
      400,
      'input length and `max_tokens` exceed context limit: 197733 + 21333 > 200000, decrease input length or `max_tokens` and try again',
      'context_overflow',
      'overflow',
    ],
    [
      413,
      'Request too large for model `llama-3.1-8b-instant` in organization `org_01` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 6294, please reduce your message size and try again.',
      'rate_limited',
      'retryable',
    ],
    [401, 'invalid api key', 'authentication_failed', 'fatal'],
    [403, 'forbidden', 'authentication_failed', 'fatal'],
    [404, 'no such model', 'not_found', 'fatal'],
    [400, 'messages: field required', 'bad_request', 'fatal'],
    [418, 'usage limit reached', 'rate_limited', 'retryable'],
  ])('status %i with %j is %s (%s)', (status, message, code, kind) => {
    const error = classify(status, message);
    expect(error.code).toBe(code);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
  });

  it('carries the retry-after header as milliseconds', () => {
    expect(classify(429, 'slow down', { 'retry-after': '5' }).retryAfterMs).toBe(5000);
  });

  it('falls back to a retry hint in the message', () => {
    expect(classify(429, 'Rate limit reached. Please try again in 2s.').retryAfterMs).toBe(2000);
  });

  it('treats an otherwise unknown client error with a retry hint as retryable', () => {
    expect(classify(409, 'busy', { 'retry-after-ms': '10' }).kind).toBe('retryable');
  });
});
