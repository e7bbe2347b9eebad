// End to end: two engines on one store share the automatic compactions — on one SQLite file,
// and on the EventStoreDB adapter (over the protocol test server). Both react to every answer
// that crosses the threshold; the one that starts the attempt summarises it, the other leaves
// it, so each compaction is summarised exactly once (the summarisers' calls are counted) and
// both engines do part of the work (issue 12, part 6).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import { openEventStore, type EventStore, type RecordedEvent } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import { ScriptedSummarizer, session, startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { EngineModule } from '../../apps/engine/src/sessions/engine.module';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { SagasModule } from '../../apps/engine/src/sagas/sagas.module';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { NavigateSessionCommand } from '../../apps/engine/src/sessions/navigate-session/navigate-session.command';
import { StartSessionCommand } from '../../apps/engine/src/sessions/start-session/start-session.command';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import { quietLogger } from './engine-harness';
import { usageOf } from './sagas-harness';

const settings = {
  tokenizer: 'chars4',
  compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
  models: { defaultContextWindow: 10000 },
  summarizer: { retry: { maxRetries: 0 } },
  branchSummary: { enabled: true },
} satisfies EngineSettingsInput;

const SESSIONS = 12;

interface Engine {
  readonly id: string;
  readonly module: TestingModule;
  readonly commands: CommandBus;
  readonly sagas: SagaRunner;
  readonly summarizer: ScriptedSummarizer;
  readonly store: EventStore;
}

/** A summariser that takes a while, so the two engines' work overlaps. */
function slowSummarizer(name: string): ScriptedSummarizer {
  return new ScriptedSummarizer({
    name,
    reply: async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return `summary by ${name} of ${request.purpose}`;
    },
  });
}

async function startEngine(id: string, store: EventStore): Promise<Engine> {
  const summarizer = slowSummarizer(id);
  const module = await Test.createTestingModule({
    imports: [
      EngineModule.forRoot({ store, settings, summarizers: [summarizer], environment: {}, engineId: id }),
      SagasModule.forRoot({ retryDelayMs: 10, concurrency: 2 }),
    ],
  })
    .setLogger(quietLogger)
    .compile();
  await module.init();
  return { id, module, commands: module.get(CommandBus), sagas: module.get(SagaRunner), summarizer, store };
}

/** A session whose last answer crosses the 8,000-token threshold, written through `engine`. */
async function seedOverThreshold(engine: Engine, sessionId: string): Promise<void> {
  const builder = session({ sessionId }).editTurns(6);
  builder.user('One more step').assistant('Done.', { usage: usageOf(8500) });
  await engine.commands.execute(new StartSessionCommand({ sessionId, cwd: builder.header.cwd }));
  await engine.commands.execute(new AppendEntriesCommand(sessionId, builder.entries));
}

async function eventsOf(store: EventStore, sessionId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(sessionStreamName(sessionId))) events.push(event);
  return events;
}

