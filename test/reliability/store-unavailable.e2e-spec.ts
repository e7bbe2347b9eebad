// The store becoming unavailable under a running engine (issue 6, part 2). EventStoreDB (the
// protocol test server) sits behind a TCP proxy that is cut and restored: while it is cut,
// readiness goes down and writes answer 503 problem details; once it is back, the same engine
// process becomes ready again and writes succeed, with nothing of the refused writes stored.
import fc from 'fast-check';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { session } from '@strata/testing';
import { startHttpEngine, type ApiResponse, type HttpHarness } from '../http/http-harness';
import { CaseCounts } from './support/case-counts';
import { TcpProxy } from './support/tcp-proxy';

jest.setTimeout(120_000);

const counts = new CaseCounts('store unavailable');

async function poll(
  engine: HttpHarness,
  path: string,
  done: (response: ApiResponse) => boolean,
  timeoutMs: number,
): Promise<{ response: ApiResponse; waitedMs: number }> {
  const startedAt = Date.now();
  for (;;) {
    const response = await engine.request('GET', path);
    if (done(response)) return { response, waitedMs: Date.now() - startedAt };
    if (Date.now() - startedAt > timeoutMs) {
      throw new Error(`${path} still answered ${response.status} after ${timeoutMs} ms: ${response.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const userEntry = (id: string, parentId: string | null) => ({
  type: 'message',
  id,
  parentId,
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: `entry ${id}`, timestamp: 1 },
});

describe('an engine on EventStoreDB whose link to the store is cut, then restored', () => {
  let server: EsdbTestServer;
  let proxy: TcpProxy;
  let engine: HttpHarness;

  beforeAll(async () => {
    server = await startEsdbTestServer();
    proxy = await TcpProxy.start(server.port);
    engine = await startHttpEngine({
      settings: {
        compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
        models: { defaultContextWindow: 10_000 },
      },
      environment: {
        STRATA_STORE: `esdb://127.0.0.1:${proxy.port}?tls=false`,
        STRATA_PROJECTIONS_DB: 'projections.db',
        STRATA_READ_WAIT_MS: '500',
      },
    });
    const builder = session({ sessionId: 'through-outage' }).user('Hello').assistant('Hi.');
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(async () => {
    counts.report();
    await engine.close();
    await proxy.cut();
    await server.stop();
  });

  it('is ready while the store answers', async () => {
    await poll(engine, '/ready', (response) => response.status === 200, 10_000);
  });

  it('goes not ready once the store is unreachable, naming the store', async () => {
    await proxy.cut();
    const { response, waitedMs } = await poll(engine, '/ready', (answer) => answer.status === 503, 15_000);
    counts.record('readiness down', [`${Math.ceil(waitedMs / 100) * 100} ms after the cut`]);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.body).toMatchObject({
      status: 'not_ready',
      reason: 'store_unavailable',
      checks: { store: { ok: false } },
    });
  });

  it('answers writes with 503 problem details while the store is unreachable', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          { path: '/sessions', body: { cwd: '/w' } },
          { path: '/sessions/through-outage/entries', body: { entries: [userEntry('during-outage', null)] } },
          { path: '/sessions/through-outage/labels', body: { targetId: 'e0001', label: 'outage' } },
          { path: '/sessions/through-outage/compact', body: {} },
        ),
        async ({ path, body }) => {
          counts.record('writes during the outage', [path]);
          const answer = await engine.request('POST', path, { body });
          expect(answer.status).toBe(503);
          expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(answer.body).toMatchObject({ code: 'unavailable', status: 503 });
          expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
        },
      ),
      { numRuns: 8 },
    );
  });

  it('becomes ready again without a restart once the store is back, and writes succeed', async () => {
    await proxy.restore();
    const { waitedMs } = await poll(engine, '/ready', (answer) => answer.status === 200, 60_000);
    counts.record('readiness back', [`${Math.ceil(waitedMs / 100) * 100} ms after the link came back`]);
    const appended = await engine.request('POST', '/sessions/through-outage/entries', {
      body: { entries: [userEntry('after-outage', 'e0002')] },
    });
    expect(appended.status).toBe(200);
    const entries = await engine.request('GET', '/sessions/through-outage/entries');
    const ids = (entries.body as { items: { id: string }[] }).items.map((entry) => entry.id);
    expect(ids).toEqual(['e0001', 'e0002', 'after-outage']);
  });

  it('compacts automatically again after the outage (the sagas resumed their subscription)', async () => {
    const builder = session({ sessionId: 'over-threshold-after-outage' });
    builder.editTurns(6);
    builder.user('One more step').assistant('Done.', {
      usage: { input: 8_400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8_500 },
    });
    await engine.seed(builder.header, builder.entries);
    const { response } = await poll(
      engine,
      '/sessions/over-threshold-after-outage/attempts',
      (answer) => JSON.stringify(answer.body).includes('"outcome":"completed"'),
      20_000,
    );
    expect(response.body).toMatchObject({ items: [{ kind: 'compaction', trigger: 'threshold' }] });
  });
});
