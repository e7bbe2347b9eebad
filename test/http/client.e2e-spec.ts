// End to end over real HTTP: @strata/client against a listening engine. Every method answers what
// the endpoint answers; refusals come as typed errors carrying the problem document; writes that
// may be sent twice are retried after a lost answer, others are not; the event stream resumes
// after the engine drops it, with nothing lost or doubled.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StrataApiError, StrataClient, StrataNetworkError, StrataTimeoutError } from '@strata/client';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { ALPHA_KEY, BETA_KEY, TWO_TENANT_KEYS, startHttpEngine, type HttpHarness } from './http-harness';

const settings = { compaction: { keepRecentTokens: 250 } };

describe('given a client of an engine', () => {
  let engine: HttpHarness;
  let client: StrataClient;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
    client = new StrataClient({ url: engine.url });
  });

  afterAll(() => engine.close());

  it('starts a session, appends entries once per idempotency key, and reads it back', async () => {
    const builder = session({ sessionId: 'client-basic' }).editTurns(4);
    const started = await client.startSession({ sessionId: 'client-basic', cwd: '/work/project' });
    expect(started).toMatchObject({ sessionId: 'client-basic', alreadyStarted: false });
    expect(started.header).toMatchObject({ type: 'session', id: 'client-basic', cwd: '/work/project' });
    const again = await client.startSession({ sessionId: 'client-basic', cwd: '/work/project' });
    expect(again.alreadyStarted).toBe(true);

    const appended = await client.append('client-basic', builder.entries, {
      expectedLeafId: null,
      idempotencyKey: 'batch-1',
    });
    expect(appended).toMatchObject({
      sessionId: 'client-basic',
      leafId: builder.leafId,
      alreadyAppended: false,
      compaction: null,
    });
    expect(appended.entryIds).toEqual(builder.entries.map((entry) => entry.id));
    const repeated = await client.append('client-basic', builder.entries, { idempotencyKey: 'batch-1' });
    expect(repeated).toMatchObject({ alreadyAppended: true, revision: appended.revision });

    const detail = await client.getSession('client-basic');
    expect(detail).toMatchObject({ sessionId: 'client-basic', entryCount: 16, leafId: builder.leafId });
    const list = await client.listSessions({ text: 'work/project', limit: 10 });
    expect(list.items.map((item) => item.sessionId)).toContain('client-basic');

    const context = await client.context('client-basic', { format: 'llm' });
    expect(context).toMatchObject({ sessionId: 'client-basic', format: 'llm', leafId: builder.leafId });
    expect(context.messages.length).toBeGreaterThan(0);
    const tree = await client.tree('client-basic');
    expect(tree.nodes).toHaveLength(16);
    const page = await client.entries('client-basic', { offset: 2, limit: 3 });
    expect(page).toMatchObject({ total: 16, offset: 2, limit: 3 });
    expect(page.items.map((entry) => entry.id)).toEqual(builder.entries.slice(2, 5).map((entry) => entry.id));
  });

  it('compacts, navigates, aborts, labels, exports, verifies and lists attempts', async () => {
    const builder = session({ sessionId: 'client-commands' }).editTurns(4);
    await engine.seed(builder.header, builder.entries);

    const compacted = await client.compact('client-commands', { attemptId: 'attempt-1' });
    expect(compacted).toMatchObject({ outcome: 'completed', attemptId: 'attempt-1', redelivered: false });
    const redelivered = await client.compact('client-commands', { attemptId: 'attempt-1' });
    expect(redelivered).toMatchObject({ outcome: 'completed', redelivered: true });

    const target = builder.entries[3]!.id;
    const navigated = await client.navigate('client-commands', target);
    expect(navigated).toMatchObject({ outcome: 'navigated', targetId: target, leafId: target });
    expect(await client.abort('client-commands')).toEqual({
      sessionId: 'client-commands',
      abortedAttemptIds: [],
    });
    const labelled = await client.setLabel('client-commands', target, 'checkpoint', { idempotencyKey: 'l1' });
    expect(labelled).toMatchObject({ alreadySet: false, entry: { type: 'label', targetId: target } });
    expect((await client.getSession('client-commands')).labels).toEqual({ [target]: 'checkpoint' });

    const exported = await client.exportSession('client-commands');
    expect(JSON.parse(exported.split('\n')[0]!)).toMatchObject({ type: 'session', id: 'client-commands' });
    const verified = await client.verify('client-commands');
    expect(verified).toMatchObject({ sessionId: 'client-commands', ok: true, brokenAt: null });
    expect((await client.verifyAll()).ok).toBe(true);

    const attempts = await client.attempts('client-commands');
    expect(attempts.items).toEqual([
      expect.objectContaining({ attemptId: 'attempt-1', kind: 'compaction', outcome: 'completed' }),
    ]);
    const all = await client.attempts(undefined, { kind: 'compaction', order: 'oldest_first' });
    expect(all.items.map((item) => item.attemptId)).toContain('attempt-1');
  });

  it('imports a pi file as JSON Lines, and the same file again is unchanged', async () => {
    const builder = session({ sessionId: 'client-imported' }).editTurns(2);
    const file = serializeSessionFile(builder.header, builder.entries);
    expect(await client.importSession(file)).toMatchObject({
      sessionId: 'client-imported',
      outcome: 'imported',
      entryCount: 8,
    });
    expect(await client.importSession(new TextEncoder().encode(file))).toMatchObject({
      outcome: 'unchanged',
      eventsWritten: 0,
    });
    expect(await client.exportSession('client-imported')).toBe(await client.exportSession('client-imported'));
  });

  it('throws StrataApiError with the problem document of a refusal', async () => {
    const missing = await client.getSession('client-nobody').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(StrataApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', detail: 'session not found' });
    expect((missing as StrataApiError).problem).toMatchObject({ status: 404, code: 'not_found' });

    const builder = session({ sessionId: 'client-conflict' }).editTurns(1);
    await client.startSession({ sessionId: 'client-conflict', cwd: '/work' });
    await client.append('client-conflict', builder.entries, { idempotencyKey: 'k' });
    const mismatch = await client
      .append('client-conflict', builder.entries.slice(1), { idempotencyKey: 'k' })
      .catch((error: unknown) => error);
    expect(mismatch).toMatchObject({ status: 409, code: 'conflict', reason: 'idempotency_mismatch' });
    const invalid = await client.entries('client-conflict', { limit: 0 }).then(
      () => undefined,
      (error: unknown) => error as StrataApiError,
    );
    expect(invalid).toMatchObject({ status: 400, code: 'validation' });
    expect(invalid?.problem['errors']).toEqual([expect.objectContaining({ path: 'query.limit' })]);
  });

  it('throws StrataNetworkError when no engine listens, and StrataTimeoutError past the time limit', async () => {
    const nowhere = new StrataClient({ url: 'http://127.0.0.1:9', retry: { attempts: 2, baseDelayMs: 1 } });
    await expect(nowhere.listSessions()).rejects.toBeInstanceOf(StrataNetworkError);
    const silent = await silentServer();
    try {
      const stalled = new StrataClient({ url: silent.url, timeoutMs: 150, retry: { attempts: 1 } });
      await expect(stalled.tree('any')).rejects.toBeInstanceOf(StrataTimeoutError);
    } finally {
      silent.close();
    }
  });
});

