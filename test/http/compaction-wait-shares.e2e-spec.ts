// End to end over real HTTP (DESIGN.md decision 11): context reads that wait for compactions
// (`waitForCompaction`) are counted per tenant. A tenant at its bound is answered 503 with
// Retry-After, another tenant still waits, and a read whose client went away stops waiting and
// frees its place.
import { ScriptedSummarizer, session } from '@strata/testing';
import { CompactionWaits } from '../../apps/engine/src/sagas/compaction-waits.service';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  waitUntil,
  type HttpHarness,
} from './http-harness';

const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  models: { defaultContextWindow: 10000 },
};
const usage = (tokens: number) => ({ input: tokens - 100, output: 100, cacheRead: 0, cacheWrite: 0 });

describe('given two tenants and room for two waiting context reads per tenant', () => {
  let engine: HttpHarness;
  let summarizer: ScriptedSummarizer;
  /** The engine's context reads admitted to wait for compactions (observed, not replaced). */
  let waitsBegun: jest.SpiedFunction<CompactionWaits['waitUntilSettled']>;

  beforeAll(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startHttpEngine({
      settings,
      summarizers: [summarizer],
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS, STRATA_MAX_COMPACTION_WAITS_PER_TENANT: '2' },
    });
    waitsBegun = jest.spyOn(engine.app.get(CompactionWaits), 'waitUntilSettled');
  });

  afterAll(() => engine.close());

  afterEach(() => summarizer.release());

  /** A session of `key`'s tenant whose last answer asked for a compaction the summariser holds. */
  async function compacting(sessionId: string, key: string): Promise<void> {
    const builder = session({ sessionId }).editTurns(6);
    await engine.seed(builder.header, builder.entries, key);
    const from = builder.entries.length;
    builder.user('Sum it up').assistant('Summed up.', { usage: usage(8500) });
    summarizer.hold();
    const answer = await engine.request('POST', `/sessions/${sessionId}/entries`, {
      key,
      body: { entries: builder.entries.slice(from), expectedLeafId: builder.entries[from - 1]?.id },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ compaction: { trigger: 'threshold' } });
    await summarizer.whenCalled(1);
  }

  /** A waiting context read over a connection of its own, which the test can cut. */
  function waitingRead(sessionId: string, key: string, ms: number) {
    const cut = new AbortController();
    const answer = fetch(`${engine.url}/sessions/${sessionId}/context?waitForCompaction=${ms}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: cut.signal,
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
    return { answer, cut: () => cut.abort() };
  }

  it("answers 503 past the tenant's bound, lets the other tenant wait, and frees a place when a client leaves", async () => {
    await compacting('shares-alpha', ALPHA_KEY);
    const waitsBefore = waitsBegun.mock.calls.length;
    const first = waitingRead('shares-alpha', ALPHA_KEY, 20_000);
    const second = waitingRead('shares-alpha', ALPHA_KEY, 20_000);
    second.answer.catch(() => undefined);
    await waitUntil(
      () => Promise.resolve(waitsBegun.mock.calls.length >= waitsBefore + 2),
      'both context reads of the tenant admitted and waiting',
    );

    const refused = await engine.request('GET', '/sessions/shares-alpha/context?waitForCompaction=0', {
      key: ALPHA_KEY,
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(problemOf(refused)).toMatchObject({ code: 'unavailable' });
    expect(problemOf(refused).detail).toMatch(/STRATA_MAX_COMPACTION_WAITS_PER_TENANT/);

    const beta = session({ sessionId: 'shares-beta' }).editTurns(2);
    await engine.seed(beta.header, beta.entries, BETA_KEY);
    const betaRead = await engine.request('GET', '/sessions/shares-beta/context?waitForCompaction=20000', {
      key: BETA_KEY,
    });
    expect(betaRead.status).toBe(200);
    expect(betaRead.body).toMatchObject({ compactionWait: { outcome: 'settled' } });

    second.cut();
    let admitted = refused;
    await waitUntil(async () => {
      admitted = await engine.request('GET', '/sessions/shares-alpha/context?waitForCompaction=0', {
        key: ALPHA_KEY,
      });
      return admitted.status !== 503;
    }, 'the place of the read whose client went away freed');
    expect(admitted.status).toBe(200);
    expect(admitted.body).toMatchObject({ compactionWait: { outcome: 'timed_out' } });

    summarizer.release();
    const settled = await first.answer;
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ compactionWait: { outcome: 'settled' } });
  });
});
