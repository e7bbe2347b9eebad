import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EngineDrain } from './engine-drain';

class FakeResponse extends EventEmitter {
  statusCode = 200;
  headers: Record<string, string | number> = {};
  body = '';
  getHeader(name: string): string | number | undefined {
    return this.headers[name.toLowerCase()];
  }
  writeHead(status: number, headers: Record<string, string | number>): this {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers)) this.headers[name.toLowerCase()] = value;
    return this;
  }
  end(body = ''): this {
    this.body = body;
    this.emit('finish');
    return this;
  }
}

function request(url: string): IncomingMessage {
  return { url, resume: () => undefined } as unknown as IncomingMessage;
}

function pass(drain: EngineDrain, url: string): { response: FakeResponse; passed: boolean } {
  const response = new FakeResponse();
  let passed = false;
  drain.middleware()(request(url), response as unknown as ServerResponse, () => (passed = true));
  return { response, passed };
}

describe('the drain of a stopping engine', () => {
  it('lets every request through until the stop begins, then only the probes', () => {
    const drain = new EngineDrain();
    expect(pass(drain, '/sessions').passed).toBe(true);
    drain.begin();
    const refused = pass(drain, '/sessions/s-1/entries?x=1');
    expect(refused.passed).toBe(false);
    expect(refused.response.statusCode).toBe(503);
    expect(refused.response.headers).toMatchObject({ 'retry-after': '5', connection: 'close' });
    expect(JSON.parse(refused.response.body)).toMatchObject({ status: 503, code: 'unavailable' });
    expect(pass(drain, '/health').passed).toBe(true);
    expect(pass(drain, '/ready?verbose=1').passed).toBe(true);
  });

  it('is idle once the requests in progress have finished, event streams aside', async () => {
    const drain = new EngineDrain();
    const slow = pass(drain, '/sessions/s-1/compact').response;
    const stream = pass(drain, '/events').response;
    stream.headers['content-type'] = 'text/event-stream';
    drain.begin();
    expect(drain.requestsInProgress).toBe(1);
    let idle: boolean | undefined;
    const waiting = drain.whenIdle(60_000).then((value) => (idle = value));
    await Promise.resolve();
    expect(idle).toBeUndefined();
    slow.end('{}');
    await waiting;
    expect(idle).toBe(true);
  });

  it('says so when the requests in progress outlast the wait', async () => {
    const drain = new EngineDrain();
    pass(drain, '/sessions/s-1/compact');
    drain.begin();
    expect(await drain.whenIdle(1)).toBe(false);
  });
});
