// End to end: engines on one SQLite file, each with its own id and a short liveness lease
// (issue 25, item 6; decision 0017). An engine that stops for good with a manual compaction, an
// automatic compaction and a branch summary open — its module closed while their summaries hang,
// so nothing ends them — has them taken over by one of the two engines left, once its lease has
// expired: each ended once, `interrupted`, the terminal event naming who took over, from whom and
// when the lease expired, the lease stream holding one takeover, and the automatic compaction
// asked for again and completed. An engine that is alive, or back before its lease expired,
// keeps its open attempt whatever the others look for.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  openEventStore,
  type EventStore,
  type ReadStreamOptions,
  type RecordedEvent,
} from '@strata/event-store';
import { verifyStoreIntegrity } from '@strata/integrity';
import { sessionStreamName } from '@strata/session';
import {
  ScriptedSummarizer,
  session,
  startEsdbTestServer,
  waitUntil,
  type EsdbTestServer,
} from '@strata/testing';
import { engineLeaseStream } from '../../apps/engine/src/attempts/engine-leases';
import type { EngineLeaseSettings } from '../../apps/engine/src/config/engine-lease-settings';
import { AttemptTakeover } from '../../apps/engine/src/sagas/attempt-takeover.service';
import { SagasModule } from '../../apps/engine/src/sagas/sagas.module';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import { EngineModule } from '../../apps/engine/src/sessions/engine.module';
import { NavigateSessionCommand } from '../../apps/engine/src/sessions/navigate-session/navigate-session.command';
import { StartSessionCommand } from '../../apps/engine/src/sessions/start-session/start-session.command';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import { quietLogger } from './engine-harness';

jest.setTimeout(60_000);

const settings = {
  tokenizer: 'chars4',
  compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
  models: { defaultContextWindow: 100_000 },
  summarizer: { retry: { maxRetries: 0 } },
  branchSummary: { enabled: true },
} satisfies EngineSettingsInput;

/** Short enough for a test, long enough that a live engine on a busy machine renews in time. */
const lease: EngineLeaseSettings = { durationMs: 2_000, renewEveryMs: 150 };

interface Engine {
  readonly id: string;
  readonly module: TestingModule;
  readonly commands: CommandBus;
  readonly summarizer: ScriptedSummarizer;
  readonly store: EventStore;
  /** Undefined for an engine without sagas (it looks for nothing to take over). */
  readonly takeover: AttemptTakeover | undefined;
}

let directory: string;
let url: string;
const engines: Engine[] = [];

async function startEngine(
  id: string,
  options: {
    sagas: boolean;
    recoverInterruptedAttempts?: boolean;
    lease?: EngineLeaseSettings;
    barrier?: ReadBarrier;
  },
): Promise<Engine> {
  const opened = openEventStore(url);
  const store = options.barrier === undefined ? opened : options.barrier.around(opened);
  const summarizer = new ScriptedSummarizer({ name: id });
  const module = await Test.createTestingModule({
    imports: [
      EngineModule.forRoot({
        store,
        settings,
        summarizers: [summarizer],
        environment: {},
        engineId: id,
        engineLease: options.lease ?? lease,
        recoverInterruptedAttempts: options.recoverInterruptedAttempts ?? true,
      }),
      ...(options.sagas ? [SagasModule.forRoot({ retryDelayMs: 10, concurrency: 2 })] : []),
    ],
  })
    .setLogger(quietLogger)
    .compile();
  await module.init();
  const engine: Engine = {
    id,
    module,
    commands: module.get(CommandBus),
    summarizer,
    store,
    takeover: options.sagas ? module.get(AttemptTakeover) : undefined,
  };
  engines.push(engine);
  return engine;
}

/**
 * Holds the reads of one engine's lease stream, once armed, until `parties` readers have read it:
 * the engines that look at once then all find the same expired lease, and race to claim it.
 */
class ReadBarrier {
  private armed = false;
  private arrived = 0;
  private release: () => void = () => undefined;
  private opened = Promise.resolve();

  constructor(
    private readonly streamId: string,
    private readonly parties: number,
  ) {}

