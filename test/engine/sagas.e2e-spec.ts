// End to end: the sagas consume the SQLite store's subscription through the Nest testing
// module — threshold compaction with and without auto-continue, overflow recovery with one
// retry, pruning recorded as an event, stale usage, and compaction disabled.
import type { RecordedEvent } from '@strata/event-store';
import { AUTO_CONTINUE_PROMPT } from '@strata/session';
import { ScriptedSummarizer, session, type SessionBuilder } from '@strata/testing';
import type {
  AutoCompactionEndEvent,
  AutoCompactionStartEvent,
} from '../../apps/engine/src/hooks/session-hook.types';
import { autoCompactionAttemptId } from '../../apps/engine/src/sagas/saga-ids';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import { assistantEntry, startSagaEngine, usageOf, userEntry, type SagaHarness } from './sagas-harness';

/** A 10,000-token window with a 2,000-token reserve: compaction above 8,000 tokens. */
const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
  models: { defaultContextWindow: 10000 },
} satisfies EngineSettingsInput;
const OVERFLOW_ERROR = 'prompt is too long: 12000 tokens > 10000 maximum';

/** Six turns editing one file each; every answer reports well under the threshold. */
function sixTurns(builder: SessionBuilder = session()): SessionBuilder {
  return builder.editTurns(6);
}

function ofType(events: readonly RecordedEvent[], type: string): RecordedEvent[] {
  return events.filter((event) => event.type === type);
}

interface Started {
  readonly engine: SagaHarness;
  readonly summarizer: ScriptedSummarizer;
  readonly starts: AutoCompactionStartEvent[];
  readonly ends: AutoCompactionEndEvent[];
}

async function started(builder: SessionBuilder, overrides: EngineSettingsInput = {}): Promise<Started> {
  const summarizer = new ScriptedSummarizer();
  const starts: AutoCompactionStartEvent[] = [];
  const ends: AutoCompactionEndEvent[] = [];
  const engine = await startSagaEngine({
    summarizers: [summarizer],
    settings: {
      ...settings,
      ...overrides,
      compaction: { ...settings.compaction, ...overrides.compaction },
    },
    hooks: [
      {
        auto_compaction_start: (event) => void starts.push(event),
        auto_compaction_end: (event) => void ends.push(event),
      },
    ],
  });
  await engine.seed(builder.header, builder.entries);
  await engine.runner.drain();
  return { engine, summarizer, starts, ends };
}

describe('given a running saga runner and a session under the threshold', () => {
  const builder = sixTurns();
  const sessionId = builder.header.id;
  let setup: Started;

  afterEach(() => setup.engine.close());

  describe('when an answer reports a context above the window minus the reserve', () => {
    it('compacts with the threshold trigger and asks to continue with the synthetic prompt', async () => {
      setup = await started(builder);
      const { engine } = setup;
      const before = (await engine.events(sessionId)).length;
      expect(await engine.eventTypes(sessionId)).not.toContain('CompactionStarted');

      await engine.appendAtLeaf(sessionId, [
        userEntry('Next step'),
        assistantEntry({ usage: usageOf(8500) }),
      ]);
      await engine.runner.drain();

      const events = await engine.events(sessionId);
      expect(await engine.eventTypes(sessionId, before)).toEqual([
        'EntryAppended',
        'EntryAppended',
        'CompactionStarted',
        'EntryAppended',
        'CompactionCompleted',
        'ContinuationRequested',
      ]);
      const answerEventId = events[before + 1]!.id;
      const attemptId = autoCompactionAttemptId(answerEventId, 'threshold');
      expect(events[before + 2]!.data).toMatchObject({ attemptId, trigger: 'threshold' });
      expect(events[before + 5]!.data).toMatchObject({
        reason: 'auto_continue',
        causationAttemptId: attemptId,
        message: { role: 'user', content: AUTO_CONTINUE_PROMPT, synthetic: true },
      });
      expect(setup.starts).toEqual([{ sessionId, attemptId, reason: 'threshold' }]);
      expect(setup.ends).toMatchObject([
        { attemptId, reason: 'threshold', aborted: false, willRetry: false },
      ]);
      const context = await engine.context(sessionId);
      expect(context.messages[0]).toMatchObject({ role: 'compactionSummary' });
    });

    it('requests no continuation when auto-continue is off', async () => {
      setup = await started(builder, { compaction: { autoContinue: false } });
      const { engine } = setup;
      const before = (await engine.events(sessionId)).length;

      await engine.appendAtLeaf(sessionId, [
        userEntry('Next step'),
        assistantEntry({ usage: usageOf(8500) }),
      ]);
      await engine.runner.drain();

      const types = await engine.eventTypes(sessionId, before);
      expect(types).toContain('CompactionCompleted');
      expect(types).not.toContain('ContinuationRequested');
    });

    it('does nothing when compaction is disabled', async () => {
      setup = await started(builder, { compaction: { enabled: false } });
      const { engine } = setup;
      const before = (await engine.events(sessionId)).length;

      await engine.appendAtLeaf(sessionId, [
        userEntry('Next step'),
        assistantEntry({ usage: usageOf(9900) }),
      ]);
      await engine.appendAtLeaf(sessionId, [
        assistantEntry({ stopReason: 'error', errorMessage: OVERFLOW_ERROR }),
      ]);
      await engine.runner.drain();

      expect(await engine.eventTypes(sessionId, before)).toEqual([
        'EntryAppended',
        'EntryAppended',
        'EntryAppended',
      ]);
      expect(setup.starts).toEqual([]);
    });
  });

  describe('when an answer fails with a context overflow of the current model', () => {
    it('compacts once, asks for the retry, and does not compact again when the retry overflows too', async () => {
      setup = await started(builder);
      const { engine } = setup;
      const before = (await engine.events(sessionId)).length;

      await engine.appendAtLeaf(sessionId, [
        userEntry('Read every log file'),
        assistantEntry({ stopReason: 'error', errorMessage: OVERFLOW_ERROR }),
      ]);
      await engine.runner.drain();

      const events = await engine.events(sessionId);
      expect(await engine.eventTypes(sessionId, before)).toEqual([
        'EntryAppended',
        'EntryAppended',
        'CompactionStarted',
        'EntryAppended',
        'CompactionCompleted',
        'ContinuationRequested',
      ]);
      const attemptId = autoCompactionAttemptId(events[before + 1]!.id, 'overflow');
      expect(events[before + 2]!.data).toMatchObject({ attemptId, trigger: 'overflow' });
      expect(events[before + 5]!.data).toEqual({ reason: 'overflow_retry', causationAttemptId: attemptId });
      expect(setup.ends).toMatchObject([{ attemptId, reason: 'overflow', willRetry: true }]);

      const afterRecovery = events.length;
      await engine.appendAtLeaf(sessionId, [
        assistantEntry({ stopReason: 'error', errorMessage: OVERFLOW_ERROR }),
      ]);
      await engine.runner.drain();

      expect(await engine.eventTypes(sessionId, afterRecovery)).toEqual(['EntryAppended']);
      expect(ofType(await engine.events(sessionId), 'CompactionStarted')).toHaveLength(1);
      expect(setup.starts).toHaveLength(1);
    });
  });
});

