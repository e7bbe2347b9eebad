// End to end: NavigateSession — the new-leaf rule, branch summaries written at the destination,
// abort, hooks, and a leaf that moves while the summary is made (reference §6.4).
import type { SessionEntry } from '@strata/session';
import { ScriptedSummarizer, session } from '@strata/testing';
import type { SessionTreeEvent } from '../../apps/engine/src/hooks/session-hook.types';
import { AbortCompactionCommand } from '../../apps/engine/src/sessions/abort-compaction/abort-compaction.command';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { NavigateSessionCommand } from '../../apps/engine/src/sessions/navigate-session/navigate-session.command';
import { ManualClock, startEngine, typesOf, type EngineHarness, type HarnessOptions } from './engine-harness';

// e0001 user ─ e0002 assistant ─┬─ e0003 user ─ e0004 assistant(read) ─ e0005 toolResult ─ e0006 assistant (branch A)
//                               └─ e0007 user ─ e0008 assistant (branch B, the leaf)
const builder = session()
  .user('Build a CLI')
  .assistant('Which language?')
  .user('Try Rust first')
  .assistantToolCalls([{ name: 'read', arguments: { path: 'Cargo.toml' } }])
  .toolResult('read', '[package] name = "cli"')
  .assistant('Rust works but the build is slow.');
const branchA = builder.lastId;
builder.branchFrom('e0002').user('Try Go instead').assistant('Go it is.');
const branchB = builder.lastId;
const sessionId = builder.header.id;

/** Each summariser call takes this long on the engine's clock. */
const CALL_MILLIS = 1_200;
const callUsage = { input: 2_000, output: 150, cacheRead: 0, cacheWrite: 0, totalTokens: 2_150 };
/** The one summary call of a branch summary, as its outcome records it. */
const branchCall = {
  purpose: 'branch',
  summarizer: 'scripted',
  retry: 0,
  model: 'scripted',
  usage: callUsage,
  durationMs: CALL_MILLIS,
};