  arm(): void {
    this.armed = true;
    this.arrived = 0;
    this.opened = new Promise((resolve) => (this.release = resolve));
  }

  /** The store, its reads of the stream held while armed (a proxy keeps its class for the checkpoints). */
  around(store: EventStore): EventStore {
    const read = (streamId: string, options?: ReadStreamOptions) =>
      this.armed && streamId === this.streamId
        ? this.held(store.readStream(streamId, options))
        : store.readStream(streamId, options);
    return new Proxy(store, {
      get: (target, property) => {
        if (property === 'readStream') return read;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  private async *held(events: AsyncIterable<RecordedEvent>): AsyncIterable<RecordedEvent> {
    const read: RecordedEvent[] = [];
    for await (const event of events) read.push(event);
    this.arrived += 1;
    if (this.arrived >= this.parties) {
      this.armed = false;
      this.release();
    }
    await this.opened;
    yield* read;
  }
}

/** Stops the engine for good: its module and store closed, whatever it had open left open. */
async function stopForGood(engine: Engine): Promise<void> {
  engines.splice(engines.indexOf(engine), 1);
  await engine.module.close();
  await engine.store.close();
}

async function seed(engine: Engine, sessionId: string): Promise<string> {
  const builder = session({ sessionId }).editTurns(6);
  await engine.commands.execute(new StartSessionCommand({ sessionId, cwd: builder.header.cwd }));
  await engine.commands.execute(new AppendEntriesCommand(sessionId, builder.entries));
  return builder.entries[1]!.id;
}

async function read(store: EventStore, streamId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(streamId)) events.push(event);
  return events;
}

const TERMINAL = /^(Compaction|BranchSummary)(Completed|Skipped|Cancelled|Failed)$/;

async function terminalsOf(
  store: EventStore,
  sessionId: string,
  attemptId: string,
): Promise<RecordedEvent[]> {
  return (await read(store, sessionStreamName(sessionId))).filter(
    (event) => TERMINAL.test(event.type) && (event.data as { attemptId?: string }).attemptId === attemptId,
  );
}

async function startedAttemptIds(store: EventStore, sessionId: string): Promise<string[]> {
  return (await read(store, sessionStreamName(sessionId)))
    .filter((event) => event.type === 'CompactionStarted' || event.type === 'BranchSummaryStarted')
    .map((event) => (event.data as { attemptId: string }).attemptId);
}

function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  return waitUntil(condition, what, { timeoutMs });
}

/** Resolves once the engine's first (or last) renewal, read from its lease stream, has expired. */
async function leaseExpired(store: EventStore, engineId: string, which: 'first' | 'last'): Promise<void> {
  const renewals = await read(store, engineLeaseStream(engineId));
  const renewal = which === 'first' ? renewals[0] : renewals.at(-1);
  const expiresAt = Date.parse((renewal?.data as { expiresAt: string }).expiresAt);
  await waitFor(() => Promise.resolve(Date.now() > expiresAt), `the ${which} lease of ${engineId} expired`);
}

/** A lease the engines left hold without looking on their own: the test looks, at once on both. */
const longLease: EngineLeaseSettings = { durationMs: 600_000, renewEveryMs: 300_000 };

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-takeover-'));
  url = `sqlite:${join(directory, 'strata.db')}`;
});

afterEach(async () => {
  for (const engine of [...engines].reverse()) await stopForGood(engine);
  rmSync(directory, { recursive: true, force: true });
});

/**
 * An engine gone with a manual compaction, an automatic one and a branch summary open; two
 * engines left, looking at once once its lease expired.
 */
