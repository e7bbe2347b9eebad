import type { IncomingMessage } from 'node:http';
import { EARLY_ANSWER_DRAIN_BYTES, declaredBodyBytes, earlyAnswerHeaders } from './request-input';

const requestWith = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('the body a request declares before it is read', () => {
  it.each<[string, Record<string, string>, number]>([
    ['its Content-Length', { 'content-length': '1500' }, 1500],
    ['the limit for a longer Content-Length', { 'content-length': '9000' }, 4096],
    ['the limit for a body of unknown length (chunked)', { 'transfer-encoding': 'chunked' }, 4096],
    ['nothing without a body', {}, 0],
  ])('counts %s', (_what, headers, bytes) => {
    expect(declaredBodyBytes(requestWith(headers), 4096)).toBe(bytes);
  });

  it('keeps the connection of an early answer when Node may drop the body, and closes it otherwise', () => {
    const short = requestWith({ 'content-length': String(EARLY_ANSWER_DRAIN_BYTES) });
    expect(earlyAnswerHeaders(short)).toEqual({});
    expect(earlyAnswerHeaders(requestWith({}))).toEqual({});
    const long = requestWith({ 'content-length': String(EARLY_ANSWER_DRAIN_BYTES + 1) });
    expect(earlyAnswerHeaders(long)).toEqual({ Connection: 'close' });
    expect(earlyAnswerHeaders(requestWith({ 'transfer-encoding': 'chunked' }))).toEqual({
      Connection: 'close',
    });
  });
});
