// End to end over real HTTP (issue 11, finding 1): usage and cost figures are finite,
// non-negative and bounded where they come in (append, import), and the read side stays up and
// finite over figures an older engine stored outside the bounds. Before the bounds, one
// assistant entry with `input: 1e308` made the catalog's sums Infinity (stored as null), and the
// projections restarted in a loop with every read answering 503.
import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_COST_FIGURE,
  MAX_RUNNING_TOTAL,
  MAX_TOKEN_FIGURE,
  serializeSessionFile,
  type SessionEntry,
  type Usage,
} from '@strata/session';
import { session } from '@strata/testing';
import { problemOf, startHttpEngine, type HttpHarness } from './http-harness';
import { writeRecordedSession } from './recorded-sessions';

const HUGE = 1e308;

function withUsage(entries: readonly SessionEntry[], usage: Usage): SessionEntry[] {
  return entries.map((entry) =>
    entry.type === 'message' && entry.message.role === 'assistant'
      ? { ...entry, message: { ...entry.message, usage } }
      : entry,
  );
}

interface SessionView {
  readonly usage: Record<string, number>;
  readonly entryCount: number;
}

describe('usage figures at the ways in', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
    const target = session({ sessionId: 'usage-target' }).user('Hello').assistant('Hi.');
    await engine.seed(target.header, target.entries);
  });

  afterAll(() => engine.close());

  async function revision(): Promise<string> {
    const view = await engine.request('GET', '/sessions/usage-target');
    return (view.body as { revision: string }).revision;
  }

  /** An assistant answer to the seeded session's last entry, reporting `usage`. */
  const answer = (id: string, usage: Record<string, unknown>) => ({
    type: 'message',
    id,
    parentId: 'e0002',
    timestamp: '2026-01-01T00:01:00.000Z',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'A figure out of bounds.' }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage,
      stopReason: 'stop',
      timestamp: 1767225660000,
    },
  });

  it.each([
    ['input 1e308', { input: HUGE, output: HUGE, cacheRead: 0, cacheWrite: 0 }, 'message.usage.input'],
    ['negative input', { input: -HUGE, output: 0, cacheRead: 0, cacheWrite: 0 }, 'message.usage.input'],
    [
      'output above the bound',
      { input: 0, output: MAX_TOKEN_FIGURE + 1, cacheRead: 0, cacheWrite: 0 },
      'message.usage.output',
    ],
    [
      'negative cache reads',
      { input: 0, output: 0, cacheRead: -1, cacheWrite: 0 },
      'message.usage.cacheRead',
    ],
    [
      'totalTokens 1e308',
      { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: HUGE },
      'message.usage.totalTokens',
    ],
    [
      'a cost of 1e308',
      { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: HUGE } },
      'message.usage.cost.total',
    ],
    [
      'a negative cost',
      { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { input: -0.5 } },
      'message.usage.cost.input',
    ],
  ])('refuses an append whose usage has %s (400, nothing written)', async (_what, usage, path) => {
    const before = await revision();
    const response = await engine.request('POST', '/sessions/usage-target/entries', {
      body: { entries: [answer('out-of-bounds', usage)] },
    });
    expect(response.status).toBe(400);
    expect(problemOf(response).code).toBe('validation');
    expect(problemOf(response).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: `body.entries.0.${path}` })]),
    );
    expect(await revision()).toBe(before);
  });

  it('refuses a compaction entry whose tokensBefore is out of bounds', async () => {
    const response = await engine.request('POST', '/sessions/usage-target/entries', {
      body: {
        entries: [
          {
            type: 'compaction',
            id: 'c-huge',
            parentId: 'e0002',
            timestamp: '2026-01-01T00:01:00.000Z',
            summary: 'Everything so far.',
            firstKeptEntryId: 'e0001',
            tokensBefore: HUGE,
          },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(problemOf(response).errors).toEqual([
      expect.objectContaining({ path: 'body.entries.0.tokensBefore' }),
    ]);
  });

  it('accepts figures at the bounds, and the session view adds them up exactly', async () => {
    const bounded = { input: MAX_TOKEN_FIGURE, output: 1, cacheRead: 0, cacheWrite: 0 };
    const entry = answer('at-the-bound', { ...bounded, cost: { total: MAX_COST_FIGURE } });
    const response = await engine.request('POST', '/sessions/usage-target/entries', {
      body: { entries: [entry] },
    });
    expect(response.status).toBe(200);
    const view = (await engine.request('GET', '/sessions/usage-target')).body as SessionView;
    expect(view.usage['input']).toBeGreaterThanOrEqual(MAX_TOKEN_FIGURE);
    expect(view.usage['cost']).toBe(MAX_COST_FIGURE);
  });

  it('refuses a session file whose usage is out of bounds, naming the line, and stores nothing', async () => {
    const file = session({ sessionId: 'usage-import' }).user('Hello').assistant('Hi.');
    const entries = withUsage(file.entries, { input: HUGE, output: HUGE, cacheRead: 0, cacheWrite: 0 });
    for (const lenient of [false, true]) {
      const response = await engine.request('POST', `/sessions/import${lenient ? '?lenient=true' : ''}`, {
        rawBody: serializeSessionFile(file.header, entries),
        contentType: 'application/x-ndjson',
      });
      if (!lenient) {
        expect(response.status).toBe(400);
        expect(problemOf(response)).toMatchObject({ code: 'validation', line: 3 });
        expect(problemOf(response).detail).toMatch(/message\.usage\.input/);
        expect((await engine.request('GET', '/sessions/usage-import')).status).toBe(404);
      } else {
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({ skipped: [expect.objectContaining({ line: 3 })] });
      }
    }
  });
});

describe('an engine over figures an older engine stored out of bounds', () => {
  let directory: string;
  let engine: HttpHarness;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-usage-'));
    const huge = session({ sessionId: 'recorded-huge' })
      .user('Hello')
      .assistant('Hi.')
      .user('Again')
      .assistant('Yes.');
    await writeRecordedSession(
      directory,
      huge.header,
      withUsage(huge.entries, {
        input: HUGE,
        output: HUGE,
        cacheRead: HUGE,
        cacheWrite: HUGE,
        cost: { total: HUGE },
      }),
    );
    const negative = session({ sessionId: 'recorded-negative' }).user('Hello').assistant('Hi.');
    await writeRecordedSession(
      directory,
      negative.header,
      withUsage(negative.entries, {
        input: -HUGE,
        output: -1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: -HUGE,
        cost: { total: -HUGE },
      }),
    );
    engine = await startHttpEngine({ directory });
    const healthy = session({ sessionId: 'healthy' }).user('Hello').assistant('Hi.');
    await engine.seed(healthy.header, healthy.entries);
  });

  afterAll(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('stays ready, and every session reads with finite, non-negative totals', async () => {
    expect((await engine.request('GET', '/ready')).status).toBe(200);
    const list = await engine.request('GET', '/sessions');
    expect(list.status).toBe(200);
    expect((list.body as { items: unknown[] }).items).toHaveLength(3);

    const huge = await engine.request('GET', '/sessions/recorded-huge');
    expect(huge.status).toBe(200);
    const hugeUsage = (huge.body as SessionView).usage;
    expect(hugeUsage).toEqual({
      input: 2 * MAX_TOKEN_FIGURE,
      output: 2 * MAX_TOKEN_FIGURE,
      cacheRead: 2 * MAX_TOKEN_FIGURE,
      cacheWrite: 2 * MAX_TOKEN_FIGURE,
      totalTokens: 2 * MAX_TOKEN_FIGURE,
      cost: 2 * MAX_COST_FIGURE,
    });
    for (const figure of Object.values(hugeUsage)) expect(figure).toBeLessThanOrEqual(MAX_RUNNING_TOTAL);

    const negative = await engine.request('GET', '/sessions/recorded-negative');
    expect(negative.status).toBe(200);
    expect((negative.body as SessionView).usage).toEqual({
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: 0,
    });
  });

  it('serves the recorded sessions and a new one alike', async () => {
    for (const sessionId of ['recorded-huge', 'recorded-negative', 'healthy']) {
      expect((await engine.request('GET', `/sessions/${sessionId}/context`)).status).toBe(200);
      expect((await engine.request('GET', `/sessions/${sessionId}/tree`)).status).toBe(200);
      expect((await engine.request('GET', `/sessions/${sessionId}/verify`)).body).toMatchObject({ ok: true });
    }
    const more = await engine.request('POST', '/sessions/recorded-huge/entries', {
      body: {
        entries: [
          {
            type: 'message',
            id: 'after',
            parentId: 'e0004',
            timestamp: '2026-01-01T00:10:00.000Z',
            message: { role: 'user', content: 'Still here?', timestamp: 1767226200000 },
          },
        ],
      },
    });
    expect(more.status).toBe(200);
  });

  it('compacts a recorded session whose last answer reported usage out of bounds', async () => {
    const response = await engine.request('POST', '/sessions/recorded-huge/compact', { body: {} });
    expect(response.status).toBe(200);
    expect(['completed', 'skipped']).toContain((response.body as { outcome: string }).outcome);
  });
});

describe('an engine over a catalog an older engine wrote with a sum gone infinite', () => {
  it('reads the null it stored as the saturated total, and the session stays readable', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-catalog-'));
    try {
      const recorded = session({ sessionId: 'recorded-sum' }).user('Hello').assistant('Hi.');
      await writeRecordedSession(directory, recorded.header, recorded.entries);
      const first = await startHttpEngine({ directory });
      expect((await first.request('GET', '/sessions/recorded-sum')).status).toBe(200);
      await first.close();

      // What an engine before the saturating sums stored: JSON writes Infinity as null.
      const database = new Database(join(directory, 'strata.db'));
      const row = database
        .prepare<[], { document: string }>('SELECT document FROM projection_catalog_sessions')
        .get();
      const document = JSON.parse(row!.document) as { usage: Record<string, unknown> };
      document.usage['totalTokens'] = null;
      document.usage['input'] = HUGE;
      database.prepare('UPDATE projection_catalog_sessions SET document = ?').run(JSON.stringify(document));
      database.close();

      const engine = await startHttpEngine({ directory });
      try {
        const detail = await engine.request('GET', '/sessions/recorded-sum');
        expect(detail.status).toBe(200);
        expect((detail.body as SessionView).usage).toMatchObject({
          input: MAX_RUNNING_TOTAL,
          totalTokens: MAX_RUNNING_TOTAL,
        });
        expect((await engine.request('GET', '/sessions')).status).toBe(200);
      } finally {
        await engine.close();
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