async function goneForGoodWithThreeAttempts(): Promise<void> {
  const gone = await startEngine('engine-a', { sagas: false });
  gone.summarizer.hold();
  const navigateTo = await seed(gone, 'manual');
  await seed(gone, 'automatic');
  await seed(gone, 'branching');
  const running = [
    gone.commands.execute(new CompactSessionCommand('manual', { attemptId: 'manual-1' })),
    gone.commands.execute(
      new CompactSessionCommand('automatic', {
        trigger: 'threshold',
        attemptId: 'automatic-1',
        whenRunningElsewhere: 'leave',
      }),
    ),
    gone.commands.execute(
      new NavigateSessionCommand('branching', navigateTo, { summarize: true, attemptId: 'branch-1' }),
    ),
  ];
  for (const work of running) work.catch(() => undefined);
  await gone.summarizer.whenCalled(3);
  await stopForGood(gone);

  const barrier = new ReadBarrier(engineLeaseStream('engine-a'), 2);
  const b = await startEngine('engine-b', { sagas: true, lease: longLease, barrier });
  const c = await startEngine('engine-c', { sagas: true, lease: longLease, barrier });
  const cases = [
    ['manual', 'manual-1'],
    ['automatic', 'automatic-1'],
    ['branching', 'branch-1'],
  ] as const;
  expect([...(await b.takeover!.sweep()), ...(await c.takeover!.sweep())]).toEqual([]);
  await leaseExpired(b.store, 'engine-a', 'last');
  // Both look at once: both find the lease expired, one claims it.
  barrier.arm();
  const [byB, byC] = await Promise.all([b.takeover!.sweep(), c.takeover!.sweep()]);
  const taken = [...byB, ...byC];
  expect(taken.map((attempt) => attempt.attemptId).sort()).toEqual(['automatic-1', 'branch-1', 'manual-1']);
  expect([byB.length, byC.length].sort()).toEqual([0, 3]);

  const leaseEvents = await read(b.store, engineLeaseStream('engine-a'));
  const takeovers = leaseEvents.filter((event) => event.type === 'EngineLeaseTakenOver');
  expect(takeovers).toHaveLength(1);
  const takeover = takeovers[0]!.data as { by: string; leaseExpiredAt: string; takenOverAt: string };
  expect(['engine-b', 'engine-c']).toContain(takeover.by);
  const lastRenewal = leaseEvents.filter((event) => event.type === 'EngineLeaseRenewed').at(-1)!;
  expect(takeover.leaseExpiredAt).toBe((lastRenewal.data as { expiresAt: string }).expiresAt);
  expect(Date.parse(takeover.takenOverAt)).toBeGreaterThanOrEqual(Date.parse(takeover.leaseExpiredAt));

  for (const [sessionId, attemptId] of cases) {
    const terminals = await terminalsOf(b.store, sessionId, attemptId);
    expect([sessionId, terminals.map((event) => event.type)]).toEqual([
      sessionId,
      [sessionId === 'branching' ? 'BranchSummaryFailed' : 'CompactionFailed'],
    ]);
    expect((terminals[0]!.data as { error: { code: string } }).error.code).toBe('interrupted');
    expect(terminals[0]!.metadata).toMatchObject({
      takenOverBy: takeover.by,
      takenOverFrom: 'engine-a',
      leaseExpiredAt: takeover.leaseExpiredAt,
    });
  }

  // The automatic compaction is asked for again, and completes once.
  await waitFor(
    async () => (await startedAttemptIds(b.store, 'automatic')).length === 2,
    'the automatic compaction was asked for again',
  );
  const [, again] = await startedAttemptIds(b.store, 'automatic');
  await waitFor(
    async () => (await terminalsOf(b.store, 'automatic', again!)).length > 0,
    'the compaction asked again has ended',
  );
  expect((await terminalsOf(b.store, 'automatic', again!)).map((event) => event.type)).toEqual([
    'CompactionCompleted',
  ]);
  // Nothing else started: the manual compaction and the branch summary are not run again.
  expect(await startedAttemptIds(b.store, 'manual')).toEqual(['manual-1']);
  expect(await startedAttemptIds(b.store, 'branching')).toEqual(['branch-1']);
  // Further looks take nothing more over.
  expect([...(await b.takeover!.sweep()), ...(await c.takeover!.sweep())]).toEqual([]);
  expect(
    (await read(b.store, engineLeaseStream('engine-a'))).filter(
      (event) => event.type === 'EngineLeaseTakenOver',
    ),
  ).toHaveLength(1);
  // The lease streams are sealed as the sessions are: the whole store verifies.
  const integrity = await verifyStoreIntegrity(b.store);
  expect(integrity.failed).toEqual([]);
  expect(integrity.ok).toBe(true);
}

