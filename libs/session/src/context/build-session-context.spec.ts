import { session } from '@strata/testing';
import type { SessionEntry } from '../entries/entries';
import type { AgentMessage } from '../entries/messages';
import { buildSessionTree } from '../tree/session-tree';
import { buildSessionContext, isEmptyFailedAnswer, prunedResultNotice } from './build-session-context';
import { convertToLlm } from './convert-to-llm';

const templates = {
  compactionSummaryContext: 'Earlier:\n{{summary}}',
  branchSummaryContext: 'Branch:\n{{summary}}',
};

const ANTHROPIC_OVERFLOW =
  'input length and `max_tokens` exceed context limit: 197733 + 21333 > 200000, decrease input length or `max_tokens` and try again';

function roles(messages: readonly AgentMessage[]): string[] {
  return messages.map((message) => message.role);
}

/** A builder session: u1 a1 u2 a2 (ids e0001–e0004). */
function fourTurns() {
  return session().user('first').assistant('one').user('second').assistant('two');
}

describe('buildSessionContext', () => {
  describe('given no leaf or no entries', () => {
    it('returns the empty context for an explicit null leaf', () => {
      const context = buildSessionContext(fourTurns().entries, null);
      expect(context).toMatchObject({
        messages: [],
        entryIds: [],
        thinkingLevel: 'off',
        models: {},
        leafId: null,
      });
      expect(context).toMatchObject({ injectedTtsrRules: [], mode: 'none', compactionId: null });
    });

    it('returns the empty context for a session without entries', () => {
      expect(buildSessionContext([], undefined).messages).toEqual([]);
      expect(buildSessionContext({ entries: [] }, 'e0001').leafId).toBeNull();
    });
  });

  describe('given a linear session without compaction', () => {
    it('emits every message of the path in order, with the entry behind each', () => {
      const built = fourTurns();
      const context = buildSessionContext(built.entries, built.lastId);
      expect(roles(context.messages)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(context.entryIds).toEqual(['e0001', 'e0002', 'e0003', 'e0004']);
      expect(context.messages[0]).toBe(
        (built.entries[0] as Extract<SessionEntry, { type: 'message' }>).message,
      );
      expect(context.leafId).toBe('e0004');
    });

    it('stops at the given leaf', () => {
      const context = buildSessionContext(fourTurns().entries, 'e0002');
      expect(context.entryIds).toEqual(['e0001', 'e0002']);
    });

    it('accepts a session tree, whose index it reuses', () => {
      const built = fourTurns();
      const tree = buildSessionTree(built.entries);
      expect(buildSessionContext(tree, 'e0003')).toEqual(buildSessionContext(built.entries, 'e0003'));
    });
  });

  describe('given state entries on the path', () => {
    it('keeps the last thinking level and the model of each role, the latest assistant setting default', () => {
      const built = session()
        .thinkingLevelChange('high')
        .modelChange('openai/gpt-5', 'smol')
        .modelChange('openai/gpt-5-pro')
        .user('go')
        .assistant('done', { provider: 'anthropic', model: 'claude-opus-4-5' })
        .thinkingLevelChange('low');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.thinkingLevel).toBe('low');
      expect(context.models).toEqual({ smol: 'openai/gpt-5', default: 'anthropic/claude-opus-4-5' });
    });

    it('lets a model change after the last assistant message set default again', () => {
      const built = session().user('go').assistant('done').modelChange('openai/gpt-5');
      expect(buildSessionContext(built.entries, built.lastId).models).toEqual({ default: 'openai/gpt-5' });
    });

    it('ignores model changes without a model (unmigrated v1 entries)', () => {
      const built = session().user('go');
      const entries: SessionEntry[] = [
        ...built.entries,
        { type: 'model_change', id: 'm1', parentId: 'e0001', timestamp: '2026-01-01T00:00:09.000Z' },
      ];
      expect(buildSessionContext(entries, 'm1').models).toEqual({});
    });

    it('unites injected rules and keeps the last mode (oh-my-pi)', () => {
      const at = '2026-01-01T00:00:00.000Z';
      const entries: SessionEntry[] = [
        { type: 'ttsr_injection', id: 't1', parentId: null, timestamp: at, injectedRules: ['a', 'b'] },
        { type: 'mode_change', id: 'm1', parentId: 't1', timestamp: at, mode: 'plan', data: { step: 1 } },
        { type: 'ttsr_injection', id: 't2', parentId: 'm1', timestamp: at, injectedRules: ['b', 'c'] },
        { type: 'mode_change', id: 'm2', parentId: 't2', timestamp: at, mode: 'act' },
      ];
      const context = buildSessionContext(entries, 'm2');
      expect(context.injectedTtsrRules).toEqual(['a', 'b', 'c']);
      expect(context.mode).toBe('act');
      expect(context.modeData).toBeUndefined();
      expect(buildSessionContext(entries, 't2')).toMatchObject({ mode: 'plan', modeData: { step: 1 } });
    });

    it('never puts labels or custom (extension state) entries into the context', () => {
      const built = session().user('go').label('e0001', 'start').custom('ext', { n: 1 }).assistant('ok');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.entryIds).toEqual(['e0001', 'e0004']);
    });

    it('turns a custom_message entry into a custom message stamped with the entry time', () => {
      const built = session().user('go').customMessage('reminder', 'remember', { display: false });
      const [, custom] = buildSessionContext(built.entries, built.lastId).messages;
      expect(custom).toEqual({
        role: 'custom',
        customType: 'reminder',
        content: 'remember',
        display: false,
        timestamp: Date.parse('2026-01-01T00:00:02.000Z'),
      });
    });
  });

  describe('given a compaction on the path', () => {
    it('opens with its summary, then the kept entries, then everything after it', () => {
      const built = fourTurns()
        .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 1234, summary: 'S1', shortSummary: 'short' })
        .user('third')
        .assistant('three');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.entryIds).toEqual([null, 'e0003', 'e0004', 'e0006', 'e0007']);
      expect(context.messages[0]).toEqual({
        role: 'compactionSummary',
        summary: 'S1',
        shortSummary: 'short',
        tokensBefore: 1234,
        timestamp: Date.parse('2026-01-01T00:00:05.000Z'),
      });
      expect(context.compactionId).toBe('e0005');
      expect(context.repairs.missingFirstKeptEntry).toBeNull();
    });

    it('counts only the latest of several compactions', () => {
      const built = fourTurns()
        .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 100, summary: 'S1' })
        .user('third')
        .assistant('three')
        .compaction({ firstKeptEntryId: 'e0006', tokensBefore: 200, summary: 'S2' })
        .user('fourth');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.entryIds).toEqual([null, 'e0006', 'e0007', 'e0009']);
      expect(context.messages[0]).toMatchObject({
        role: 'compactionSummary',
        summary: 'S2',
        tokensBefore: 200,
      });
      expect(context.messages.filter((message) => message.role === 'compactionSummary')).toHaveLength(1);
    });

    it('keeps everything, with the summary in front, when the first kept entry is the first entry', () => {
      const built = fourTurns().compaction({ firstKeptEntryId: 'e0001', tokensBefore: 10 }).user('next');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.entryIds).toEqual([null, 'e0001', 'e0002', 'e0003', 'e0004', 'e0006']);
    });

    it('keeps nothing before it when its first kept entry is not on the path, and reports that', () => {
      const built = fourTurns().compaction({ firstKeptEntryId: 'nowhere', tokensBefore: 10 }).user('next');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.entryIds).toEqual([null, 'e0006']);
      expect(context.repairs.missingFirstKeptEntry).toEqual({
        compactionId: 'e0005',
        firstKeptEntryId: 'nowhere',
      });
    });

    it('does not look for the first kept entry after the compaction', () => {
      const built = fourTurns().compaction({ firstKeptEntryId: 'e0006', tokensBefore: 10 }).user('next');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.entryIds).toEqual([null, 'e0006']);
      expect(context.repairs.missingFirstKeptEntry).not.toBeNull();
    });

    it('ignores a compaction on another branch', () => {
      const built = fourTurns().compaction({ firstKeptEntryId: 'e0003', tokensBefore: 10 });
      built.branchFrom('e0004').user('elsewhere');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.compactionId).toBeNull();
      expect(context.entryIds).toEqual(['e0001', 'e0002', 'e0003', 'e0004', 'e0006']);
    });
  });

  describe('given a tree with branches', () => {
    // e0001 u, e0002 a, e0003 u (abandoned branch), e0004 a; then back at e0002:
    // e0005 branch summary, e0006 u, e0007 a.
    function branched() {
      const built = session().user('start').assistant('ok').user('try A').assistant('A failed');
      built
        .branchFrom('e0002')
        .branchSummary('e0002', 'Tried A; it failed.')
        .user('try B')
        .assistant('B works');
      return built;
    }

    it('includes the branch summary in its place on the path', () => {
      const context = buildSessionContext(branched().entries, 'e0007');
      expect(context.entryIds).toEqual(['e0001', 'e0002', 'e0005', 'e0006', 'e0007']);
      expect(context.messages[2]).toEqual({
        role: 'branchSummary',
        summary: 'Tried A; it failed.',
        fromId: 'e0002',
        timestamp: Date.parse('2026-01-01T00:00:05.000Z'),
      });
    });

    it('builds the abandoned branch without the summary', () => {
      expect(buildSessionContext(branched().entries, 'e0004').entryIds).toEqual([
        'e0001',
        'e0002',
        'e0003',
        'e0004',
      ]);
    });

    it('skips a branch summary with an empty summary', () => {
      const built = session().user('start');
      built.branchSummary('e0001', '').user('next');
      expect(buildSessionContext(built.entries, built.lastId).entryIds).toEqual(['e0001', 'e0003']);
    });

    it('falls back to the last entry in append order for an unknown or undefined leaf', () => {
      const built = branched();
      built.branchFrom('e0003').assistant('A, second try');
      for (const leaf of ['unknown-id', undefined]) {
        const context = buildSessionContext(built.entries, leaf);
        expect(context.leafId).toBe('e0008');
        expect(context.entryIds).toEqual(['e0001', 'e0002', 'e0003', 'e0008']);
      }
    });

    it('starts the path at an orphan whose parent does not exist', () => {
      const built = fourTurns();
      const orphan = { ...(built.entries[3] as SessionEntry), parentId: 'missing-parent' };
      const entries = [...built.entries.slice(0, 3), orphan];
      const context = buildSessionContext(entries, orphan.id);
      expect(context.messages).toHaveLength(1);
      expect(context.entryIds).toEqual(['e0004']);
    });
    it('stops the walk at a parent cycle instead of looping', () => {
      const built = fourTurns();
      const entries = built.entries.map((entry) =>
        entry.id === 'e0001' ? { ...entry, parentId: 'e0003' } : entry,
      );
      expect(buildSessionContext(entries, 'e0003').entryIds).toEqual(['e0001', 'e0002', 'e0003']);
      const selfParented = [{ ...(built.entries[0] as SessionEntry), parentId: 'e0001' }];
      expect(buildSessionContext(selfParented, 'e0001').entryIds).toEqual(['e0001']);
    });
  });

  describe('given pruning events', () => {
    it('shows a pruned tool result as its notice, with prunedAt set, and leaves the entry untouched', () => {
      const built = session()
        .user('read it')
        .assistantToolCalls([{ name: 'read' }])
        .toolResult('read', 'a very long file')
        .assistant('done');
      const prunedResults = new Map([['e0003', { prunedAt: 99, tokens: 4321 }]]);
      const context = buildSessionContext(built.entries, built.lastId, { prunedResults });
      expect(context.messages[2]).toMatchObject({
        role: 'toolResult',
        toolCallId: 'call_0001',
        prunedAt: 99,
        content: [{ type: 'text', text: '[Output truncated - 4321 tokens]' }],
      });
      expect(prunedResultNotice(7)).toBe('[Output truncated - 7 tokens]');
      const stored = built.entries[2] as Extract<SessionEntry, { type: 'message' }>;
      expect(stored.message).toMatchObject({ content: [{ type: 'text', text: 'a very long file' }] });
      expect(stored.message).not.toHaveProperty('prunedAt');
    });

    it('ignores pruning records for entries that are not tool results', () => {
      const built = fourTurns();
      const prunedResults = new Map([['e0001', { prunedAt: 1, tokens: 1 }]]);
      const context = buildSessionContext(built.entries, built.lastId, { prunedResults });
      expect(context.messages[0]).toBe(
        (built.entries[0] as Extract<SessionEntry, { type: 'message' }>).message,
      );
    });
  });

  describe('given an answer that failed before the model said anything', () => {
    /** u1 a1 u2, then the failed answer (e0004) and the overflow compaction that kept from u2. */
    function recovered() {
      return session()
        .user('first')
        .assistant('one')
        .user('Summarise the logs')
        .assistantContent([], {
          stopReason: 'error',
          errorMessage: ANTHROPIC_OVERFLOW,
          usage: { input: 0, output: 0 },
        })
        .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 197733 });
    }

    it('leaves it out after overflow recovery, in the agent messages and the provider messages', () => {
      const built = recovered();
      const context = buildSessionContext(built.entries, built.lastId);
      expect(roles(context.messages)).toEqual(['compactionSummary', 'user']);
      expect(context.entryIds).toEqual([null, 'e0003']);
      expect(context.repairs.omittedFailedAnswers).toEqual(['e0004']);
      const llm = convertToLlm(context.messages, templates);
      expect(llm.map((message) => message.role)).toEqual(['user', 'user']);
      expect(llm[llm.length - 1]).toMatchObject({ role: 'user', content: 'Summarise the logs' });
    });

    it('keeps it in the log: the entry is still there, and the reference context shows it', () => {
      const built = recovered();
      expect(built.entries.map((entry) => entry.id)).toContain('e0004');
      const reference = buildSessionContext(built.entries, built.lastId, { omitEmptyFailedAnswers: false });
      expect(roles(reference.messages)).toEqual(['compactionSummary', 'user', 'assistant']);
      expect(reference.messages[2]).toMatchObject({ stopReason: 'error', content: [] });
      expect(reference.repairs.omittedFailedAnswers).toEqual([]);
    });

    it('leaves it out once the retried request is answered', () => {
      const built = recovered().assistant('Here is the summary.');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(roles(context.messages)).toEqual(['compactionSummary', 'user', 'assistant']);
      expect(context.entryIds).toEqual([null, 'e0003', built.lastId]);
    });

    it('leaves out an empty failed answer that no compaction followed, wherever it stands', () => {
      const built = session()
        .user('Hello')
        .assistant('', {
          stopReason: 'error',
          errorMessage: '529 overloaded',
          usage: { input: 0, output: 0 },
        })
        .user('Hello again')
        .assistant('Hi.');
      const context = buildSessionContext(built.entries, built.lastId);
      expect(context.entryIds).toEqual(['e0001', 'e0003', 'e0004']);
      expect(context.repairs.omittedFailedAnswers).toEqual(['e0002']);
    });

    it('keeps a failed answer that said something, and an empty answer that did not fail', () => {
      const partial = session()
        .user('Hello')
        .assistant('Half an answer', { stopReason: 'error', errorMessage: 'terminated' });
      expect(buildSessionContext(partial.entries, partial.lastId).entryIds).toEqual(['e0001', 'e0002']);
      const empty = session().user('Hello').assistant('', { stopReason: 'stop' });
      expect(buildSessionContext(empty.entries, empty.lastId).entryIds).toEqual(['e0001', 'e0002']);
      const aborted = session().user('Hello').assistant('', { stopReason: 'aborted' });
      expect(buildSessionContext(aborted.entries, aborted.lastId).entryIds).toEqual(['e0001', 'e0002']);
    });
  });

  describe('isEmptyFailedAnswer', () => {
    const failed = {
      role: 'assistant',
      provider: 'p',
      model: 'm',
      stopReason: 'error',
      timestamp: 1,
    } as const;

    it('counts blank text and thinking as nothing said', () => {
      expect(isEmptyFailedAnswer({ ...failed, content: [] })).toBe(true);
      expect(isEmptyFailedAnswer({ ...failed, content: [{ type: 'text', text: ' \n' }] })).toBe(true);
      expect(isEmptyFailedAnswer({ ...failed, content: [{ type: 'thinking', thinking: '' }] })).toBe(true);
    });

    it('counts a tool call, text or thinking as something said', () => {
      expect(
        isEmptyFailedAnswer({
          ...failed,
          content: [{ type: 'toolCall', id: 'c', name: 'read', arguments: {} }],
        }),
      ).toBe(false);
      expect(isEmptyFailedAnswer({ ...failed, content: [{ type: 'text', text: 'x' }] })).toBe(false);
      expect(isEmptyFailedAnswer({ ...failed, content: [{ type: 'thinking', thinking: 'x' }] })).toBe(false);
      expect(isEmptyFailedAnswer({ role: 'user', content: '', timestamp: 1 })).toBe(false);
    });
  });

  it('builds the same context twice from the same input', () => {
    const built = fourTurns().compaction({ firstKeptEntryId: 'e0003', tokensBefore: 1 }).user('more');
    expect(buildSessionContext(built.entries, built.lastId)).toEqual(
      buildSessionContext(built.entries, built.lastId),
    );
  });
});