async function settled(engines: readonly Engine[], sessionIds: readonly string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await Promise.all(engines.map((engine) => engine.sagas.drain()));
    const completed = await Promise.all(
      sessionIds.map(async (sessionId) =>
        (await eventsOf(engines[0]!.store, sessionId)).some(
          (event) => event.type === 'ContinuationRequested',
        ),
      ),
    );
    if (completed.every(Boolean) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function describeTwoEngines(
  name: string,
  openStores: () => Promise<{ stores: [EventStore, EventStore]; close: () => Promise<void> }>,
): void {
  describe(`given two engines on ${name}`, () => {
    let engines: Engine[] = [];
    let closeStores: () => Promise<void> = () => Promise.resolve();
    const sessionIds = Array.from({ length: SESSIONS }, (_unused, index) => `shared-${index}`);

    beforeAll(async () => {
      const opened = await openStores();
      closeStores = opened.close;
      engines = [
        await startEngine('engine-a', opened.stores[0]),
        await startEngine('engine-b', opened.stores[1]),
      ];
      await Promise.all(
        sessionIds.map((sessionId, index) => seedOverThreshold(engines[index % 2]!, sessionId)),
      );
      await settled(engines, sessionIds);
    }, 60_000);

    afterAll(async () => {
      for (const engine of engines) await engine.module.close();
      await closeStores();
    });

    it('compacts every session exactly once, whichever engine saw the answer', async () => {
      for (const sessionId of sessionIds) {
        const types = (await eventsOf(engines[0]!.store, sessionId)).map((event) => event.type);
        expect([sessionId, types.filter((type) => type === 'CompactionStarted').length]).toEqual([
          sessionId,
          1,
        ]);
        expect([sessionId, types.filter((type) => type === 'CompactionCompleted').length]).toEqual([
          sessionId,
          1,
        ]);
        expect([sessionId, types.filter((type) => type === 'ContinuationRequested').length]).toEqual([
          sessionId,
          1,
        ]);
      }
    });

    it('summarises each compaction once: each engine made the calls of the attempts it started, and both started some', async () => {
      const startedBy = new Map<string, number>();
      for (const sessionId of sessionIds) {
        for (const event of await eventsOf(engines[0]!.store, sessionId)) {
          if (event.type !== 'CompactionStarted') continue;
          const engine = String(event.metadata['engine']);
          startedBy.set(engine, (startedBy.get(engine) ?? 0) + 1);
        }
      }
      const [a, b] = engines as [Engine, Engine];
      expect((startedBy.get(a.id) ?? 0) + (startedBy.get(b.id) ?? 0)).toBe(SESSIONS);
      expect(startedBy.get(a.id)).toBeGreaterThan(0);
      expect(startedBy.get(b.id)).toBeGreaterThan(0);
      const callsPerCompaction = (a.summarizer.calls.length + b.summarizer.calls.length) / SESSIONS;
      expect(Number.isInteger(callsPerCompaction) && callsPerCompaction >= 1).toBe(true);
      expect(a.summarizer.calls).toHaveLength(callsPerCompaction * (startedBy.get(a.id) ?? 0));
      expect(b.summarizer.calls).toHaveLength(callsPerCompaction * (startedBy.get(b.id) ?? 0));
    });

    it('summarises a branch once when both engines run the same navigation', async () => {
      const [a, b] = engines as [Engine, Engine];
      const sessionId = 'branching';
      const builder = session({ sessionId }).editTurns(2);
      await a.commands.execute(new StartSessionCommand({ sessionId, cwd: builder.header.cwd }));
      await a.commands.execute(new AppendEntriesCommand(sessionId, builder.entries));
      const targetId = builder.entries[1]!.id;
      const branchCalls = () =>
        a.summarizer.requestsFor('branch').length + b.summarizer.requestsFor('branch').length;
      const before = branchCalls();
      const navigate = (engine: Engine) =>
        engine.commands.execute(
          new NavigateSessionCommand(sessionId, targetId, { summarize: true, attemptId: 'one-navigation' }),
        );
      const [fromA, fromB] = await Promise.all([navigate(a), navigate(b)]);
      expect(fromA).toMatchObject({ outcome: 'navigated', summary: { attemptId: 'one-navigation' } });
      expect(fromB).toMatchObject({ outcome: 'navigated', summary: { attemptId: 'one-navigation' } });
      expect(fromA.leafId).toBe(fromB.leafId);
      const types = (await eventsOf(a.store, sessionId)).map((event) => event.type);
      expect(types.filter((type) => type === 'BranchSummaryStarted')).toHaveLength(1);
      expect(types.filter((type) => type === 'BranchSummaryCompleted')).toHaveLength(1);
      expect(branchCalls() - before).toBe(1);
    });

    it('leaves both saga runners live with nothing given up', () => {
      for (const engine of engines) {
        expect(engine.sagas.status()).toMatchObject({ state: 'live', eventsGivenUp: 0 });
      }
    });
  });
}

describeTwoEngines('one SQLite file', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-two-engines-'));
  const url = `sqlite:${join(directory, 'strata.db')}`;
  const stores: [EventStore, EventStore] = [openEventStore(url), openEventStore(url)];
  return Promise.resolve({
    stores,
    close: async () => {
      await Promise.all(stores.map((store) => store.close()));
      rmSync(directory, { recursive: true, force: true });
    },
  });
});

describeTwoEngines('the EventStoreDB adapter', async () => {
  const server: EsdbTestServer = await startEsdbTestServer();
  const stores: [EventStore, EventStore] = [
    openEventStore(server.connectionString),
    openEventStore(server.connectionString),
  ];
  return {
    stores,
    close: async () => {
      await Promise.all(stores.map((store) => store.close()));
      await server.stop();
    },
  };
});