describe('an engine gone for good with attempts open', () => {
  it('has them taken over once, after its lease expired, by one of the engines left, recorded', async () => {
    await goneForGoodWithThreeAttempts();
  });

  describe('on the EventStoreDB adapter', () => {
    let server: EsdbTestServer;

    beforeAll(async () => {
      server = await startEsdbTestServer();
    });

    beforeEach(() => {
      url = server.connectionString;
    });

    afterAll(() => server.stop());

    it('has them taken over once as well, through the same port', async () => {
      await goneForGoodWithThreeAttempts();
    });
  });
});

describe('an engine left alone with the attempt of an engine gone', () => {
  it('takes it over on its own, at its renewal interval, once the lease expired; the engine back later holds a new lease', async () => {
    const gone = await startEngine('engine-a', { sagas: false });
    gone.summarizer.hold();
    await seed(gone, 'manual');
    gone.commands
      .execute(new CompactSessionCommand('manual', { attemptId: 'manual-1' }))
      .catch(() => undefined);
    await gone.summarizer.whenCalled(1);
    await stopForGood(gone);
    const left = await startEngine('engine-b', { sagas: true });
    await waitFor(
      async () => (await terminalsOf(left.store, 'manual', 'manual-1')).length > 0,
      'the attempt of engine-a has ended',
    );
    const [terminal] = await terminalsOf(left.store, 'manual', 'manual-1');
    expect(terminal?.metadata).toMatchObject({ takenOverBy: 'engine-b', takenOverFrom: 'engine-a' });

    // Back after the takeover: it holds a new lease, and ends nothing a second time.
    await startEngine('engine-a', { sagas: false });
    const leaseTypes = (await read(left.store, engineLeaseStream('engine-a'))).map((event) => event.type);
    expect(leaseTypes.slice(leaseTypes.indexOf('EngineLeaseTakenOver'))).toEqual([
      'EngineLeaseTakenOver',
      'EngineLeaseRenewed',
    ]);
    expect(await terminalsOf(left.store, 'manual', 'manual-1')).toHaveLength(1);
  });
});

describe('an engine with an attempt open whose lease holds', () => {
  it('keeps it while it is alive, past the expiry of its first renewal', async () => {
    const owner = await startEngine('engine-a', { sagas: false });
    owner.summarizer.hold();
    await seed(owner, 'manual');
    owner.commands
      .execute(new CompactSessionCommand('manual', { attemptId: 'manual-1' }))
      .catch(() => undefined);
    await owner.summarizer.whenCalled(1);
    const other = await startEngine('engine-b', { sagas: true });
    await leaseExpired(other.store, 'engine-a', 'first');

    expect(await other.takeover!.sweep()).toEqual([]);
    expect(await terminalsOf(other.store, 'manual', 'manual-1')).toEqual([]);
    const leaseTypes = (await read(other.store, engineLeaseStream('engine-a'))).map((event) => event.type);
    expect(leaseTypes).not.toContain('EngineLeaseTakenOver');
    expect(leaseTypes.length).toBeGreaterThan(1);
  });

  it('keeps it when it comes back before its lease expired', async () => {
    const first = await startEngine('engine-a', { sagas: false });
    first.summarizer.hold();
    await seed(first, 'manual');
    first.commands
      .execute(new CompactSessionCommand('manual', { attemptId: 'manual-1' }))
      .catch(() => undefined);
    await first.summarizer.whenCalled(1);
    await stopForGood(first);
    // Back at once, and leaving its attempt open (as its sagas leave an automatic compaction
    // until they take it up again).
    await startEngine('engine-a', { sagas: false, recoverInterruptedAttempts: false });
    const other = await startEngine('engine-b', { sagas: true });
    await leaseExpired(other.store, 'engine-a', 'first');

    expect(await other.takeover!.sweep()).toEqual([]);
    expect(await terminalsOf(other.store, 'manual', 'manual-1')).toEqual([]);
    const leaseTypes = (await read(other.store, engineLeaseStream('engine-a'))).map((event) => event.type);
    expect(leaseTypes).not.toContain('EngineLeaseTakenOver');
  });
});
