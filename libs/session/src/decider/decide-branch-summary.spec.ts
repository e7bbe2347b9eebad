import { DeciderSpecification } from '@strata/testing';
import { sessionDecider } from './decide';
import { appended, branchSummary, startedChain } from './decider-spec-data';
import type { SessionCommand } from './session-commands';
import { SessionDomainError, type SessionErrorCode } from './session-domain-error';
import type { SessionEvent } from './session-events';

const spec = DeciderSpecification.for(sessionDecider);
const withCode = (code: SessionErrorCode) => (error: SessionDomainError) => error.code === code;

const compactionOpen: readonly SessionEvent[] = [
  ...startedChain,
  {
    type: 'CompactionStarted',
    data: { attemptId: 'c1', trigger: 'manual', preparedAtLeafId: 't2', tokensBefore: 1_000, startedAt: 1 },
  },
];

describe('a session where the user navigates with a summary', () => {
  const branchStarted: SessionEvent = {
    type: 'BranchSummaryStarted',
    data: {
      attemptId: 'b1',
      targetId: 'u2',
      oldLeafId: 't2',
      model: 'anthropic/claude-haiku-4-5',
      startedAt: 10,
    },
  };
  const branchOpen = [...startedChain, branchStarted];
  const recordSummary = (entry = branchSummary('s1', 't1')): SessionCommand => ({
    type: 'RecordBranchSummary',
    data: { attemptId: 'b1', entry, durationMs: 900 },
  });

  it('starts a branch-summary attempt for an existing target', () => {
    spec
      .given(startedChain)
      .when({ type: 'StartBranchSummary', data: branchStarted.data })
      .then([branchStarted]);
  });

  it("records the navigation's instructions on the start", () => {
    const data = { ...branchStarted.data, customInstructions: 'only the failures' };
    spec
      .given(startedChain)
      .when({ type: 'StartBranchSummary', data })
      .then([{ type: 'BranchSummaryStarted', data }]);
  });

  it('refuses an unknown target or old leaf', () => {
    spec
      .given(startedChain)
      .when({
        type: 'StartBranchSummary',
        data: { attemptId: 'b1', targetId: 'missing', oldLeafId: 't2', startedAt: 1 },
      })
      .thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given(startedChain)
      .when({
        type: 'StartBranchSummary',
        data: { attemptId: 'b1', targetId: 'u2', oldLeafId: 'missing', startedAt: 1 },
      })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });

  it('moves the leaf to the destination, appends the summary there and completes', () => {
    spec
      .given(branchOpen)
      .when(recordSummary())
      .then([
        { type: 'LeafMoved', data: { leafId: 't1', previousLeafId: 't2' } },
        appended(branchSummary('s1', 't1')),
        {
          type: 'BranchSummaryCompleted',
          data: {
            attemptId: 'b1',
            entryId: 's1',
            newLeafId: 't1',
            targetId: 'u2',
            oldLeafId: 't2',
            model: 'anthropic/claude-haiku-4-5',
            durationMs: 900,
          },
        },
      ]);
  });

  it('does not move the leaf when it is already at the destination', () => {
    const atDestination = [
      ...branchOpen,
      { type: 'LeafMoved', data: { leafId: 't1', previousLeafId: 't2' } } as SessionEvent,
    ];
    spec
      .given(atDestination)
      .when(recordSummary())
      .then([
        appended(branchSummary('s1', 't1')),
        {
          type: 'BranchSummaryCompleted',
          data: {
            attemptId: 'b1',
            entryId: 's1',
            newLeafId: 't1',
            targetId: 'u2',
            oldLeafId: 't2',
            model: 'anthropic/claude-haiku-4-5',
            durationMs: 900,
          },
        },
      ]);
  });

  it('places a summary at the root when navigation goes before the first entry', () => {
    spec
      .given(branchOpen)
      .when(recordSummary(branchSummary('s1', null)))
      .then([
        { type: 'LeafMoved', data: { leafId: null, previousLeafId: 't2' } },
        appended(branchSummary('s1', null, 'root')),
        {
          type: 'BranchSummaryCompleted',
          data: {
            attemptId: 'b1',
            entryId: 's1',
            newLeafId: null,
            targetId: 'u2',
            oldLeafId: 't2',
            model: 'anthropic/claude-haiku-4-5',
            durationMs: 900,
          },
        },
      ]);
  });

  it('refuses a summary whose parent or origin does not exist, or whose id is taken', () => {
    spec
      .given(branchOpen)
      .when(recordSummary(branchSummary('s1', 'missing')))
      .thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given(branchOpen)
      .when(recordSummary(branchSummary('s1', 't1', 'missing')))
      .thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given(branchOpen)
      .when(recordSummary(branchSummary('u1', 't1')))
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('ends skipped, cancelled or failed, once, with the navigation, model and duration', () => {
    const navigation = {
      targetId: 'u2',
      oldLeafId: 't2',
      model: 'anthropic/claude-haiku-4-5',
      durationMs: 40,
    };
    spec
      .given(branchOpen)
      .when({ type: 'CancelBranchSummary', data: { attemptId: 'b1', reason: 'hook', durationMs: 40 } })
      .then([{ type: 'BranchSummaryCancelled', data: { attemptId: 'b1', reason: 'hook', ...navigation } }]);
    spec
      .given(branchOpen)
      .when({ type: 'SkipBranchSummary', data: { attemptId: 'b1', reason: 'no_entries', durationMs: 40 } })
      .then([
        { type: 'BranchSummarySkipped', data: { attemptId: 'b1', reason: 'no_entries', ...navigation } },
      ]);
    spec
      .given(branchOpen)
      .when({
        type: 'FailBranchSummary',
        data: { attemptId: 'b1', error: { message: 'no API key' }, durationMs: 40 },
      })
      .then([
        {
          type: 'BranchSummaryFailed',
          data: { attemptId: 'b1', error: { message: 'no API key' }, ...navigation },
        },
      ]);
    spec
      .given([
        ...branchOpen,
        { type: 'BranchSummaryFailed', data: { attemptId: 'b1', error: { message: 'x' } } },
      ])
      .when(recordSummary())
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('records what a summariser spent on a summary that came too late to attach', () => {
    const usage = { input: 4_000, output: 300, cacheRead: 0, cacheWrite: 0 };
    spec
      .given(branchOpen)
      .when({
        type: 'SkipBranchSummary',
        data: { attemptId: 'b1', reason: 'stale', durationMs: 2_000, model: 'openai/gpt-5-mini', usage },
      })
      .then([
        {
          type: 'BranchSummarySkipped',
          data: {
            attemptId: 'b1',
            reason: 'stale',
            targetId: 'u2',
            oldLeafId: 't2',
            model: 'openai/gpt-5-mini',
            usage,
            durationMs: 2_000,
          },
        },
      ]);
  });

  it('keeps a null old leaf and leaves the model out when none was known', () => {
    spec
      .given([
        ...startedChain,
        { type: 'LeafMoved', data: { leafId: null, previousLeafId: 't2' } },
        {
          type: 'BranchSummaryStarted',
          data: { attemptId: 'b1', targetId: 'u1', oldLeafId: null, startedAt: 1 },
        },
      ])
      .when({ type: 'CancelBranchSummary', data: { attemptId: 'b1', reason: 'aborted', durationMs: 0 } })
      .then([
        {
          type: 'BranchSummaryCancelled',
          data: { attemptId: 'b1', reason: 'aborted', targetId: 'u1', oldLeafId: null, durationMs: 0 },
        },
      ]);
  });

  it('refuses a negative duration', () => {
    spec
      .given(branchOpen)
      .when({ type: 'CancelBranchSummary', data: { attemptId: 'b1', reason: 'aborted', durationMs: -5 } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses to end a branch summary through compaction commands, and a compaction through branch ones', () => {
    spec
      .given(branchOpen)
      .when({ type: 'SkipCompaction', data: { attemptId: 'b1', reason: 'x', durationMs: 1 } })
      .thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given(compactionOpen)
      .when({ type: 'SkipBranchSummary', data: { attemptId: 'c1', reason: 'x', durationMs: 1 } })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });

  it('refuses a continuation caused by a branch summary', () => {
    spec
      .given(branchOpen)
      .when({ type: 'RequestContinuation', data: { reason: 'auto_continue', causationAttemptId: 'b1' } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });
});
