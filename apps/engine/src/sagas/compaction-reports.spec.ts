import { foldSessionEvents, type ActiveSessionState, type SessionEvent } from '@strata/session';
import { session } from '@strata/testing';
import { compactionReportById, latestMessageCompactionIds } from './compaction-reports';

const builder = session({ sessionId: 'reports' }).editTurns(2);
const firstAnswer = builder.entries[3]!.id;
const lastAnswer = builder.lastId;

const history: SessionEvent[] = [
  { type: 'SessionStarted', data: { header: builder.header } },
  ...builder.entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
];

function started(attemptId: string, trigger: 'threshold' | 'overflow', atLeafId: string): SessionEvent {
  return {
    type: 'CompactionStarted',
    data: { attemptId, trigger, preparedAtLeafId: atLeafId, tokensBefore: 1000, startedAt: 1 },
  };
}

function stateOf(events: readonly SessionEvent[]): ActiveSessionState {
  const state = foldSessionEvents([...history, ...events]);
  if (state.status !== 'active') throw new Error('the events start no session');
  return state;
}

describe('compaction reports', () => {
  describe('given an attempt that is still open', () => {
    it('reports no outcome yet and no retry', () => {
      const state = stateOf([started('a1', 'overflow', lastAnswer)]);
      expect(compactionReportById(state, 'a1')).toEqual({
        attemptId: 'a1',
        trigger: 'overflow',
        outcome: null,
        reason: null,
        willRetry: false,
        entryId: null,
      });
    });
  });

  describe('given ended attempts', () => {
    it('reports a completed overflow recovery as a retry, with its compaction entry', () => {
      const compaction = session({ sessionId: 'reports', idPrefix: 'c' });
      compaction.compaction({ firstKeptEntryId: builder.entries[4]!.id, tokensBefore: 1000 });
      const entry = { ...compaction.entries[0]!, parentId: lastAnswer };
      const state = stateOf([
        started('a1', 'overflow', lastAnswer),
        { type: 'EntryAppended', data: { entry } },
        {
          type: 'CompactionCompleted',
          data: {
            attemptId: 'a1',
            entryId: entry.id,
            trigger: 'overflow',
            durationMs: 5,
            tokensBefore: 1000,
            estimatedTokensAfter: 100,
          },
        },
      ]);
      expect(compactionReportById(state, 'a1')).toMatchObject({
        outcome: 'completed',
        reason: null,
        willRetry: true,
        entryId: entry.id,
      });
    });

    it('reports why a skipped attempt did not compact, and the code of a failed one', () => {
      const state = stateOf([
        started('a1', 'overflow', lastAnswer),
        { type: 'CompactionSkipped', data: { attemptId: 'a1', reason: 'nothing_to_summarize' } },
        started('a2', 'threshold', lastAnswer),
        {
          type: 'CompactionFailed',
          data: { attemptId: 'a2', error: { message: 'the summariser timed out', code: 'timeout' } },
        },
      ]);
      expect(compactionReportById(state, 'a1')).toMatchObject({
        outcome: 'skipped',
        reason: 'nothing_to_summarize',
        willRetry: false,
      });
      expect(compactionReportById(state, 'a2')).toMatchObject({ outcome: 'failed', reason: 'timeout' });
    });
  });

  describe('given attempts prepared at several answers', () => {
    it("names those of the session's newest message only", () => {
      const state = stateOf([
        started('older', 'threshold', firstAnswer),
        { type: 'CompactionSkipped', data: { attemptId: 'older', reason: 'stale' } },
        started('newest', 'overflow', lastAnswer),
        { type: 'CompactionSkipped', data: { attemptId: 'newest', reason: 'nothing_to_summarize' } },
      ]);
      expect(latestMessageCompactionIds(state)).toEqual(['newest']);
    });
  });
});
