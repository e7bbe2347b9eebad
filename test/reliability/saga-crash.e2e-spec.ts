// The engine process killed with SIGKILL in the middle of a batch of automatic compactions
// (issue 12): ten sessions cross the threshold together, two summary slots, and the engine dies
// with one or a few compactions done, two being summarised and the rest recorded as started and
// waiting for a slot (or not yet handled). After the restart the sagas' checkpoint redelivers
// every trigger not finished, each takes its attempt up again, and every session ends with
// exactly one attempt, completed — none lost, none compacted twice; the store is sound and
// every stream verifies.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { session } from '@strata/testing';
import { CaseCounts } from './support/case-counts';
import { startEngineProcess, storeFileOf, type EngineProcess } from './support/engine-process';
import { storeHealth } from './support/store-checks';
import { SummaryEndpoint } from './support/summary-endpoint';

jest.setTimeout(180_000);

const SESSIONS = 10;
/** How long each summary request takes before the endpoint starts hanging. */
const SUMMARY_DELAY_MS = 2_000;
const counts = new CaseCounts('engine killed during a batch of automatic compactions');
let directory: string;
let endpoint: SummaryEndpoint;
let engine: EngineProcess | undefined;

interface Attempt {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly trigger: string | null;
  readonly outcome: string;
  readonly error: { readonly code: string | null } | null;
}

function start(): Promise<EngineProcess> {
  return startEngineProcess({
    directory,
    environment: { STRATA_SAGA_CONCURRENCY: '2' },
    settings: {
      compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
      models: { defaultContextWindow: 10_000 },
      summarizer: {
        candidates: [{ provider: 'remote' as const, url: endpoint.url, timeoutMs: 120_000 }],
        retry: { maxRetries: 0 },
      },
    },
  });
}

async function attempts(running: EngineProcess): Promise<Attempt[]> {
  const answer = await running.request('GET', '/attempts?limit=500');
  expect(answer.status).toBe(200);
  return (answer.body as { items: Attempt[] }).items;
}

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'strata-saga-crash-'));
  endpoint = await SummaryEndpoint.start();
});

afterAll(async () => {
  counts.report();
  await engine?.kill('SIGKILL');
  await endpoint.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the engine killed with compactions done, in flight and not yet started', () => {
  it('takes every open compaction up again after the restart, compacting every session exactly once', async () => {
    engine = await start();
    // Each summary takes SUMMARY_DELAY_MS, so the first compactions complete seconds apart from the
    // later ones: the switch to hanging below comes while most are still open, however slowly
    // this process polls on a busy machine (a poll takes far less than a summary).
    endpoint.behave({ kind: 'summary', summary: '## Goal\n- keep going', delayMs: SUMMARY_DELAY_MS });
    const sessionIds = Array.from({ length: SESSIONS }, (_unused, index) => `batch-${index}`);
    for (const sessionId of sessionIds) {
      const builder = session({ sessionId }).editTurns(6);
      builder.user('One more step').assistant('Done.', {
        usage: { input: 8400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8500 },
      });
      expect((await engine.request('POST', '/sessions', { sessionId, cwd: '/w' })).status).toBe(201);
      const appended = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        entries: builder.entries,
      });
      expect(appended.status).toBe(200);
    }
    const running = engine;
    await waitFor(
      async () => (await attempts(running)).some((attempt) => attempt.outcome === 'completed'),
      'a compaction completed',
    );
    endpoint.behave({ kind: 'hang' });
    // The kill comes once several compactions are open (their summaries hang), the snapshot
    // taken then being the one the checks below compare with.
    let beforeKill: Attempt[] = [];
    await waitFor(async () => {
      beforeKill = await attempts(running);
      return endpoint.requests > 0 && beforeKill.filter((a) => a.outcome === 'pending').length > 2;
    }, 'more than two compactions open');
    expect(await running.kill('SIGKILL')).toBe('SIGKILL');
    engine = undefined;
    const doneBefore = new Set(
      beforeKill.filter((attempt) => attempt.outcome === 'completed').map((attempt) => attempt.sessionId),
    );
    const open = new Map(
      beforeKill
        .filter((attempt) => attempt.outcome === 'pending')
        .map((attempt) => [attempt.sessionId, attempt.attemptId]),
    );
    expect(open.size).toBeGreaterThan(2);

    endpoint.behave({ kind: 'summary', summary: '## Goal\n- go on' });
    engine = await start();
    const restarted = engine;
    await waitFor(async () => {
      const now = await attempts(restarted);
      return now.length >= SESSIONS && now.every((attempt) => attempt.outcome !== 'pending');
    }, 'every session has ended its attempt');

    const after = await attempts(restarted);
    for (const sessionId of sessionIds) {
      const own = after.filter((attempt) => attempt.sessionId === sessionId);
      expect([sessionId, own.length]).toEqual([sessionId, 1]);
      const [attempt] = own;
      expect([sessionId, attempt?.trigger, attempt?.outcome]).toEqual([sessionId, 'threshold', 'completed']);
      if (open.has(sessionId)) expect(attempt?.attemptId).toBe(open.get(sessionId));
      counts.record('sessions', [
        doneBefore.has(sessionId)
          ? 'done before the kill'
          : open.has(sessionId)
            ? 'open at the kill'
            : 'not handled yet',
      ]);
    }
    const health = await storeHealth(storeFileOf(directory));
    expect(health.integrity).toBe('ok');
    expect(health.brokenStreams).toBe(0);
  });
});
