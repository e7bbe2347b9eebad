// End to end: CompactSession through the command bus on a SQLite store, with a scripted
// summariser standing in for the model.
import { TURN_CONTEXT_HEADING, charsPerFourCounter, estimateMessageTokens } from '@strata/session';
import { SummarizerError } from '@strata/summarizer';
import { ScriptedSummarizer, session, type SessionBuilder } from '@strata/testing';
import type { CompactionResult } from '../../apps/engine/src/sessions/compact-session/compaction-result';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import { startEngine, typesOf, type EngineHarness } from './engine-harness';

/** Six turns, each editing one file with a 400-character tool result. */
function sixTurns(builder: SessionBuilder = session()): SessionBuilder {
  return builder.editTurns(6);
}

function completed(result: CompactionResult): Extract<CompactionResult, { outcome: 'completed' }> {
  if (result.outcome !== 'completed')
    throw new Error(`expected a completed compaction, got ${JSON.stringify(result)}`);
  return result;
}

describe('given a session of six edit turns', () => {
  const builder = sixTurns();
  const sessionId = builder.header.id;
  let engine: EngineHarness;
  let summarizer: ScriptedSummarizer;

  beforeEach(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startEngine({
      summarizers: [summarizer],
      settings: { compaction: { keepRecentTokens: 250 } },
    });
    await engine.seed(builder.header, builder.entries);
  });

  afterEach(() => engine.close());

  describe('when it is compacted by hand with instructions', () => {
    it('sends the instructions as additional focus and records start, entry and completion', async () => {
      const before = (await engine.events(sessionId)).length;
      const result = completed(
        await engine.commands.execute(
          new CompactSessionCommand(sessionId, { customInstructions: 'Keep the module numbering' }),
        ),
      );

      const [history] = summarizer.requestsFor('history');
      expect(history?.prompt).toMatch(/Additional focus: Keep the module numbering$/);
      expect(typesOf(await engine.events(sessionId), before)).toEqual([
        'CompactionStarted',
        'EntryAppended',
        'CompactionCompleted',
      ]);
      expect(result).toMatchObject({ trigger: 'manual', model: 'scripted', redelivered: false });
      expect(result.tokensBefore).toBeGreaterThan(0);
      expect(result.estimatedTokensAfter).toBeLessThan(result.tokensBefore);
    });

    it('stores the summary with the short summary and the modified files, and opens the context with it', async () => {
      const { entry } = completed(await engine.commands.execute(new CompactSessionCommand(sessionId)));

      expect(entry.summary).toContain('Scripted history summary 1');
      expect(entry.summary).toMatch(/<modified-files>\nsrc\/module-0\.ts/);
      expect(entry.shortSummary).toMatch(/^Scripted short summary \d+$/);
      expect(entry.parentId).toBe(builder.lastId);
      const context = await engine.context(sessionId);
      expect(context.compactionId).toBe(entry.id);
      expect(context.messages[0]).toMatchObject({ role: 'compactionSummary', summary: entry.summary });
    });
  });

  describe('when a compaction is asked for twice under the same attempt id', () => {
    it('writes it once and answers the redelivery with the recorded outcome', async () => {
      const first = completed(
        await engine.commands.execute(new CompactSessionCommand(sessionId, { attemptId: 'attempt-1' })),
      );
      const written = (await engine.events(sessionId)).length;
      const calls = summarizer.calls.length;
      const again = completed(
        await engine.commands.execute(new CompactSessionCommand(sessionId, { attemptId: 'attempt-1' })),
      );

      expect((await engine.events(sessionId)).length).toBe(written);
      expect(again.redelivered).toBe(true);
      expect(again.entry).toEqual(first.entry);
      expect(summarizer.calls).toHaveLength(calls);
    });

    it('runs it once when the second command arrives while the first is still running', async () => {
      summarizer.hold();
      const first = engine.commands.execute(new CompactSessionCommand(sessionId, { attemptId: 'attempt-2' }));
      await summarizer.whenCalled(1);
      const second = engine.commands.execute(
        new CompactSessionCommand(sessionId, { attemptId: 'attempt-2' }),
      );
      summarizer.release();
      const [one, two] = await Promise.all([first, second]);

      expect(two).toEqual(one);
      const types = typesOf(await engine.events(sessionId));
      expect(types.filter((type) => type === 'CompactionCompleted')).toHaveLength(1);
    });
  });
});

