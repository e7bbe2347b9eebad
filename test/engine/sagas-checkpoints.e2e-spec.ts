// End to end: the saga runner's checkpoint on the SQLite store. Replaying the subscription from
// the start (checkpoint reset) compacts nothing twice — neither a completed attempt nor a
// failed one — and a restarted runner resumes after its stored checkpoint.
import { SummarizerError } from '@strata/summarizer';
import { ScriptedSummarizer, session, type SessionBuilder } from '@strata/testing';
import { autoCompactionAttemptId } from '../../apps/engine/src/sagas/saga-ids';
import {
  SAGA_CHECKPOINT_ID as DEFAULT_SAGA_SUBSCRIBER_ID,
  SAGA_EVENT_TYPES,
} from '../../apps/engine/src/sagas/saga-processor';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import { assistantEntry, startSagaEngine, usageOf, userEntry, type SagaHarness } from './sagas-harness';

const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
  models: { defaultContextWindow: 10000 },
  summarizer: { retry: { maxRetries: 0 } },
} satisfies EngineSettingsInput;

/** Six edit turns, then an answer above the 8,000-token threshold. */
function overThreshold(): SessionBuilder {
  const builder = session();
  builder.editTurns(6);
  return builder.user('One more step').assistant('Done.', { usage: usageOf(8500) });
}

async function replayFromTheStart(engine: SagaHarness): Promise<void> {
  await engine.runner.stop();
  await engine.checkpoints.store(DEFAULT_SAGA_SUBSCRIBER_ID, -1n);
  await engine.runner.start();
  await engine.runner.drain();
}

function count(types: readonly string[], type: string): number {
  return types.filter((candidate) => candidate === type).length;
}

describe('given a session the sagas compacted at its threshold', () => {
  const builder = overThreshold();
  const sessionId = builder.header.id;
  let engine: SagaHarness;
  let summarizer: ScriptedSummarizer;

  beforeEach(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startSagaEngine({ summarizers: [summarizer], settings });
    await engine.seed(builder.header, builder.entries);
    await engine.runner.drain();
  });

  afterEach(() => engine.close());

  it('stored its checkpoint in the store once it had handled everything', async () => {
    const types = await engine.eventTypes(sessionId);
    expect(count(types, 'CompactionCompleted')).toBe(1);
    expect(count(types, 'ContinuationRequested')).toBe(1);
    const handled = engine.runner.status().handledPosition;
    expect(handled).not.toBeNull();
    expect(await engine.checkpoints.load(DEFAULT_SAGA_SUBSCRIBER_ID)).toBe(handled);
  });

  describe('when the subscription is replayed from the start', () => {
    it('writes nothing and calls no summariser, although the trigger is delivered again', async () => {
      const written = (await engine.events(sessionId)).length;
      const calls = summarizer.calls.length;

      await replayFromTheStart(engine);

      expect(await engine.events(sessionId)).toHaveLength(written);
      expect(summarizer.calls).toHaveLength(calls);
      expect(engine.runner.status()).toMatchObject({
        state: 'live',
        startedAfter: null,
        eventsGivenUp: 0,
      });
      expect(engine.runner.status().eventsDelivered).toBeGreaterThan(0);
    });
  });

  describe('when the runner restarts after entries were appended while it was stopped', () => {
    it('resumes after its stored checkpoint and handles only the new events', async () => {
      const stored = await engine.checkpoints.load(DEFAULT_SAGA_SUBSCRIBER_ID);
      await engine.runner.stop();
      const [, answerId] = await engine.appendAtLeaf(sessionId, [
        userEntry('Continue'),
        assistantEntry({ usage: usageOf(8600) }),
      ]);

      await engine.runner.start();
      expect(engine.runner.status().startedAfter).toBe(stored);
      await engine.runner.drain();

      const events = await engine.events(sessionId);
      const sagaEventTypes = SAGA_EVENT_TYPES;
      const newSagaEvents = events.filter(
        (event) => stored !== null && event.position > stored && sagaEventTypes.includes(event.type),
      );
      expect(engine.runner.status().eventsSeen).toBe(newSagaEvents.length);
      expect(newSagaEvents.length).toBeLessThan(events.length / 2);
      const started = events.filter((event) => event.type === 'CompactionStarted');
      expect(started).toHaveLength(2);
      const answer = events.find(
        (event) =>
          event.type === 'EntryAppended' && (event.data as { entry: { id: string } }).entry.id === answerId,
      );
      expect(started[1]!.data).toMatchObject({
        trigger: 'threshold',
        attemptId: autoCompactionAttemptId(answer!.id, 'threshold'),
      });
    });
  });
});

describe('given a threshold compaction that failed', () => {
  const builder = overThreshold();
  const sessionId = builder.header.id;
  let engine: SagaHarness;
  let summarizer: ScriptedSummarizer;

  beforeEach(async () => {
    summarizer = new ScriptedSummarizer({
      reply: () =>
        new SummarizerError({
          code: 'authentication_failed',
          message: 'invalid key',
          summarizer: 'scripted',
        }),
    });
    engine = await startSagaEngine({ summarizers: [summarizer], settings });
    await engine.seed(builder.header, builder.entries);
    await engine.runner.drain();
  });

  afterEach(() => engine.close());

  it('ended the attempt with one CompactionFailed and requested no continuation', async () => {
    const types = await engine.eventTypes(sessionId);
    expect(count(types, 'CompactionStarted')).toBe(1);
    expect(count(types, 'CompactionFailed')).toBe(1);
    expect(count(types, 'ContinuationRequested')).toBe(0);
  });

  it('does not run the attempt again when the subscription is replayed from the start', async () => {
    const written = (await engine.events(sessionId)).length;
    const calls = summarizer.calls.length;

    await replayFromTheStart(engine);

    expect(await engine.events(sessionId)).toHaveLength(written);
    expect(summarizer.calls).toHaveLength(calls);
  });
});
