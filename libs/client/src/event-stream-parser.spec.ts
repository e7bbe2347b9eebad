// The server-sent-events parser of the client, fed in every way a network can split a stream.
import { StrataProtocolError } from './errors';
import { EventStreamParser, type EventFrame } from './event-stream-parser';
import { backoffMs, problemOf, retryAfterMs, urlOf } from './transport';

function parse(
  chunks: readonly string[],
  maxEventLength = 1_000,
): { frames: EventFrame[]; comments: string[]; retries: number[] } {
  const frames: EventFrame[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const parser = new EventStreamParser(
    {
      onEvent: (frame) => frames.push(frame),
      onComment: (text) => comments.push(text),
      onRetry: (milliseconds) => retries.push(milliseconds),
    },
    maxEventLength,
  );
  for (const chunk of chunks) parser.push(chunk);
  return { frames, comments, retries };
}

const stream =
  'retry: 2000\n\n: connected\n\nid: 7\nevent: session_start\ndata: {"a":1}\n\nid: 7.1\ndata: line one\ndata: line two\n\n';

describe('the event stream parser', () => {
  it('reads ids, names, multi-line data, comments and the retry delay', () => {
    expect(parse([stream])).toEqual({
      frames: [
        { id: '7', event: 'session_start', data: '{"a":1}' },
        { id: '7.1', event: undefined, data: 'line one\nline two' },
      ],
      comments: ['connected'],
      retries: [2000],
    });
  });

  it('gives the same frames however the stream is split, one character at a time included', () => {
    const whole = parse([stream]);
    expect(parse(stream.split(''))).toEqual(whole);
    for (let cut = 1; cut < stream.length; cut += 7) {
      expect(parse([stream.slice(0, cut), stream.slice(cut)])).toEqual(whole);
    }
  });

  it('takes CRLF and CR line ends, also a CRLF split between chunks', () => {
    const crlf = stream.replace(/\n/g, '\r\n');
    const cr = stream.replace(/\n/g, '\r');
    const whole = parse([stream]);
    expect(parse([crlf])).toEqual(whole);
    expect(parse([cr])).toEqual(whole);
    expect(parse(crlf.split(''))).toEqual(whole);
  });

  it('keeps a partial last event until its blank line arrives, and drops a frame without data', () => {
    expect(parse(['id: 1\ndata: x\n']).frames).toEqual([]);
    expect(parse(['id: 1\n\n', 'event: e\n\n']).frames).toEqual([]);
  });

  it('refuses a line or an event longer than its bound, even one never ended', () => {
    expect(() => parse(['data: ' + 'x'.repeat(2_000)])).toThrow(StrataProtocolError);
    expect(() => parse(Array.from({ length: 50 }, () => 'x'.repeat(100)))).toThrow(StrataProtocolError);
    expect(() => parse(Array.from({ length: 30 }, () => 'data: ' + 'y'.repeat(50) + '\n'))).toThrow(
      StrataProtocolError,
    );
    expect(parse(['data: ' + 'x'.repeat(900) + '\n\n']).frames).toHaveLength(1);
  });
});

describe('the transport helpers', () => {
  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
  });

  it('doubles the backoff, honours Retry-After, and never passes the bound', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffMs(1, policy, undefined)).toBeGreaterThanOrEqual(75);
    expect(backoffMs(1, policy, undefined)).toBeLessThanOrEqual(125);
    expect(backoffMs(3, policy, undefined)).toBeGreaterThanOrEqual(300);
    expect(backoffMs(1, policy, 800)).toBe(800);
    expect(backoffMs(1, policy, 60_000)).toBe(1_000);
    expect(backoffMs(40, policy, undefined)).toBe(1_000);
  });

  it('keeps a path prefix of the engine URL and refuses other protocols', () => {
    expect(urlOf('http://host:3000/strata/', '/sessions?x=1').href).toBe(
      'http://host:3000/strata/sessions?x=1',
    );
    expect(urlOf('https://host', '/events').href).toBe('https://host/events');
    expect(() => urlOf('ftp://host', '/')).toThrow(TypeError);
  });

  it('reads a problem document, and stands in for a body that is not one', () => {
    expect(
      problemOf(409, '{"status":409,"code":"conflict","detail":"moved","reason":"revision_conflict"}'),
    ).toEqual({
      status: 409,
      code: 'conflict',
      detail: 'moved',
      reason: 'revision_conflict',
    });
    expect(problemOf(502, '<html>bad gateway</html>')).toEqual({
      status: 502,
      code: 'http_502',
      detail: '<html>bad gateway</html>',
    });
  });
});
