// End to end: the compaction hooks (reference §8) around CompactSession — cancelling,
// supplying a compaction (checked, reference defect 23), shaping the prompt, the rules for
// several handlers, provider discovery, and the automatic-compaction notifications.
import { Injectable, Module } from '@nestjs/common';
import type { SessionEntry } from '@strata/session';
import { ScriptedSummarizer, session, type SessionBuilder } from '@strata/testing';
import { SessionHook } from '../../apps/engine/src/hooks/session-hook.decorator';
import type {
  AutoCompactionEndEvent,
  SessionCompactEvent,
  SessionHookHandlers,
} from '../../apps/engine/src/hooks/session-hook.types';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import { startEngine, typesOf, type EngineHarness, type HarnessOptions } from './engine-harness';

function sixTurns(): SessionBuilder {
  const builder = session();
  return builder.editTurns(6);
}

const builder = sixTurns();
const sessionId = builder.header.id;
const firstUserOf = (turn: number): SessionEntry =>
  builder.entries.filter((entry) => entry.type === 'message' && entry.message.role === 'user')[turn]!;
const firstToolResult = builder.entries.find(
  (entry) => entry.type === 'message' && entry.message.role === 'toolResult',
)!;

describe('compaction hooks', () => {
  let engine: EngineHarness;
  let summarizer: ScriptedSummarizer;

  async function start(options: HarnessOptions): Promise<void> {
    summarizer = new ScriptedSummarizer();
    engine = await startEngine({
      summarizers: [summarizer],
      settings: { compaction: { keepRecentTokens: 250 } },
      ...options,
    });
    await engine.seed(builder.header, builder.entries);
  }

  afterEach(() => engine.close());

  describe('given a session_before_compact hook that cancels', () => {
    const later: SessionHookHandlers = { session_before_compact: jest.fn(() => ({ compaction: undefined })) };
    beforeEach(() => start({ hooks: [{ session_before_compact: () => ({ cancel: true }) }, later] }));

    it('ends the attempt cancelled before any summary, and the later handler never runs', async () => {
      const before = (await engine.events(sessionId)).length;
      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

      expect(result).toMatchObject({
        outcome: 'cancelled',
        reason: 'cancelled by a session_before_compact hook',
      });
      const events = await engine.events(sessionId);
      expect(typesOf(events, before)).toEqual(['CompactionStarted', 'CompactionCancelled']);
      const started = events[before]?.data as { tokensBefore?: unknown } | undefined;
      expect(started?.tokensBefore).toBeGreaterThan(0);
      expect(events[before + 1]?.data).toEqual({
        attemptId: result.attemptId,
        reason: 'cancelled by a session_before_compact hook',
        trigger: 'manual',
        model: 'scripted',
        durationMs: expect.any(Number),
        tokensBefore: started?.tokensBefore,
        estimatedTokensAfter: started?.tokensBefore,
      });
      expect(summarizer.calls).toHaveLength(0);
      expect(later.session_before_compact).not.toHaveBeenCalled();
    });
  });

  describe('given a session_before_compact hook that supplies a valid compaction', () => {
    const compacted: SessionCompactEvent[] = [];
    beforeEach(() =>
      start({
        hooks: [
          {
            session_before_compact: () => {
              throw new Error('a broken extension');
            },
          },
          {
            session_before_compact: () => ({
              compaction: {
                summary: 'Summary written by the extension',
                firstKeptEntryId: firstUserOf(4).id,
                tokensBefore: 4321,
                preserveData: { ticket: 'ABC-1' },
              },
            }),
            session_compact: (event) => {
              compacted.push(event);
            },
          },
        ],
      }),
    );

    it('stores it as given, marked fromExtension, without a summariser call (a throwing handler is skipped)', async () => {
      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

      expect(result).toMatchObject({
        outcome: 'completed',
        fromExtension: true,
        model: 'extension',
        entry: {
          summary: 'Summary written by the extension',
          firstKeptEntryId: firstUserOf(4).id,
          tokensBefore: 4321,
          preserveData: { ticket: 'ABC-1' },
          fromExtension: true,
        },
      });
      expect(summarizer.calls).toHaveLength(0);
      expect(compacted).toEqual([expect.objectContaining({ fromExtension: true, sessionId })]);
    });
  });

  describe.each([
    ['a tool result', firstToolResult.id],
    ['an entry that does not exist', 'no-such-entry'],
  ])(
    'given a hook compaction whose first kept entry is %s (reference defect 23)',
    (_what, firstKeptEntryId) => {
      beforeEach(() =>
        start({
          hooks: [
            {
              session_before_compact: () => ({
                compaction: { summary: 'Unusable', firstKeptEntryId, tokensBefore: 1 },
              }),
            },
          ],
        }),
      );

      it('rejects it and compacts as usual (upstream stored it unchecked)', async () => {
        const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

        expect(result).toMatchObject({ outcome: 'completed', fromExtension: false });
        if (result.outcome !== 'completed') return;
        expect(result.entry.summary).not.toBe('Unusable');
        expect(result.entry.firstKeptEntryId).not.toBe(firstKeptEntryId);
        expect(result.entry.fromExtension).toBeUndefined();
        expect(summarizer.requestsFor('history')).toHaveLength(1);
      });
    },
  );

  describe('given session.compacting hooks', () => {
    beforeEach(() =>
      start({
        hooks: [
          { 'session.compacting': () => ({ prompt: 'Overridden by the next handler' }) },
          { 'session.compacting': () => undefined },
          {
            'session.compacting': () => ({
              prompt: 'List every module that changed.',
              context: ['The release is on Friday', 'Module 3 is frozen'],
              preserveData: { release: 'friday' },
            }),
          },
        ],
      }),
    );

    it('uses the last non-empty result: its prompt, its context lines in every request, its data on the entry', async () => {
      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

      const [history] = summarizer.requestsFor('history');
      expect(history?.prompt).toMatch(/List every module that changed\.$/);
      expect(history?.prompt).not.toContain('Overridden by the next handler');
      const bullets =
        '<additional-context>\n- The release is on Friday\n- Module 3 is frozen\n</additional-context>';
      expect(history?.prompt).toContain(bullets);
      expect(summarizer.requestsFor('short')[0]?.prompt).toContain(bullets);
      expect(result).toMatchObject({ outcome: 'completed', entry: { preserveData: { release: 'friday' } } });
    });
  });

  describe('given auto_compaction hooks', () => {
    const starts: unknown[] = [];
    const ends: AutoCompactionEndEvent[] = [];
    beforeEach(() => {
      starts.length = 0;
      ends.length = 0;
      return start({
        hooks: [
          {
            auto_compaction_start: (event) => {
              starts.push(event);
            },
            auto_compaction_end: (event) => {
              ends.push(event);
            },
          },
        ],
      });
    });

    it('stay silent for a manual compaction', async () => {
      await engine.commands.execute(new CompactSessionCommand(sessionId));
      expect([starts, ends]).toEqual([[], []]);
    });

    it('fire once each around a threshold compaction, the end carrying the entry', async () => {
      const result = await engine.commands.execute(
        new CompactSessionCommand(sessionId, { trigger: 'threshold', attemptId: 'auto-1' }),
      );
      await engine.commands.execute(
        new CompactSessionCommand(sessionId, { trigger: 'threshold', attemptId: 'auto-1' }),
      );

      expect(starts).toEqual([{ sessionId, attemptId: 'auto-1', reason: 'threshold' }]);
      expect(ends).toEqual([
        expect.objectContaining({
          reason: 'threshold',
          aborted: false,
          willRetry: false,
          result: result.outcome === 'completed' ? result.entry : null,
        }),
      ]);
    });

    it('end a threshold attempt that had nothing to do as skipped, not as a failure (reference defect 8)', async () => {
      await engine.commands.execute(new CompactSessionCommand(sessionId, { trigger: 'threshold' }));
      await engine.commands.execute(new CompactSessionCommand(sessionId, { trigger: 'threshold' }));

      expect(ends[1]).toEqual(
        expect.objectContaining({ aborted: false, willRetry: false, skippedReason: 'already_compacted' }),
      );
      expect(ends[1]?.errorMessage).toBeUndefined();
      expect(ends[1]?.result).toBeUndefined();
    });

    it('announce a retry after an overflow compaction', async () => {
      await engine.commands.execute(new CompactSessionCommand(sessionId, { trigger: 'overflow' }));
      expect(ends).toEqual([
        expect.objectContaining({ reason: 'overflow', willRetry: true, aborted: false }),
      ]);
    });
  });
});

@SessionHook({ order: -1 })
@Injectable()
class CancellingHooks implements SessionHookHandlers {
  readonly seen: string[] = [];
  session_before_compact(event: { attemptId: string }): { cancel: boolean } {
    this.seen.push(event.attemptId);
    return { cancel: true };
  }
}

@Module({ providers: [CancellingHooks] })
class ExtensionModule {}

describe('given a hook provider declared in another module with @SessionHook()', () => {
  let engine: EngineHarness;

  beforeEach(async () => {
    engine = await startEngine({
      summarizers: [new ScriptedSummarizer()],
      settings: { compaction: { keepRecentTokens: 250 } },
      imports: [ExtensionModule],
    });
    await engine.seed(builder.header, builder.entries);
  });

  afterEach(() => engine.close());

  it('is discovered at start-up and runs', async () => {
    const result = await engine.commands.execute(
      new CompactSessionCommand(sessionId, { attemptId: 'found' }),
    );
    expect(result.outcome).toBe('cancelled');
    expect(engine.module.get(CancellingHooks).seen).toEqual(['found']);
  });
});