describe('given a summariser that fails the short summary', () => {
  const builder = sixTurns();
  const sessionId = builder.header.id;
  let engine: EngineHarness;

  beforeEach(async () => {
    const summarizer = new ScriptedSummarizer({
      reply: (request, index) =>
        request.purpose === 'short'
          ? new SummarizerError({
              code: 'server_error',
              message: 'short summary unavailable',
              summarizer: 'scripted',
            })
          : `Summary ${index}`,
    });
    engine = await startEngine({
      summarizers: [summarizer],
      settings: { compaction: { keepRecentTokens: 250 }, summarizer: { retry: { maxRetries: 0 } } },
    });
    await engine.seed(builder.header, builder.entries);
  });

  afterEach(() => engine.close());

  it('still completes, without a short summary (reference defect 11: upstream failed the whole compaction)', async () => {
    const { entry } = completed(await engine.commands.execute(new CompactSessionCommand(sessionId)));
    expect(entry.summary).toContain('Summary 0');
    expect(entry.shortSummary).toBeUndefined();
  });
});

describe('given one long turn whose tool rounds exceed the keep budget', () => {
  const builder = session().user('Refactor the parser in src/parser.ts');
  for (let round = 0; round < 8; round += 1) {
    builder
      .assistantToolCalls([{ name: 'edit', arguments: { path: `src/parser-${round}.ts` } }])
      .toolResult('edit', 'y'.repeat(600));
  }
  builder.assistant('The parser is refactored.');
  const sessionId = builder.header.id;
  let engine: EngineHarness;
  let summarizer: ScriptedSummarizer;

  beforeEach(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startEngine({
      summarizers: [summarizer],
      settings: { compaction: { keepRecentTokens: 400 } },
    });
    await engine.seed(builder.header, builder.entries);
  });

  afterEach(() => engine.close());

  it('summarises the turn prefix separately and keeps the turn suffix (a split-turn compaction)', async () => {
    const { entry } = completed(await engine.commands.execute(new CompactSessionCommand(sessionId)));

    expect(summarizer.requestsFor('turn_prefix')).toHaveLength(1);
    expect(summarizer.requestsFor('turn_prefix')[0]?.prompt).toContain(
      'Refactor the parser in src/parser.ts',
    );
    expect(entry.summary).toContain(TURN_CONTEXT_HEADING);
    expect(entry.summary).toContain('Scripted turn_prefix summary');
    const kept = builder.entries.find((candidate) => candidate.id === entry.firstKeptEntryId);
    expect(kept?.type === 'message' && kept.message.role).toBe('assistant');
    const context = await engine.context(sessionId);
    expect(context.messages.map((message) => message.role).slice(0, 2)).toEqual([
      'compactionSummary',
      'assistant',
    ]);
  });
});

describe('given a session that fits the keep budget', () => {
  const builder = sixTurns();
  const sessionId = builder.header.id;
  let engine: EngineHarness;
  let summarizer: ScriptedSummarizer;

  beforeEach(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startEngine({ summarizers: [summarizer] });
    await engine.seed(builder.header, builder.entries);
  });

  afterEach(() => engine.close());

  it('ends the attempt skipped without calling a summariser (reference defect 17)', async () => {
    const before = (await engine.events(sessionId)).length;
    const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

    expect(result).toMatchObject({ outcome: 'skipped', reason: 'nothing_to_summarize' });
    expect(summarizer.calls).toHaveLength(0);
    const events = await engine.events(sessionId);
    expect(typesOf(events, before)).toEqual(['CompactionStarted', 'CompactionSkipped']);
    const contextTokens = (await engine.context(sessionId)).messages.reduce(
      (total, message) => total + estimateMessageTokens(message, charsPerFourCounter),
      0,
    );
    expect(contextTokens).toBeGreaterThan(0);
    expect(events[before]?.data).toMatchObject({ trigger: 'manual', tokensBefore: contextTokens });
    expect(events[before + 1]?.data).toEqual({
      attemptId: result.attemptId,
      reason: 'nothing_to_summarize',
      trigger: 'manual',
      model: 'scripted',
      durationMs: expect.any(Number),
      tokensBefore: contextTokens,
      estimatedTokensAfter: contextTokens,
    });
  });
});
