import { foldSessionEvents, type SessionEvent, type SessionState } from '@strata/session';
import { session } from '@strata/testing';
import {
  STALE_SUMMARY_REASON,
  recordBranchSummaryPlan,
  type BranchSummaryDraft,
} from './branch-summary-record';

// e0001 user ─ e0002 assistant ─┬─ e0003 user (branch A)
//                               └─ e0004 user (branch B)
const builder = session().user('one').assistant('two').user('three');
builder.branchFrom('e0002').user('four');
const stateAt = (leafId: string): SessionState => {
  const events: SessionEvent[] = [
    { type: 'SessionStarted', data: { header: builder.header } },
    ...builder.entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
    { type: 'LeafMoved', data: { leafId, previousLeafId: 'e0004' } },
    {
      type: 'BranchSummaryStarted',
      data: { attemptId: 'b', targetId: 'e0003', oldLeafId: 'e0004', startedAt: 0 },
    },
  ];
  return foldSessionEvents(events);
};
const usage = { input: 800, output: 60, cacheRead: 0, cacheWrite: 0, totalTokens: 860 };
const draft: BranchSummaryDraft = { summary: 'Tried four.', fromExtension: false, model: 'scripted', usage };
const input = {
  attemptId: 'b',
  draft,
  oldLeafId: 'e0004',
  newLeafId: 'e0003',
  timestamp: '2026-01-01T00:00:00.000Z',
  durationMs: 450,
};

describe('recording a branch summary', () => {
  describe('given the leaf is still where navigation started', () => {
    it('attaches the summary at the destination with the model, usage and duration', () => {
      expect(recordBranchSummaryPlan(input)(stateAt('e0004'))).toMatchObject([
        {
          type: 'RecordBranchSummary',
          data: {
            attemptId: 'b',
            entry: { parentId: 'e0003', fromId: 'e0004', summary: 'Tried four.' },
            model: 'scripted',
            usage,
            durationMs: 450,
          },
        },
      ]);
    });
  });

  describe('given the leaf moved while the summary was made', () => {
    it('ends the attempt stale, recording what the summariser spent and how long it took', () => {
      expect(recordBranchSummaryPlan(input)(stateAt('e0003'))).toEqual([
        {
          type: 'SkipBranchSummary',
          data: { attemptId: 'b', reason: STALE_SUMMARY_REASON, model: 'scripted', usage, durationMs: 450 },
        },
      ]);
    });
  });
});
