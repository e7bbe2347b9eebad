// End to end: a compaction is prepared at one leaf and written after the summariser answers
// (issue 4 part 3), under that leaf only (issue 13). Abort mid-way, entries appended meanwhile,
// and the leaf moving to another branch meanwhile.
import type { SessionEntry } from '@strata/session';
import { ScriptedSummarizer, session } from '@strata/testing';
import { AbortCompactionCommand } from '../../apps/engine/src/sessions/abort-compaction/abort-compaction.command';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import { NavigateSessionCommand } from '../../apps/engine/src/sessions/navigate-session/navigate-session.command';
import { ManualClock, startEngine, typesOf, type EngineHarness } from './engine-harness';

const TIMESTAMP = '2026-02-01T00:00:00.000Z';

/** A user message and an assistant answer appended at `parentId`. */
function exchange(prefix: string, parentId: string, text: string): SessionEntry[] {
  return [
    {
      type: 'message',
      id: `${prefix}-user`,
      parentId,
      timestamp: TIMESTAMP,
      message: { role: 'user', content: text, timestamp: 1 },
    },
    {
      type: 'message',
      id: `${prefix}-assistant`,
      parentId: `${prefix}-user`,
      timestamp: TIMESTAMP,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `Answer to ${text}` }],
        provider: 'test',
        model: 'model',
        stopReason: 'stop',
        timestamp: 2,
      },
    },
  ];
}

/** Two branches from the first turn, each long enough to compact; the leaf ends on branch B. */
function twoBranches() {
  const builder = session().user('Set up the project').assistant('Set up.');
  const forkId = builder.lastId;
  const turns = (label: string) => {
    for (let turn = 0; turn < 5; turn += 1) {
      builder
        .user(`${label} step ${turn}: edit src/${label}-${turn}.ts`)
        .assistantToolCalls([{ name: 'edit', arguments: { path: `src/${label}-${turn}.ts` } }])
        .toolResult('edit', 'z'.repeat(400))
        .assistant(`${label} step ${turn} done.`);
    }
    return builder.lastId;
  };
  const leafA = turns('a');
  builder.branchFrom(forkId);
  const leafB = turns('b');
  return { builder, leafA, leafB };
}

