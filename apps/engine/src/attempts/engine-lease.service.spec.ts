import { InMemoryEventStore } from '@strata/event-store';
import { EngineLease } from './engine-lease.service';
import { engineLeaseStream } from './engine-leases';
import { RunningAttempts } from './running-attempts.service';

const settings = { durationMs: 60_000, renewEveryMs: 10_000 };

async function leaseEvents(store: InMemoryEventStore): Promise<string[]> {
  const types: string[] = [];
  for await (const event of store.readStream(engineLeaseStream('engine-a'))) types.push(event.type);
  return types;
}

describe('the liveness lease of an engine', () => {
  let now: number;
  let store: InMemoryEventStore;
  let running: RunningAttempts;
  let lease: EngineLease;

  beforeEach(async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    now = Date.parse('2026-12-06T10:00:00.000Z');
    store = new InMemoryEventStore();
    running = new RunningAttempts();
    lease = new EngineLease(
      store,
      { now: () => now },
      { id: 'engine-a', configured: true },
      settings,
      running,
    );
    await lease.onModuleInit();
  });

  afterEach(async () => {
    await lease.onModuleDestroy();
    jest.useRealTimers();
    await store.close();
  });

  it('is taken at start-up and then renewed only while attempts run here: an idle engine writes nothing', async () => {
    expect(await leaseEvents(store)).toEqual(['EngineLeaseRenewed']);
    now += 120_000;
    await jest.advanceTimersByTimeAsync(120_000);
    expect(await leaseEvents(store)).toHaveLength(1);

    let finish: () => void = () => undefined;
    const attempt = running.run(
      's-1',
      'a-1',
      'compaction',
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    now += 30_000;
    await jest.advanceTimersByTimeAsync(30_000);
    expect((await leaseEvents(store)).length).toBeGreaterThanOrEqual(3);
    finish();
    await attempt;
    const whileRunning = (await leaseEvents(store)).length;
    now += 60_000;
    await jest.advanceTimersByTimeAsync(60_000);
    expect(await leaseEvents(store)).toHaveLength(whileRunning);
  });

  it('is renewed before an attempt starts when it would lapse before the next renewal, and not otherwise', async () => {
    now += 5_000;
    await lease.ensureLive();
    expect(await leaseEvents(store)).toHaveLength(1);
    now += 46_000;
    await lease.ensureLive();
    expect(await leaseEvents(store)).toHaveLength(2);
    now += 3_600_000;
    await lease.ensureLive();
    expect(await leaseEvents(store)).toHaveLength(3);
  });

  it('holds none without a configured engine id', async () => {
    const alone = new InMemoryEventStore();
    const unnamed = new EngineLease(
      alone,
      { now: () => now },
      { id: 'engine-a', configured: false },
      settings,
      running,
    );
    await unnamed.onModuleInit();
    await unnamed.ensureLive();
    expect(await leaseEvents(alone)).toEqual([]);
    await unnamed.onModuleDestroy();
    await alone.close();
  });
});