describe('navigation', () => {
  let engine: EngineHarness;
  let summarizer: ScriptedSummarizer;
  let clock: ManualClock;

  async function start(options: HarnessOptions = {}): Promise<void> {
    clock = new ManualClock();
    summarizer = new ScriptedSummarizer({
      usage: { input: callUsage.input, output: callUsage.output },
      reply: (request, index) => {
        clock.advance(CALL_MILLIS);
        return `Scripted ${request.purpose} summary ${index + 1}`;
      },
    });
    engine = await startEngine({
      summarizers: [summarizer],
      settings: { branchSummary: { enabled: true } },
      clock,
      ...options,
    });
    await engine.seed(builder.header, builder.entries);
  }

  /** The data of the session's last event of this type. */
  async function lastData(type: string): Promise<unknown> {
    return (await engine.events(sessionId)).filter((event) => event.type === type).at(-1)?.data;
  }

  afterEach(() => engine.close());

  describe('given branch summaries enabled', () => {
    beforeEach(() => start());

    it('summarises the branch left behind and attaches the summary at the destination', async () => {
      const before = (await engine.events(sessionId)).length;
      const result = await engine.commands.execute(
        new NavigateSessionCommand(sessionId, branchA, { summarize: true }),
      );

      expect(result.outcome).toBe('navigated');
      if (result.outcome !== 'navigated') return;
      const entry = result.summary?.entry;
      expect(entry).toMatchObject({ type: 'branch_summary', parentId: branchA, fromId: branchB });
      expect(result.leafId).toBe(entry?.id);
      expect(typesOf(await engine.events(sessionId), before)).toEqual([
        'BranchSummaryStarted',
        'LeafMoved',
        'EntryAppended',
        'BranchSummaryCompleted',
      ]);
      expect(await lastData('BranchSummaryCompleted')).toEqual({
        attemptId: result.summary?.attemptId,
        entryId: entry?.id,
        newLeafId: branchA,
        targetId: branchA,
        oldLeafId: branchB,
        model: 'scripted',
        usage: callUsage,
        durationMs: CALL_MILLIS,
        summaryCalls: [branchCall],
      });
      const [request] = summarizer.requestsFor('branch');
      expect(request?.prompt).toContain('[User]: Try Go instead');
      expect(entry?.summary).toContain('Scripted branch summary 1');
      const context = await engine.context(sessionId);
      expect(context.messages.at(-1)).toMatchObject({ role: 'branchSummary', fromId: branchB });
    });

    it('records the abandoned leaf as the summary origin (reference defect 21: upstream wrote the destination)', async () => {
      const result = await engine.commands.execute(
        new NavigateSessionCommand(sessionId, 'e0004', { summarize: true }),
      );
      expect(result.outcome === 'navigated' && result.summary?.entry.fromId).toBe(branchB);
    });

    it('lands on the parent of a user-message target and hands its text back for editing', async () => {
      const result = await engine.commands.execute(
        new NavigateSessionCommand(sessionId, 'e0003', { summarize: true }),
      );

      expect(result).toMatchObject({ outcome: 'navigated', editorText: 'Try Rust first' });
      if (result.outcome !== 'navigated') return;
      expect(result.summary?.entry.parentId).toBe('e0002');
    });

    it('persists a move without a summary as LeafMoved (reference defect 22)', async () => {
      const before = (await engine.events(sessionId)).length;
      const result = await engine.commands.execute(new NavigateSessionCommand(sessionId, branchA));

      expect(result).toMatchObject({ outcome: 'navigated', leafId: branchA });
      expect(typesOf(await engine.events(sessionId), before)).toEqual(['LeafMoved']);
      expect((await engine.load(sessionId)).leafId).toBe(branchA);
      expect(summarizer.calls).toHaveLength(0);
    });

    it('does nothing when the target is the current leaf', async () => {
      const result = await engine.commands.execute(
        new NavigateSessionCommand(sessionId, branchB, { summarize: true }),
      );
      expect(result.outcome).toBe('unchanged');
    });

    it('refuses an unknown target', async () => {
      await expect(
        engine.commands.execute(new NavigateSessionCommand(sessionId, 'nowhere')),
      ).rejects.toMatchObject({
        code: 'not_found',
        message: 'Entry nowhere not found',
      });
    });

    describe('when the summary is aborted mid-way', () => {
      it('ends cancelled and leaves the leaf where it was', async () => {
        summarizer.hold();
        const before = (await engine.events(sessionId)).length;
        const running = engine.commands.execute(
          new NavigateSessionCommand(sessionId, branchA, { summarize: true }),
        );
        await summarizer.whenCalled(1);
        clock.advance(700);
        await engine.commands.execute(new AbortCompactionCommand(sessionId, { kind: 'branch_summary' }));
        const result = await running;

        expect(result).toMatchObject({ outcome: 'cancelled', reason: 'aborted', leafId: branchB });
        expect(typesOf(await engine.events(sessionId), before)).toEqual([
          'BranchSummaryStarted',
          'BranchSummaryCancelled',
        ]);
        expect(await lastData('BranchSummaryCancelled')).toEqual({
          attemptId: result.outcome === 'cancelled' ? result.attemptId : undefined,
          reason: 'aborted',
          targetId: branchA,
          oldLeafId: branchB,
          model: 'scripted',
          durationMs: 700,
        });
        expect((await engine.load(sessionId)).leafId).toBe(branchB);
      });
    });

    describe('when the leaf moves on while the summary is made', () => {
      it('does not attach the summary anywhere and ends the attempt stale', async () => {
        summarizer.hold();
        const running = engine.commands.execute(
          new NavigateSessionCommand(sessionId, branchA, { summarize: true }),
        );
        await summarizer.whenCalled(1);
        const late: SessionEntry = {
          type: 'message',
          id: 'late',
          parentId: branchB,
          timestamp: '2026-02-01T00:00:00.000Z',
          message: { role: 'user', content: 'One more thing', timestamp: 1 },
        };
        await engine.commands.execute(new AppendEntriesCommand(sessionId, [late]));
        summarizer.release();
        const result = await running;

        expect(result).toMatchObject({ outcome: 'skipped', reason: 'stale', leafId: 'late' });
        expect(await lastData('BranchSummarySkipped')).toEqual({
          attemptId: result.outcome === 'skipped' ? result.attemptId : undefined,
          reason: 'stale',
          targetId: branchA,
          oldLeafId: branchB,
          model: 'scripted',
          usage: callUsage,
          durationMs: CALL_MILLIS,
          summaryCalls: [branchCall],
        });
        const loaded = await engine.load(sessionId);
        expect(loaded.entries.some((entry) => entry.type === 'branch_summary')).toBe(false);
      });
    });
  });

  describe('given branch summaries disabled (the default)', () => {
    beforeEach(() => start({ settings: {} }));

    it('moves without a summary even when one is asked for, and says why', async () => {
      const result = await engine.commands.execute(
        new NavigateSessionCommand(sessionId, branchA, { summarize: true }),
      );
      expect(result).toMatchObject({ outcome: 'navigated', leafId: branchA, summaryDeclined: 'disabled' });
      expect(summarizer.calls).toHaveLength(0);
    });
  });

  describe('given tree hooks', () => {
    const trees: SessionTreeEvent[] = [];

    it('lets session_before_tree cancel: nothing is written', async () => {
      await start({ hooks: [{ session_before_tree: () => ({ cancel: true }) }] });
      const before = (await engine.events(sessionId)).length;
      const result = await engine.commands.execute(
        new NavigateSessionCommand(sessionId, branchA, { summarize: true }),
      );

      expect(result).toMatchObject({ outcome: 'cancelled', leafId: branchB });
      expect((await engine.events(sessionId)).length).toBe(before);
    });

    it('stores a summary supplied by session_before_tree as fromExtension and tells session_tree', async () => {
      trees.length = 0;
      await start({
        hooks: [
          {
            session_before_tree: ({ preparation }) => ({
              summary: { summary: `Left ${preparation.entriesToSummarize.length} entries behind` },
            }),
            session_tree: (event) => {
              trees.push(event);
            },
          },
        ],
      });
      const result = await engine.commands.execute(
        new NavigateSessionCommand(sessionId, branchA, { summarize: true }),
      );

      expect(result.outcome === 'navigated' && result.summary?.entry).toMatchObject({
        summary: 'Left 2 entries behind',
        fromExtension: true,
      });
      expect(summarizer.calls).toHaveLength(0);
      expect(trees).toEqual([
        expect.objectContaining({ newLeafId: branchA, oldLeafId: branchB, fromExtension: true }),
      ]);
    });
  });
});