describe('given a compaction whose summariser is slow', () => {
  const { builder, leafA, leafB } = twoBranches();
  const sessionId = builder.header.id;
  const callUsage = { input: 1_000, output: 100 };
  let engine: EngineHarness;
  let summarizer: ScriptedSummarizer;
  let clock: ManualClock;

  /** The usage of `calls` summariser calls, added up as the session records it. */
  const usageOf = (calls: number) => ({
    input: callUsage.input * calls,
    output: callUsage.output * calls,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: (callUsage.input + callUsage.output) * calls,
  });

  /** The data of the session's last event of this type. */
  async function lastData(type: string): Promise<Record<string, unknown> | undefined> {
    const event = (await engine.events(sessionId)).filter((candidate) => candidate.type === type).at(-1);
    return event?.data as Record<string, unknown> | undefined;
  }

  beforeEach(async () => {
    clock = new ManualClock();
    summarizer = new ScriptedSummarizer({ usage: callUsage });
    engine = await startEngine({
      summarizers: [summarizer],
      settings: { compaction: { keepRecentTokens: 250 } },
      clock,
    });
    await engine.seed(builder.header, builder.entries);
    summarizer.hold();
  });

  afterEach(() => engine.close());

  describe('when the compaction is aborted mid-way', () => {
    it('ends cancelled, and nothing but the start and the cancellation is written', async () => {
      const before = (await engine.events(sessionId)).length;
      const running = engine.commands.execute(new CompactSessionCommand(sessionId, { attemptId: 'slow' }));
      await summarizer.whenCalled(1);
      clock.advance(2_500);
      const aborted = await engine.commands.execute(new AbortCompactionCommand(sessionId));
      const result = await running;

      expect(aborted.abortedAttemptIds).toEqual(['slow']);
      expect(result).toMatchObject({ outcome: 'cancelled', reason: 'aborted' });
      expect(typesOf(await engine.events(sessionId), before)).toEqual([
        'CompactionStarted',
        'CompactionCancelled',
      ]);
      const tokensBefore = (await lastData('CompactionStarted'))?.['tokensBefore'];
      expect(tokensBefore).toEqual(expect.any(Number));
      expect(tokensBefore).toBeGreaterThan(0);
      expect(await lastData('CompactionCancelled')).toEqual({
        attemptId: 'slow',
        reason: 'aborted',
        trigger: 'manual',
        model: 'scripted',
        durationMs: 2_500,
        tokensBefore,
        estimatedTokensAfter: tokensBefore,
      });
      expect(summarizer.calls.every((call) => call.aborted)).toBe(true);
      expect((await engine.load(sessionId)).leafId).toBe(leafB);
    });
  });

  describe('when entries are appended while the summary is being made', () => {
    it('keeps every one of them: the manual attempt prepares again at the newest and attaches there', async () => {
      const running = engine.commands.execute(new CompactSessionCommand(sessionId));
      await summarizer.whenCalled(1);
      const first = exchange('late-1', leafB, 'What about the tests?');
      const second = exchange('late-2', 'late-1-assistant', 'And the docs?');
      await engine.commands.execute(new AppendEntriesCommand(sessionId, first, { expectedLeafId: leafB }));
      await engine.commands.execute(new AppendEntriesCommand(sessionId, second));
      summarizer.release();
      const result = await running;

      expect(result.outcome).toBe('completed');
      if (result.outcome !== 'completed') return;
      expect(result.entry.parentId).toBe('late-2-assistant');
      // The first summary was made at the old leaf: it is stale, and a second one is made.
      expect(summarizer.requestsFor('history').length).toBe(2);
      const loaded = await engine.load(sessionId);
      const ids = loaded.entries.map((entry) => entry.id);
      expect(ids).toEqual(expect.arrayContaining([...first, ...second].map((entry) => entry.id)));
      const context = await engine.context(sessionId);
      const texts = context.messages.map((message) => (message.role === 'user' ? message.content : ''));
      expect(texts).toEqual(expect.arrayContaining(['What about the tests?', 'And the docs?']));
      expect(context.messages[0]?.role).toBe('compactionSummary');
    });
  });

  describe('when an automatic attempt finds the leaf moved on from where its check point saw it', () => {
    it('ends skipped as stale without a summary', async () => {
      summarizer.release();
      const before = (await engine.events(sessionId)).length;
      const result = await engine.commands.execute(
        new CompactSessionCommand(sessionId, { trigger: 'threshold', attemptId: 'late', atLeafId: leafA }),
      );

      expect(result).toMatchObject({ outcome: 'skipped', reason: 'stale', trigger: 'threshold' });
      expect(typesOf(await engine.events(sessionId), before)).toEqual([
        'CompactionStarted',
        'CompactionSkipped',
      ]);
      expect(summarizer.calls).toHaveLength(0);
    });
  });

  describe('when an automatic attempt sees the leaf move on while the summary is being made', () => {
    it('ends skipped as stale at once, without preparing again', async () => {
      const running = engine.commands.execute(
        new CompactSessionCommand(sessionId, { trigger: 'threshold', attemptId: 'moved', atLeafId: leafB }),
      );
      await summarizer.whenCalled(1);
      await engine.commands.execute(
        new AppendEntriesCommand(sessionId, exchange('late-3', leafB, 'One more thing'), {
          expectedLeafId: leafB,
        }),
      );
      summarizer.release();
      const result = await running;

      expect(result).toMatchObject({ outcome: 'skipped', reason: 'stale' });
      expect(summarizer.requestsFor('history')).toHaveLength(1);
      expect((await engine.load(sessionId)).entries.some((entry) => entry.type === 'compaction')).toBe(false);
    });
  });

  describe('when the leaf moves to another branch while the summary is being made', () => {
    it('prepares again on the branch now current and attaches the compaction there', async () => {
      const running = engine.commands.execute(new CompactSessionCommand(sessionId));
      await summarizer.whenCalled(1);
      await engine.commands.execute(new NavigateSessionCommand(sessionId, leafA));
      summarizer.release();
      const result = await running;

      expect(result.outcome).toBe('completed');
      if (result.outcome !== 'completed') return;
      expect(result.entry.parentId).toBe(leafA);
      const loaded = await engine.load(sessionId);
      expect(loaded.state.isOnPathTo(result.entry.firstKeptEntryId, leafA)).toBe(true);
      expect(summarizer.requestsFor('history').length).toBe(2);
      expect(result.usage).toEqual(usageOf(summarizer.calls.length));
      expect(summarizer.requestsFor('history')[1]?.prompt).toContain('a step 0');
    });

    it('ends skipped as stale when the leaf moves away again while it prepares the second time', async () => {
      summarizer.release();
      const navigator = new ScriptedSummarizer({
        usage: callUsage,
        reply: async (request, index) => {
          clock.advance(1_000);
          if (request.purpose === 'history') {
            const target = index === 0 ? leafA : leafB;
            await engine.commands.execute(new NavigateSessionCommand(sessionId, target));
          }
          return `answer ${index}`;
        },
      });
      await engine.close();
      clock = new ManualClock();
      engine = await startEngine({
        summarizers: [navigator],
        settings: { compaction: { keepRecentTokens: 250 } },
        clock,
      });
      await engine.seed(builder.header, builder.entries);
      const before = (await engine.events(sessionId)).length;

      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

      expect(result).toMatchObject({ outcome: 'skipped', reason: 'stale' });
      const types = typesOf(await engine.events(sessionId), before);
      expect(types).toEqual(['CompactionStarted', 'LeafMoved', 'LeafMoved', 'CompactionSkipped']);
      const started = await lastData('CompactionStarted');
      expect(await lastData('CompactionSkipped')).toEqual({
        attemptId: started?.['attemptId'],
        reason: 'stale',
        trigger: 'manual',
        model: 'scripted',
        usage: usageOf(navigator.calls.length),
        durationMs: 1_000 * navigator.calls.length,
        tokensBefore: started?.['tokensBefore'],
        estimatedTokensAfter: started?.['tokensBefore'],
        summaryCalls: expect.any(Array),
      });
      // Both rounds' calls are listed, each with its own usage and duration; the usage above is their sum.
      const skipped = (await lastData('CompactionSkipped')) as { summaryCalls: unknown[] };
      const eachCall: unknown = expect.objectContaining({
        summarizer: 'scripted',
        model: 'scripted',
        usage: expect.objectContaining({ input: callUsage.input }),
        durationMs: expect.any(Number),
      });
      expect(skipped.summaryCalls).toEqual(navigator.calls.map(() => eachCall));
      expect((await engine.load(sessionId)).entries.some((entry) => entry.type === 'compaction')).toBe(false);
    });
  });
});
