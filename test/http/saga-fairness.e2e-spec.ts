// End to end: automatic compactions share their summary slots fairly between tenants (issue
// 12). With four slots and two tenants, a tenant holds at most two: every answer over the
// threshold is recorded as started at once, one tenant's six compactions are summarised two at
// a time on a slow model, and the other tenant's compaction gets a slot at once.
import type { EventStore } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import { ScriptedSummarizer, session } from '@strata/testing';
import { SummarySlots } from '../../apps/engine/src/sessions/compact-session/summary-slots.service';
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

  it('records every answer’s compaction as started at once, and summarises them on at most half of the slots', async () => {
    const store = engine.app.get<EventStore>(EVENT_STORE);
    const slots = engine.app.get(SummarySlots);
    expect(await waitUntil(() => Promise.resolve(slots.running === 2 && slots.waiting === 4))).toBe(true);
    // A window on purpose: all six summaries are already handed to the slots (the positive signal
    // above), and no third of the busy tenant's may begin while the model holds the first two.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect([slots.running, slots.waiting]).toEqual([2, 4]);
    const started = await Promise.all(busy.map((sessionId) => hasStarted(store, sessionId)));
    expect(started.every(Boolean)).toBe(true);
  });

  it('gives the other tenant’s compaction a slot at once, while the busy tenant’s wait', async () => {
    const store = engine.app.get<EventStore>(EVENT_STORE);
    const slots = engine.app.get(SummarySlots);
    await seedOverThreshold(engine, 'beta-0', BETA_KEY);

    expect(await waitUntil(() => Promise.resolve(slots.running === 3))).toBe(true);
    expect(await hasStarted(store, 'beta-0')).toBe(true);
    expect(slots.waiting).toBe(4);
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