describe('given a session whose oldest tool outputs exceed the protected 40,000 tokens', () => {
  const tools = ['bash', 'grep', 'bash', 'bash', 'bash', 'bash', 'bash'];
  const builder = session()
    .user('Run all the checks')
    .assistantToolCalls(tools.map((name) => ({ name })));
  for (const tool of tools) builder.toolResult(tool, `${tool} output `.repeat(4000).slice(0, 40000));
  builder.assistant('All checks ran.');
  const sessionId = builder.header.id;
  let setup: Started;

  afterEach(() => setup.engine.close());

  it('records the pruning as an event and the context shows the notices, the log keeps the outputs', async () => {
    setup = await started(builder, {
      models: { defaultContextWindow: 200000 },
      compaction: { reserveTokens: 16384 },
    });
    const { engine } = setup;

    const pruned = ofType(await engine.events(sessionId), 'ToolOutputsPruned');
    expect(pruned).toHaveLength(1);
    expect(pruned[0]!.data).toMatchObject({
      results: [
        { entryId: 'e0005', tokens: 10000 },
        { entryId: 'e0004', tokens: 10000 },
        { entryId: 'e0003', tokens: 10000 },
      ],
      tokensSaved: 3 * (10000 - 9),
    });
    const context = await engine.context(sessionId);
    const results = context.messages.filter((message) => message.role === 'toolResult');
    expect(results.map((message) => message.content)).toEqual([
      [{ type: 'text', text: '[Output truncated - 10000 tokens]' }],
      [{ type: 'text', text: '[Output truncated - 10000 tokens]' }],
      [{ type: 'text', text: '[Output truncated - 10000 tokens]' }],
      ...builder.entries.slice(5, 9).map((entry) => (entry.type === 'message' ? entry.message.content : [])),
    ]);
    const stored = (await engine.load(sessionId)).entries.find((entry) => entry.id === 'e0003');
    const storedText = stored?.type === 'message' ? JSON.stringify(stored.message.content) : '';
    expect(storedText).toContain('bash output bash output');
    expect(storedText.length).toBeGreaterThan(40000);
    expect(ofType(await engine.events(sessionId), 'CompactionStarted')).toEqual([]);
  });
});

describe('given an answer above the threshold that a compaction made stale before the runner saw it', () => {
  const builder = sixTurns()
    .user('One more step')
    .assistant('Done.', { usage: usageOf(8500) });
  const sessionId = builder.header.id;
  let engine: SagaHarness;

  beforeEach(async () => {
    engine = await startSagaEngine({
      summarizers: [new ScriptedSummarizer()],
      settings,
      sagas: { autoStart: false },
    });
    await engine.seed(builder.header, builder.entries);
    await engine.commands.execute(new CompactSessionCommand(sessionId));
  });

  afterEach(() => engine.close());

  it('does not compact again on its old usage (reference defect 8)', async () => {
    const before = (await engine.events(sessionId)).length;

    await engine.runner.start();
    await engine.runner.drain();

    expect(await engine.eventTypes(sessionId, before)).toEqual([]);
    expect(ofType(await engine.events(sessionId), 'CompactionStarted')).toHaveLength(1);
    expect(engine.runner.status()).toMatchObject({ state: 'live', eventsGivenUp: 0 });
  });
});
