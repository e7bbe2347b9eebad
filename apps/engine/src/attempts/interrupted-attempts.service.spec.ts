import { Test, type TestingModule } from '@nestjs/testing';
import { InMemoryEventStore, type EventStore } from '@strata/event-store';
import { loadSession } from '@strata/session-files';
import { session } from '@strata/testing';
import { EngineModule } from '../sessions/engine.module';
import { SessionStreams } from '../session-streams/session-streams.service';
import { attemptCorrelationId } from './attempt-ids';
import { InterruptedAttempts } from './interrupted-attempts.service';
import { RunningAttempts } from './running-attempts.service';

const quietLogger = { log() {}, warn() {}, error() {}, debug() {}, verbose() {} };
const startedAt = Date.parse('2026-01-01T00:00:00.000Z');
const restartedAt = startedAt + 5_000;

async function engineOver(store: EventStore, recover = true): Promise<TestingModule> {
  const module = await Test.createTestingModule({
    imports: [
      EngineModule.forRoot({
        store,
        settings: { tokenizer: 'chars4' },
        environment: {},
        clock: { now: () => restartedAt },
        recoverInterruptedAttempts: recover,
      }),
    ],
  })
    .setLogger(quietLogger)
    .compile();
  await module.init();
  return module;
}

/** A session with an open compaction, an open branch summary and a compaction that ended. */
async function storeWithOpenAttempts(): Promise<EventStore> {
  const store = new InMemoryEventStore();
  const builder = session({ sessionId: 'crashed' }).user('One').assistant('Two').user('Three');
  const [first, , third] = builder.entries;
  const writer = await engineOver(store, false);
  const streams = writer.get(SessionStreams);
  await streams.execute('crashed', [
    { type: 'StartSession', data: { header: builder.header } },
    { type: 'AppendEntries', data: { entries: builder.entries } },
    {
      type: 'StartCompaction',
      data: {
        attemptId: 'ended',
        trigger: 'manual',
        preparedAtLeafId: third!.id,
        tokensBefore: 0,
        startedAt,
      },
    },
    { type: 'SkipCompaction', data: { attemptId: 'ended', reason: 'nothing to do', durationMs: 1 } },
    {
      type: 'StartCompaction',
      data: {
        attemptId: 'open-compaction',
        trigger: 'manual',
        preparedAtLeafId: third!.id,
        tokensBefore: 9,
        startedAt,
      },
    },
    {
      type: 'StartBranchSummary',
      data: { attemptId: 'open-branch', targetId: first!.id, oldLeafId: third!.id, startedAt },
    },
    {
      type: 'StartCompaction',
      data: {
        attemptId: 'open-automatic',
        trigger: 'threshold',
        preparedAtLeafId: third!.id,
        tokensBefore: 9,
        startedAt,
      },
    },
  ]);
  await writer.close();
  return store;
}

describe('given a store holding attempts a stopped engine left open', () => {
  it('leaves an automatic compaction open at start-up, for its redelivered trigger to take up, and ends it when asked', async () => {
    const store = await storeWithOpenAttempts();
    const engine = await engineOver(store);
    const ended = await engine.get(InterruptedAttempts).endOpenAttempts('automatic');
    expect(ended).toEqual([{ sessionId: 'crashed', attemptId: 'open-automatic', kind: 'compaction' }]);
    const loaded = await loadSession(store, 'crashed');
    expect(loaded.state.openAttempts()).toEqual([]);
    expect(loaded.state.getAttempt('open-automatic')?.outcome).toMatchObject({
      type: 'CompactionFailed',
      data: { error: { code: 'interrupted' } },
    });
    await engine.close();
  });

  it('ends each one as failed (interrupted) when the engine starts, and leaves ended attempts alone', async () => {
    const store = await storeWithOpenAttempts();
    const engine = await engineOver(store);
    const loaded = await loadSession(store, 'crashed');
    expect(loaded.state.openAttempts().map((attempt) => attempt.attemptId)).toEqual(['open-automatic']);
    const error = { code: 'interrupted', message: 'the engine stopped while the attempt was running' };
    expect(loaded.state.getAttempt('open-compaction')?.outcome).toMatchObject({
      type: 'CompactionFailed',
      data: { attemptId: 'open-compaction', error, durationMs: 5_000 },
    });
    expect(loaded.state.getAttempt('open-branch')?.outcome).toMatchObject({
      type: 'BranchSummaryFailed',
      data: { attemptId: 'open-branch', error, durationMs: 5_000 },
    });
    expect(loaded.state.getAttempt('ended')?.outcome?.type).toBe('CompactionSkipped');
    await engine.close();
  });

  it("records each ending with its attempt's correlation id (the id of the start the engine writes)", async () => {
    const store = await storeWithOpenAttempts();
    const engine = await engineOver(store);
    const correlations = new Map<string, unknown>();
    for await (const recorded of store.readStream('session-crashed')) {
      if (recorded.type === 'CompactionFailed' || recorded.type === 'BranchSummaryFailed') {
        const { attemptId } = recorded.data as { attemptId: string };
        correlations.set(attemptId, recorded.metadata['correlationId']);
      }
    }
    expect(Object.fromEntries(correlations)).toEqual({
      'open-compaction': attemptCorrelationId('crashed', 'open-compaction', 'compaction'),
      'open-branch': attemptCorrelationId('crashed', 'open-branch', 'branch_summary'),
    });
    await engine.close();
  });

  it('writes nothing on a second start', async () => {
    const store = await storeWithOpenAttempts();
    await (await engineOver(store)).close();
    const revision = await store.streamRevision('session-crashed');
    const again = await engineOver(store);
    expect(await again.get(InterruptedAttempts).endOpenAttempts('requested')).toEqual([]);
    expect(await store.streamRevision('session-crashed')).toBe(revision);
    await again.close();
  });

  it('leaves an attempt running in this process alone', async () => {
    const store = await storeWithOpenAttempts();
    const engine = await engineOver(store, false);
    let finish: () => void = () => undefined;
    const running = engine
      .get(RunningAttempts)
      .run(
        'crashed',
        'open-compaction',
        'compaction',
        () => new Promise<void>((resolve) => (finish = resolve)),
      );
    const ended = await engine.get(InterruptedAttempts).endOpenAttempts('requested');
    expect(ended).toEqual([{ sessionId: 'crashed', attemptId: 'open-branch', kind: 'branch_summary' }]);
    expect((await loadSession(store, 'crashed')).state.getAttempt('open-compaction')?.outcome).toBeNull();
    finish();
    await running;
    await engine.close();
  });

  it('leaves every attempt open when recovery is turned off', async () => {
    const store = await storeWithOpenAttempts();
    const engine = await engineOver(store, false);
    expect((await loadSession(store, 'crashed')).state.openAttempts()).toHaveLength(3);
    await engine.close();
  });
});
