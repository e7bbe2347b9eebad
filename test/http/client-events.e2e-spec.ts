// End to end over real HTTP: the event stream of @strata/client. It yields every event once
// across engine restarts (resuming with Last-Event-ID), filters by name and session, ends with a
// typed error on refusals, and keeps within its bounds against a hostile server.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  StrataApiError,
  StrataClient,
  StrataProtocolError,
  type ReconnectInfo,
  type StrataEvent,
} from '@strata/client';
import { session } from '@strata/testing';
import { ALPHA_KEY, TWO_TENANT_KEYS, startHttpEngine, type HttpHarness } from './http-harness';

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Collects a subscription's events in the background. */
function collect(iterable: AsyncIterable<StrataEvent>): { events: StrataEvent[]; done: Promise<unknown> } {
  const events: StrataEvent[] = [];
  const done = (async () => {
    for await (const event of iterable) events.push(event);
  })().then(
    () => undefined,
    (error: unknown) => error,
  );
  return { events, done };
}

function entryIdOf(event: StrataEvent): string {
  return (event.data['entry'] as { id: string }).id;
}

describe('given a subscription and an engine that restarts twice', () => {
  it('yields every appended entry once, in order, across the restarts', async () => {
    let engine = await startHttpEngine();
    const { directory, port, url } = engine;
    const client = new StrataClient({ url, retry: { attempts: 5, baseDelayMs: 20 } });
    const reconnects: ReconnectInfo[] = [];
    const stream = client.events({
      types: ['entry_appended'],
      from: 'start',
      reconnectDelayMs: 20,
      onReconnect: (info) => reconnects.push(info),
    });
    const received = collect(stream);
    const builder = session({ sessionId: 'events-restart' }).editTurns(6);
    const batches = [builder.entries.slice(0, 8), builder.entries.slice(8, 16), builder.entries.slice(16)];
    try {
      await client.startSession({ sessionId: 'events-restart', cwd: '/work' });
      for (const [index, batch] of batches.entries()) {
        await client.append('events-restart', batch, { idempotencyKey: `batch-${index}` });
        const seen = batches.slice(0, index + 1).flat().length;
        await until(() => received.events.length >= seen, `${seen} events`);
        if (index < batches.length - 1) {
          await engine.close({ keepDirectory: true });
          engine = await startHttpEngine({ directory, port });
        }
      }
      expect(received.events.map(entryIdOf)).toEqual(builder.entries.map((entry) => entry.id));
      expect(new Set(received.events.map((event) => event.id)).size).toBe(builder.entries.length);
      expect(stream.lastEventId).toBe(received.events.at(-1)?.id);
      expect(reconnects.length).toBeGreaterThanOrEqual(2);
      expect(reconnects.some((info) => info.lastEventId !== undefined)).toBe(true);
    } finally {
      stream.close();
      expect(await received.done).toBeUndefined();
      await engine.close();
    }
  });
});

describe('given an engine with API keys', () => {
  let engine: HttpHarness;
  let client: StrataClient;

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: TWO_TENANT_KEYS } });
    client = new StrataClient({ url: engine.url, apiKey: ALPHA_KEY });
  });

  afterAll(() => engine.close());

  it('filters by session and resumes after a given id; breaking out of the loop closes it', async () => {
    for (const id of ['events-a', 'events-b']) {
      const builder = session({ sessionId: id }).editTurns(1);
      await client.startSession({ sessionId: id, cwd: '/work' });
      await client.append(id, builder.entries);
    }
    const comments: string[] = [];
    const names: string[] = [];
    let firstId: string | undefined;
    for await (const event of client.events({
      session: 'events-b',
      from: 'start',
      onComment: (text) => comments.push(text),
    })) {
      expect(event.sessionId).toBe('events-b');
      names.push(event.name);
      firstId ??= event.id;
      if (names.length === 3) break;
    }
    expect(names).toEqual(['session_start', 'entry_appended', 'entry_appended']);
    expect(comments).toContain('connected');

    const resumed: StrataEvent[] = [];
    for await (const event of client.events({ session: 'events-b', lastEventId: firstId })) {
      resumed.push(event);
      if (resumed.length === 2) break;
    }
    expect(resumed.map((event) => event.name)).toEqual(['entry_appended', 'entry_appended']);
    expect(resumed[0]?.id).not.toBe(firstId);
  });

  it('ends with StrataApiError on a refusal that retrying cannot fix', async () => {
    const wrong = new StrataClient({ url: engine.url, apiKey: 'wrong-key-0123456789' });
    const refused = collect(wrong.events());
    expect(await refused.done).toMatchObject({ status: 401, code: 'unauthorized' });
    const unknown = collect(client.events({ types: 'compaction_done' }));
    const error = await unknown.done;
    expect(error).toBeInstanceOf(StrataApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation' });
    expect(() => client.events({ lastEventId: 'not-an-id' })).toThrow(TypeError);
  });
});

