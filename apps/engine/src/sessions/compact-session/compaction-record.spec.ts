import {
  charsPerFourCounter,
  foldSessionEvents,
  type SessionEvent,
  type SessionState,
} from '@strata/session';
import { session } from '@strata/testing';
import { recordCompactionPlan, type CompactionDraft } from './compaction-record';

// e0001 user ─ e0002 assistant ─ e0003 user ─ e0004 assistant ─ e0005 user (leaf)
//                              └ e0006 user (another branch)
const builder = session().user('one').assistant('two').user('three').assistant('four').user('five');
builder.branchFrom('e0002').user('elsewhere');
const stateAt = (leafId: string): SessionState => {
  const events: SessionEvent[] = [
    { type: 'SessionStarted', data: { header: builder.header } },
    ...builder.entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
    { type: 'LeafMoved', data: { leafId, previousLeafId: 'e0006' } },
    {
      type: 'CompactionStarted',
      data: { attemptId: 'a', trigger: 'manual', preparedAtLeafId: 'e0005', tokensBefore: 10, startedAt: 0 },
    },
  ];
  return foldSessionEvents(events);
};
const draft: CompactionDraft = {
  summary: 'S',
  firstKeptEntryId: 'e0003',
  tokensBefore: 10,
  fromExtension: false,
};
const input = {
  attemptId: 'a',
  draft,
  timestamp: '2026-01-01T00:00:00.000Z',
  durationMs: 5,
  counter: charsPerFourCounter,
};

describe('recording a prepared compaction', () => {
  describe('given the first kept entry is still on the current path', () => {
    const state = stateAt('e0005');
    const prepared = { leafId: 'e0005', firstKeptEntryId: 'e0003', previousCompactionId: undefined };

    it('attaches the entry under the current leaf with the estimate after', () => {
      const [command] = recordCompactionPlan({ ...input, preparedAgainst: prepared })(state);
      expect(command).toMatchObject({
        type: 'RecordCompaction',
        data: { attemptId: 'a', entry: { parentId: 'e0005', firstKeptEntryId: 'e0003' }, durationMs: 5 },
      });
      expect(command?.type === 'RecordCompaction' && command.data.estimatedTokensAfter).toBeGreaterThan(0);
    });
  });

  describe('given the leaf moved on to an entry appended after the one it was prepared at', () => {
    it('decides nothing (the writer goes on from its own entry, not from a compaction)', () => {
      const prepared = { leafId: 'e0004', firstKeptEntryId: 'e0003', previousCompactionId: undefined };
      expect(recordCompactionPlan({ ...input, preparedAgainst: prepared })(stateAt('e0005'))).toEqual([]);
    });
  });

  describe('given the leaf moved to a branch without the first kept entry', () => {
    it('decides nothing', () => {
      const prepared = { leafId: 'e0005', firstKeptEntryId: 'e0003', previousCompactionId: undefined };
      expect(recordCompactionPlan({ ...input, preparedAgainst: prepared })(stateAt('e0006'))).toEqual([]);
    });
  });

  describe('given a newer compaction than the one it was prepared against', () => {
    it('decides nothing', () => {
      const prepared = { leafId: 'e0005', firstKeptEntryId: 'e0003', previousCompactionId: 'older' };
      expect(recordCompactionPlan({ ...input, preparedAgainst: prepared })(stateAt('e0005'))).toEqual([]);
    });
  });
});
