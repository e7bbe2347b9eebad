import { MAX_COST_FIGURE, MAX_TOKEN_FIGURE, type SessionEvent } from '@strata/session';
import { DocumentSpecification, projected } from '../testing/document-specification';
import { auditDocumentId, auditProjectionDefinition } from './audit-evolve';

const spec = DocumentSpecification.for(auditProjectionDefinition);
const startedAt = Date.UTC(2026, 0, 1, 10, 0, 0);

const compactionStarted: SessionEvent = {
  type: 'CompactionStarted',
  data: {
    attemptId: 'a1',
    trigger: 'threshold',
    preparedAtLeafId: 'e9',
    firstKeptEntryId: 'e5',
    tokensBefore: 180_000,
    model: 'anthropic/claude-sonnet-4-5',
    startedAt,
  },
};

const branchStarted: SessionEvent = {
  type: 'BranchSummaryStarted',
  data: { attemptId: 'b1', targetId: 'e3', oldLeafId: 'e9', startedAt },
};

const at = (seconds: number) => new Date(startedAt + seconds * 1000).toISOString();

describe('the audit document', () => {
  describe('given no attempt yet', () => {
    it('opens a pending compaction attempt when it starts', () => {
      spec
        .given()
        .when(projected(compactionStarted, 4, { tenant: 'globex', recordedAt: at(0) }))
        .then({
          sessionId: 'session-1',
          attemptId: 'a1',
          tenant: 'globex',
          kind: 'compaction',
          trigger: 'threshold',
          outcome: 'pending',
          reason: null,
          error: null,
          model: 'anthropic/claude-sonnet-4-5',
          tokensBefore: 180_000,
          estimatedTokensAfter: null,
          usage: null,
          durationMs: null,
          startedAt: '2026-01-01T10:00:00.000Z',
          startRecordedAt: at(0),
          endedAt: null,
          entryId: null,
          preparedAtLeafId: 'e9',
          firstKeptEntryId: 'e5',
          targetId: null,
          oldLeafId: null,
          newLeafId: null,
          continuation: null,
          customInstructions: null,
          force: false,
          actor: null,
          onBehalfOf: null,
          summaryCalls: [],
          summaryCallsOmitted: 0,
          startPosition: 5n,
          position: 5n,
        });
    });

    it("keeps the instructions a start records and who started it (the start's actor and on-behalf-of)", () => {
      const withInstructions: SessionEvent = {
        type: 'CompactionStarted',
        data: {
          attemptId: 'a1',
          trigger: 'manual',
          preparedAtLeafId: 'e9',
          tokensBefore: 1_000,
          startedAt,
          customInstructions: 'keep the file names',
        },
      };
      const branchWithInstructions: SessionEvent = {
        type: 'BranchSummaryStarted',
        data: {
          attemptId: 'b1',
          targetId: 'e3',
          oldLeafId: 'e9',
          startedAt,
          customInstructions: 'only the failures',
        },
      };
      spec
        .given()
        .when(projected(withInstructions, 0, { actor: 'agent-host', onBehalfOf: 'user-42' }))
        .thenMatches({
          customInstructions: 'keep the file names',
          actor: 'agent-host',
          onBehalfOf: 'user-42',
        });
      spec
        .given()
        .when(projected(branchWithInstructions, 0, { actor: 'strata-engine' }))
        .thenMatches({
          kind: 'branch_summary',
          customInstructions: 'only the failures',
          actor: 'strata-engine',
          onBehalfOf: null,
        });
    });

    it('keeps that a compaction was forced (issue 25)', () => {
      const forced: SessionEvent = {
        type: 'CompactionStarted',
        data: {
          attemptId: 'a1',
          trigger: 'manual',
          preparedAtLeafId: 'e9',
          tokensBefore: 1_000,
          startedAt,
          force: true,
        },
      };
      spec.given().when(projected(forced, 0)).thenMatches({ force: true });
    });

    it('ignores an outcome whose attempt never started', () => {
      spec
        .given()
        .when(
          projected(
            { type: 'CompactionSkipped', data: { attemptId: 'a1', reason: 'nothing to compact' } },
            1,
          ),
        )
        .then(null);
    });
  });

  describe('given a started compaction', () => {
    const history = [projected(compactionStarted, 0, { recordedAt: at(0) })];

    it('lists the summary calls of the outcome, failed tries and answers, each with its own usage', () => {
      spec
        .given(history)
        .when(
          projected(
            {
              type: 'CompactionFailed',
              data: {
                attemptId: 'a1',
                error: { message: 'all failed', code: 'server_error' },
                summaryCalls: [
                  {
                    purpose: 'history',
                    summarizer: 'remote-endpoint',
                    retry: 0,
                    durationMs: 12,
                    error: { message: 'Remote compaction failed (503)', code: 'server_error' },
                  },
                  {
                    purpose: 'turn-prefix',
                    summarizer: 'openai:gpt',
                    retry: 1,
                    model: 'gpt-2026-01',
                    usage: { input: 900, output: 80, cacheRead: 0, cacheWrite: 0, totalTokens: 980 },
                    durationMs: 340,
                  },
                ],
                summaryCallsOmitted: 2,
              },
            },
            1,
          ),
        )
        .thenMatches({
          outcome: 'failed',
          summaryCalls: [
            {
              purpose: 'history',
              summarizer: 'remote-endpoint',
              retry: 0,
              model: null,
              usage: null,
              durationMs: 12,
              error: { message: 'Remote compaction failed (503)', code: 'server_error' },
            },
            {
              purpose: 'turn-prefix',
              summarizer: 'openai:gpt',
              retry: 1,
              model: 'gpt-2026-01',
              usage: { input: 900, output: 80, totalTokens: 980, cost: null },
              durationMs: 340,
              error: null,
            },
          ],
          summaryCallsOmitted: 2,
        });
    });

    it('records a completion with the engine-measured duration, the estimate after and the summariser usage', () => {
      spec
        .given(history)
        .when(
          projected(
            {
              type: 'CompactionCompleted',
              data: {
                attemptId: 'a1',
                entryId: 'e10',
                trigger: 'threshold',
                usage: {
                  input: 9000,
                  output: 700,
                  cacheRead: 0,
                  cacheWrite: 0,
                  totalTokens: 9700,
                  cost: { total: 0.04 },
                },
                durationMs: 4200,
                tokensBefore: 180_000,
                estimatedTokensAfter: 22_000,
              },
            },
            1,
            { recordedAt: at(5) },
          ),
        )
        .thenMatches({
          outcome: 'completed',
          entryId: 'e10',
          durationMs: 4200,
          estimatedTokensAfter: 22_000,
          usage: { input: 9000, output: 700, totalTokens: 9700, cost: 0.04 },
          model: 'anthropic/claude-sonnet-4-5',
          endedAt: at(5),
          position: 2n,
          startPosition: 1n,
        });
    });

    it('records a skip stored before outcomes carried their facts with the time between the recorded start and end', () => {
      spec
        .given(history)
        .when(
          projected(
            { type: 'CompactionSkipped', data: { attemptId: 'a1', reason: 'nothing to compact' } },
            1,
            {
              recordedAt: at(2),
            },
          ),
        )
        .thenMatches({
          outcome: 'skipped',
          reason: 'nothing to compact',
          durationMs: 2000,
          endedAt: at(2),
          trigger: 'threshold',
          model: 'anthropic/claude-sonnet-4-5',
          tokensBefore: 180_000,
          estimatedTokensAfter: null,
          usage: null,
        });
    });

    it('records a skip with the facts it carries: measured duration, estimate after, model and usage', () => {
      spec
        .given(history)
        .when(
          projected(
            {
              type: 'CompactionSkipped',
              data: {
                attemptId: 'a1',
                reason: 'stale',
                trigger: 'threshold',
                model: 'openai/gpt-5-mini',
                usage: { input: 12_000, output: 800, cacheRead: 0, cacheWrite: 0, totalTokens: 12_800 },
                durationMs: 1_500,
                tokensBefore: 180_000,
                estimatedTokensAfter: 180_000,
              },
            },
            1,
            { recordedAt: at(2) },
          ),
        )
        .thenMatches({
          outcome: 'skipped',
          reason: 'stale',
          durationMs: 1_500,
          endedAt: at(2),
          trigger: 'threshold',
          model: 'openai/gpt-5-mini',
          usage: { input: 12_000, output: 800, totalTokens: 12_800, cost: null },
          tokensBefore: 180_000,
          estimatedTokensAfter: 180_000,
        });
    });

    it('records summariser usage an older engine stored out of bounds within the bounds', () => {
      spec
        .given(history)
        .when(
          projected(
            {
              type: 'CompactionSkipped',
              data: {
                attemptId: 'a1',
                reason: 'stale',
                usage: {
                  input: 1e308,
                  output: -1e308,
                  cacheRead: 0,
                  cacheWrite: 0,
                  totalTokens: 1e308,
                  cost: { total: 1e308 },
                },
                durationMs: 1_500,
              },
            },
            1,
            { recordedAt: at(2) },
          ),
        )
        .thenMatches({
          usage: { input: MAX_TOKEN_FIGURE, output: 0, totalTokens: MAX_TOKEN_FIGURE, cost: MAX_COST_FIGURE },
        });
    });

    it('records a failure with its error', () => {
      spec
        .given(history)
        .when(
          projected(
            {
              type: 'CompactionFailed',
              data: { attemptId: 'a1', error: { message: 'overloaded', code: 'rate_limited' } },
            },
            1,
          ),
        )
        .thenMatches({ outcome: 'failed', error: { message: 'overloaded', code: 'rate_limited' } });
    });

    it('records a failure with its duration and the context as it stays', () => {
      spec
        .given(history)
        .when(
          projected(
            {
              type: 'CompactionFailed',
              data: {
                attemptId: 'a1',
                error: { message: 'overloaded' },
                trigger: 'threshold',
                model: 'anthropic/claude-sonnet-4-5',
                durationMs: 30_000,
                tokensBefore: 180_000,
                estimatedTokensAfter: 180_000,
              },
            },
            1,
            { recordedAt: at(31) },
          ),
        )
        .thenMatches({
          outcome: 'failed',
          error: { message: 'overloaded', code: null },
          durationMs: 30_000,
          tokensBefore: 180_000,
          estimatedTokensAfter: 180_000,
          usage: null,
        });
    });

    it('keeps the first outcome: a later one, or one of a branch summary, changes nothing', () => {
      const cancelled = projected(
        { type: 'CompactionCancelled', data: { attemptId: 'a1', reason: 'aborted' } },
        1,
      );
      spec
        .given([...history, cancelled])
        .when(projected({ type: 'CompactionSkipped', data: { attemptId: 'a1', reason: 'late' } }, 2))
        .thenMatches({ outcome: 'cancelled', reason: 'aborted', position: 2n });
      spec
        .given(history)
        .when(projected({ type: 'BranchSummarySkipped', data: { attemptId: 'a1', reason: 'wrong kind' } }, 1))
        .thenMatches({ outcome: 'pending' });
    });

    it('marks the continuation requested after it', () => {
      spec
        .given(history)
        .when(
          projected(
            { type: 'ContinuationRequested', data: { reason: 'overflow_retry', causationAttemptId: 'a1' } },
            1,
          ),
        )
        .thenMatches({ continuation: 'overflow_retry' });
    });
  });

  describe('given a started branch summary', () => {
    it('records the cancellation, and the navigation target and leaf left', () => {
      spec
        .given([projected(branchStarted, 0)])
        .when(
          projected({ type: 'BranchSummaryCancelled', data: { attemptId: 'b1', reason: 'user aborted' } }, 1),
        )
        .thenMatches({
          kind: 'branch_summary',
          trigger: null,
          outcome: 'cancelled',
          reason: 'user aborted',
          targetId: 'e3',
          oldLeafId: 'e9',
        });
    });

    it('records what a stale summary cost, with the duration the engine measured', () => {
      spec
        .given([projected(branchStarted, 0, { recordedAt: at(0) })])
        .when(
          projected(
            {
              type: 'BranchSummarySkipped',
              data: {
                attemptId: 'b1',
                reason: 'stale',
                targetId: 'e3',
                oldLeafId: 'e9',
                model: 'openai/gpt-5-mini',
                usage: { input: 3_000, output: 200, cacheRead: 0, cacheWrite: 0 },
                durationMs: 900,
              },
            },
            1,
            { recordedAt: at(4) },
          ),
        )
        .thenMatches({
          outcome: 'skipped',
          reason: 'stale',
          targetId: 'e3',
          oldLeafId: 'e9',
          model: 'openai/gpt-5-mini',
          usage: { input: 3_000, output: 200, totalTokens: null, cost: null },
          durationMs: 900,
          endedAt: at(4),
        });
    });
  });

  it('files every event of an attempt under <session>/<attempt>', () => {
    expect(auditDocumentId(projected(compactionStarted, 0, { sessionId: 's9' }))).toBe('s9/a1');
    expect(
      auditDocumentId(
        projected(
          { type: 'ContinuationRequested', data: { reason: 'auto_continue', causationAttemptId: 'a1' } },
          1,
          {
            sessionId: 's9',
          },
        ),
      ),
    ).toBe('s9/a1');
  });
});
