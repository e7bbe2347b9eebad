// End to end: the sagas share their slots fairly between tenants (issue 12). With four saga
// slots and two tenants, a tenant holds at most two: while one tenant's six compactions wait on
// a slow model, the other tenant's answer over the threshold starts its compaction at once, and
// sessions are summarised side by side rather than one after another.
import type { EventStore } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import { ScriptedSummarizer, session } from '@strata/testing';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import { ALPHA_KEY, BETA_KEY, TWO_TENANT_KEYS, startHttpEngine, type HttpHarness } from './http-harness';

const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
  models: { defaultContextWindow: 10000 },
  summarizer: { retry: { maxRetries: 0 } },
} satisfies EngineSettingsInput;

async function seedOverThreshold(engine: HttpHarness, sessionId: string, key: string): Promise<void> {
  const builder = session({ sessionId }).editTurns(6);
  builder.user('One more step').assistant('Done.', {
    usage: { input: 8400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8500 },
  });
  await engine.seed(builder.header, builder.entries, key);
}

async function hasStarted(store: EventStore, sessionId: string): Promise<boolean> {
  for await (const event of store.readStream(sessionStreamName(sessionId))) {
    if (event.type === 'CompactionStarted') return true;
  }
  return false;
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('given two tenants, four saga slots and a model that holds every summary', () => {
  let engine: HttpHarness;
  let summarizer: ScriptedSummarizer;
  const busy = Array.from({ length: 6 }, (_unused, index) => `alpha-${index}`);

  beforeAll(async () => {
    summarizer = new ScriptedSummarizer();
    summarizer.hold();
    engine = await startHttpEngine({
      settings,
      summarizers: [summarizer],
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS, STRATA_SAGA_CONCURRENCY: '4' },
    });
    for (const sessionId of busy) await seedOverThreshold(engine, sessionId, ALPHA_KEY);
  });

  afterAll(async () => {
    summarizer.release();
    await engine.close();
  });

  it('summarises the busy tenant’s sessions side by side, but on at most half of the slots', async () => {
    const store = engine.app.get<EventStore>(EVENT_STORE);
    const startedCount = async (): Promise<number> =>
      (await Promise.all(busy.map((sessionId) => hasStarted(store, sessionId)))).filter(Boolean).length;
    expect(await waitUntil(async () => (await startedCount()) >= 2)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await startedCount()).toBe(2);
    expect(engine.app.get(SagaRunner).status()).toMatchObject({ running: 2 });
  });

  it('starts the other tenant’s compaction at once, while the busy tenant’s are still held', async () => {
    const store = engine.app.get<EventStore>(EVENT_STORE);
    await seedOverThreshold(engine, 'beta-0', BETA_KEY);

    expect(await waitUntil(() => hasStarted(store, 'beta-0'))).toBe(true);
    const startedAlpha = await Promise.all(busy.map((sessionId) => hasStarted(store, sessionId)));
    expect(startedAlpha.filter(Boolean)).toHaveLength(2);
  });

  it('then works through the rest, every session compacted once', async () => {
    summarizer.release();
    const store = engine.app.get<EventStore>(EVENT_STORE);
    await engine.app.get(SagaRunner).drain();
    for (const sessionId of [...busy, 'beta-0']) {
      const types: string[] = [];
      for await (const event of store.readStream(sessionStreamName(sessionId))) types.push(event.type);
      expect([sessionId, types.filter((type) => type === 'CompactionCompleted').length]).toEqual([
        sessionId,
        1,
      ]);
    }
  });
});