interface FakeConnection {
  readonly headers: IncomingHttpHeaders;
  readonly response: ServerResponse;
}

/** A server that hands each GET /events connection to the test. */
async function fakeStreamServer(
  onConnection: (connection: FakeConnection, index: number) => void,
): Promise<{ url: string; connections: FakeConnection[]; close: () => void }> {
  const connections: FakeConnection[] = [];
  const server = createServer((request, response) => {
    const connection = { headers: request.headers, response };
    connections.push(connection);
    onConnection(connection, connections.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function frame(id: string, name = 'entry_appended'): string {
  const data = { id, name, position: id, index: 0, sessionId: 's', revision: '0', eventId: 'e', data: {} };
  return `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

describe('given a server that drops the stream', () => {
  it("reconnects with Last-Event-ID of the last event yielded, after the server's retry delay, and honours Retry-After", async () => {
    const server = await fakeStreamServer(({ response }, index) => {
      if (index === 1) {
        response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        response.end(JSON.stringify({ status: 503, code: 'unavailable', detail: 'busy' }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (index === 0) response.end(`retry: 10\n\n${frame('5')}${frame('6')}\r\n: partial`);
      else response.write(`${frame('7')}${frame('7.1')}`);
    });
    const reconnects: ReconnectInfo[] = [];
    const stream = new StrataClient({ url: server.url }).events({
      onReconnect: (info) => reconnects.push(info),
    });
    const received = collect(stream);
    try {
      await until(() => received.events.length === 4, 'four events');
      expect(received.events.map((event) => event.id)).toEqual(['5', '6', '7', '7.1']);
      expect(server.connections.map((connection) => connection.headers['last-event-id'])).toEqual([
        undefined,
        '6',
        '6',
      ]);
      expect(reconnects.map((info) => [info.attempt, info.delayMs, info.error?.name])).toEqual([
        [1, 10, undefined],
        [2, 1000, 'StrataApiError'],
      ]);
    } finally {
      stream.close();
      await received.done;
      server.close();
    }
  });

  it('reconnects when nothing arrives for the idle timeout', async () => {
    const server = await fakeStreamServer(({ response }, index) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(frame(String(index + 1)));
    });
    const stream = new StrataClient({ url: server.url }).events({ idleTimeoutMs: 100, reconnectDelayMs: 10 });
    const received = collect(stream);
    try {
      await until(() => received.events.length === 3, 'three events');
      expect(server.connections[2]?.headers['last-event-id']).toBe('2');
    } finally {
      stream.close();
      await received.done;
      server.close();
    }
  });
});

describe('given a hostile server', () => {
  it('refuses a line longer than maxEventLength without holding it, and data that is not an event', async () => {
    const endless = await fakeStreamServer(({ response }) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = 'x'.repeat(64 * 1024);
      const pump = (): void => {
        while (response.write(`data: ${chunk}`));
        response.once('drain', pump);
      };
      pump();
    });
    const notJson = await fakeStreamServer(({ response }) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end('id: 1\ndata: {not json\n\n');
    });
    const html = await fakeStreamServer(({ response }) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html></html>');
    });
    try {
      const long = collect(new StrataClient({ url: endless.url }).events({ maxEventLength: 1024 * 1024 }));
      expect(await long.done).toBeInstanceOf(StrataProtocolError);
      expect(await collect(new StrataClient({ url: notJson.url }).events()).done).toBeInstanceOf(
        StrataProtocolError,
      );
      expect(await collect(new StrataClient({ url: html.url }).events()).done).toBeInstanceOf(
        StrataProtocolError,
      );
    } finally {
      endless.close();
      notJson.close();
      html.close();
    }
  });
});