describe('given an engine with API keys', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings, environment: { STRATA_API_KEYS: TWO_TENANT_KEYS } });
  });

  afterAll(() => engine.close());

  it('sends the key as a bearer token, and a wrong key is a typed 401', async () => {
    const alpha = new StrataClient({ url: engine.url, apiKey: ALPHA_KEY, actor: 'user-7' });
    const beta = new StrataClient({ url: engine.url, apiKey: BETA_KEY });
    await alpha.startSession({ sessionId: 'keys-alpha', cwd: '/alpha' });
    expect((await alpha.listSessions()).items.map((item) => item.sessionId)).toEqual(['keys-alpha']);
    expect((await beta.listSessions()).items).toEqual([]);
    await expect(beta.getSession('keys-alpha')).rejects.toMatchObject({ status: 404 });
    const wrong = new StrataClient({ url: engine.url, apiKey: 'wrong-key-0123456789' });
    await expect(wrong.listSessions()).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
      detail: 'the API key is not valid',
    });
  });
});

/** A server that takes requests and never answers. */
async function silentServer(): Promise<{ url: string; close: () => void }> {
  const server: Server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * A proxy in front of the engine that, for the first `lose` POSTs, forwards the request and then
 * cuts the connection instead of answering: the write happened, its answer is lost.
 */
async function losingProxy(
  target: string,
  lose: number,
): Promise<{ url: string; posts: () => number; close: () => void }> {
  let posts = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const isPost = request.method === 'POST';
      if (isPost) posts += 1;
      const losing = isPost && posts <= lose;
      void fetch(`${target}${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers: { 'content-type': String(request.headers['content-type'] ?? 'application/json') },
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      }).then(async (answer) => {
        const text = await answer.text();
        if (losing) {
          request.socket.destroy();
          return;
        }
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
        response.end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts: () => posts,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('given answers lost on the way back', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
  });

  afterAll(() => engine.close());

  it('resends an append with an idempotency key, which the engine writes once', async () => {
    const builder = session({ sessionId: 'client-lost' }).editTurns(1);
    await new StrataClient({ url: engine.url }).startSession({ sessionId: 'client-lost', cwd: '/work' });
    const proxy = await losingProxy(engine.url, 1);
    try {
      const client = new StrataClient({ url: proxy.url, retry: { attempts: 3, baseDelayMs: 10 } });
      const appended = await client.append('client-lost', builder.entries, { idempotencyKey: 'lost-1' });
      expect(appended).toMatchObject({ alreadyAppended: true, leafId: builder.leafId });
      expect(proxy.posts()).toBe(2);
      const tree = await new StrataClient({ url: engine.url }).tree('client-lost');
      expect(tree.nodes).toHaveLength(builder.entries.length);
    } finally {
      proxy.close();
    }
  });

  it('does not resend an append without a key: the caller learns the answer was lost', async () => {
    const builder = session({ sessionId: 'client-lost-nokey' }).editTurns(1);
    await new StrataClient({ url: engine.url }).startSession({
      sessionId: 'client-lost-nokey',
      cwd: '/work',
    });
    const proxy = await losingProxy(engine.url, 1);
    try {
      const client = new StrataClient({ url: proxy.url, retry: { attempts: 3, baseDelayMs: 10 } });
      await expect(client.append('client-lost-nokey', builder.entries)).rejects.toBeInstanceOf(
        StrataNetworkError,
      );
      expect(proxy.posts()).toBe(1);
    } finally {
      proxy.close();
    }
  });

  it('waits as long as Retry-After asks (bounded) before trying a read again', async () => {
    let requests = 0;
    const busy: Server = createServer((_request, response) => {
      requests += 1;
      if (requests === 1) {
        response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        response.end(JSON.stringify({ status: 503, code: 'unavailable', detail: 'starting' }));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ items: [], total: 0, nextCursor: null }));
      }
    });
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = busy.address() as AddressInfo;
      const client = new StrataClient({ url: `http://127.0.0.1:${port}`, retry: { baseDelayMs: 1 } });
      const started = Date.now();
      await expect(client.listSessions()).resolves.toEqual({ items: [], total: 0, nextCursor: null });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(requests).toBe(2);
      requests = 0;
      const capped = new StrataClient({ url: `http://127.0.0.1:${port}`, retry: { maxDelayMs: 50 } });
      const cappedStart = Date.now();
      await expect(capped.listSessions()).resolves.toMatchObject({ total: 0 });
      expect(Date.now() - cappedStart).toBeLessThan(800);
      requests = 0;
      const once = new StrataClient({ url: `http://127.0.0.1:${port}`, retry: { attempts: 1 } });
      await expect(once.listSessions()).rejects.toMatchObject({
        status: 503,
        code: 'unavailable',
        retryAfterMs: 1000,
      });
    } finally {
      busy.closeAllConnections();
      busy.close();
    }
  });
});
