import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  EARLY_ANSWER_DRAIN_BYTES,
  declaredBodyBytes,
  earlyAnswerHeaders,
  readJsonBody,
  readJsonLinesBody,
  readRequestBytes,
} from './request-input';
import { LARGE_STEP_LENGTH, eventLoopSlice } from '@strata/event-store';
import { z } from 'zod';

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

describe('reading a body off a real connection', () => {
  let server: Server;
  let read: (request: IncomingMessage) => Promise<Buffer>;
  let url: URL;

  beforeAll(async () => {
    server = createServer((request, response) => {
      read(request).then(
        (bytes) => {
          const shared = bytes.buffer instanceof SharedArrayBuffer;
          response.end(JSON.stringify({ text: bytes.toString('utf8'), shared }));
        },
        (error: Error) => {
          response.statusCode = 400;
          response.end(JSON.stringify({ error: error.message }));
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends `parts` one write at a time, with a Content-Length unless `chunked`. */
  function send(
    parts: readonly string[],
    chunked = false,
    contentType = 'application/x-ndjson',
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const length = parts.reduce((total, part) => total + Buffer.byteLength(part), 0);
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        {
          method: 'POST',
          headers: chunked
            ? { 'transfer-encoding': 'chunked', 'content-type': contentType }
            : { 'content-length': String(length), 'content-type': contentType },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
            }),
          );
        },
      );
      outgoing.on('error', reject);
      for (const part of parts) outgoing.write(part);
      outgoing.end();
    });
  }

  const parts = ['{"type":"session","id":"é"}\n', 'x'.repeat(70_000), '\n{"last":true}\n'];

  it('gathers a session file of declared length in a SharedArrayBuffer, byte for byte', async () => {
    read = (request) => readJsonLinesBody(request, 1_000_000);
    expect(await send(parts)).toEqual({ status: 200, body: { text: parts.join(''), shared: true } });
  });

  it('gathers a JSON body of declared length, and a body of unknown length, in ordinary buffers', async () => {
    read = (request) => readRequestBytes(request, 1_000_000);
    expect(await send(parts)).toEqual({ status: 200, body: { text: parts.join(''), shared: false } });
    read = (request) => readJsonLinesBody(request, 1_000_000);
    expect(await send(parts, true)).toEqual({ status: 200, body: { text: parts.join(''), shared: false } });
  });

  it('gives the event loop its turn once a large JSON body is parsed, and not after a small one', async () => {
    const schema = z.object({ text: z.string() });
    let yields = 0;
    read = async (request) => {
      const before = eventLoopSlice.yields;
      const body = await readJsonBody(request, schema, 4 * LARGE_STEP_LENGTH);
      yields = eventLoopSlice.yields - before;
      return Buffer.from(String(body.text.length));
    };
    const small = JSON.stringify({ text: 'short' });
    expect((await send([small], false, 'application/json')).status).toBe(200);
    expect(yields).toBe(0);
    const large = JSON.stringify({ text: 'b'.repeat(LARGE_STEP_LENGTH) });
    expect(await send([large], false, 'application/json')).toEqual({
      status: 200,
      body: { text: String(LARGE_STEP_LENGTH), shared: false },
    });
    expect(yields).toBe(1);
  });

  it('still refuses a body over its limit, declared or not', async () => {
    read = (request) => readRequestBytes(request, 50_000, { shared: true });
    expect((await send(parts)).status).toBe(400);
    expect((await send(parts, true)).status).toBe(400);
  });
});
