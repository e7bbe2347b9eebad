import { retryAfterFromHeaders, retryAfterFromText } from './retry-after';

const now = Date.parse('2026-03-01T12:00:00Z');

function headers(values: Record<string, string>): Headers {
  return new Headers(values);
}

describe('retry hints in response headers', () => {
  it('reads retry-after-ms as milliseconds', () => {
    expect(retryAfterFromHeaders(headers({ 'retry-after-ms': '1500' }), now)).toBe(1500);
  });

  it('reads retry-after as seconds', () => {
    expect(retryAfterFromHeaders(headers({ 'retry-after': '7' }), now)).toBe(7000);
  });

  it('reads retry-after as an HTTP date relative to the injected clock', () => {
    const date = new Date(now + 12_000).toUTCString();
    expect(retryAfterFromHeaders(headers({ 'retry-after': date }), now)).toBe(12_000);
  });

  it('never returns a negative wait for a date in the past', () => {
    const date = new Date(now - 60_000).toUTCString();
    expect(retryAfterFromHeaders(headers({ 'retry-after': date }), now)).toBe(0);
  });

  it('reads x-ratelimit-reset-ms as milliseconds', () => {
    expect(retryAfterFromHeaders(headers({ 'x-ratelimit-reset-ms': '250' }), now)).toBe(250);
  });

  it('reads x-ratelimit-reset as seconds, epoch seconds or epoch milliseconds', () => {
    expect(retryAfterFromHeaders(headers({ 'x-ratelimit-reset': '3' }), now)).toBe(3000);
    expect(retryAfterFromHeaders(headers({ 'x-ratelimit-reset': String((now + 9000) / 1000) }), now)).toBe(
      9000,
    );
    expect(retryAfterFromHeaders(headers({ 'x-ratelimit-reset': String(now + 4000) }), now)).toBe(4000);
  });

  it('prefers retry-after-ms over the other headers', () => {
    const both = headers({ 'retry-after-ms': '100', 'retry-after': '60', 'x-ratelimit-reset': '30' });
    expect(retryAfterFromHeaders(both, now)).toBe(100);
  });

  it('skips an unreadable value and uses the next header', () => {
    expect(retryAfterFromHeaders(headers({ 'retry-after': 'soon', 'x-ratelimit-reset-ms': '80' }), now)).toBe(
      80,
    );
  });

  it('returns undefined without any hint', () => {
    expect(retryAfterFromHeaders(headers({ 'content-type': 'application/json' }), now)).toBeUndefined();
    expect(retryAfterFromHeaders(undefined, now)).toBeUndefined();
  });
});

describe('retry hints in error text', () => {
  it.each([
    ['429 rate limited; retry-after-ms: 900', 900],
    ['{"error":{"retry_after": 4}}', 4000],
    ['Rate limit reached. Please try again in 1.5s.', 1500],
    ['Please retry in 250ms', 250],
    ['"retryDelay": "34s"', 34_000],
    ['x-ratelimit-reset: 2', 2000],
  ])('reads %j', (text, expected) => {
    expect(retryAfterFromText(text, now)).toBe(expected);
  });

  it('returns undefined for text without a hint', () => {
    expect(retryAfterFromText('500 internal server error', now)).toBeUndefined();
  });
});
