import { DeciderSpecification } from '@strata/testing';
import { sessionDecider } from './decide';
import { appended, compaction, startedChain, toolResult, user } from './decider-spec-data';
import { autoContinueMessage, type RecordCompaction, type SessionCommand } from './session-commands';
import { SessionDomainError, type SessionErrorCode } from './session-domain-error';
import {
  MAX_CUSTOM_INSTRUCTIONS_LENGTH,
  MAX_SUMMARY_CALLS,
  MAX_SUMMARY_CALL_NAME_LENGTH,
  type SessionEvent,
  type SummaryCall,
} from './session-events';

const spec = DeciderSpecification.for(sessionDecider);
const withCode = (code: SessionErrorCode) => (error: SessionDomainError) => error.code === code;

const compactionStarted = (attemptId = 'c1', trigger: 'manual' | 'threshold' | 'overflow' = 'threshold') =>
  ({
    type: 'CompactionStarted',
    data: {
      attemptId,
      trigger,
      preparedAtLeafId: 't2',
      firstKeptEntryId: 'u2',
      tokensBefore: 120_000,
      model: 'anthropic/claude-sonnet-4-5',
      startedAt: 1_771_146_000_000,
    },
  }) as const satisfies SessionEvent;

const startCompaction = (attemptId = 'c1'): SessionCommand => ({
  type: 'StartCompaction',
  data: compactionStarted(attemptId).data,
});

const recordCompaction = (entry = compaction('k1', 't2', 'u2')): SessionCommand => ({
  type: 'RecordCompaction',
  data: { attemptId: 'c1', entry, durationMs: 4_200, estimatedTokensAfter: 9_000 },
});

const compactionCompleted = (attemptId = 'c1'): SessionEvent => ({
  type: 'CompactionCompleted',
  data: {
    attemptId,
    entryId: 'k1',
    trigger: 'threshold',
    model: 'anthropic/claude-sonnet-4-5',
    durationMs: 4_200,
    tokensBefore: 120_000,
    estimatedTokensAfter: 9_000,
  },
});

/** How a compaction that did not compact ends: the context stays as it was prepared. */
const endedWithout = <Fields extends object>(fields: Fields) => ({
  attemptId: 'c1',
  ...fields,
  trigger: 'threshold' as const,
  model: 'anthropic/claude-sonnet-4-5',
  durationMs: 1_500,
  tokensBefore: 120_000,
  estimatedTokensAfter: 120_000,
});

const compactionOpen = [...startedChain, compactionStarted()];
const compactionDone = [...compactionOpen, appended(compaction('k1', 't2', 'u2')), compactionCompleted()];

describe('a session without attempts', () => {
  it('starts a compaction attempt', () => {
    spec.given(startedChain).when(startCompaction()).then([compactionStarted()]);
  });

  it('records that a compaction is forced (issue 13.4), and nothing when it is not', () => {
    const forced = { ...compactionStarted().data, force: true as const };
    spec
      .given(startedChain)
      .when({ type: 'StartCompaction', data: forced })
      .then([{ type: 'CompactionStarted', data: forced }]);
    spec.given(startedChain).when(startCompaction()).then([compactionStarted()]);
  });

  it('refuses a compaction attempt prepared at an unknown leaf or keeping an unknown entry', () => {
    spec
      .given(startedChain)
      .when({ type: 'StartCompaction', data: { ...compactionStarted().data, preparedAtLeafId: 'missing' } })
      .thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given(startedChain)
      .when({ type: 'StartCompaction', data: { ...compactionStarted().data, firstKeptEntryId: 'missing' } })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });

  it('records the instructions the request gave on the start, and refuses them over the bound', () => {
    const data = { ...compactionStarted().data, customInstructions: 'keep the file names' };
    spec
      .given(startedChain)
      .when({ type: 'StartCompaction', data })
      .then([{ type: 'CompactionStarted', data }]);
    spec
      .given(startedChain)
      .when({
        type: 'StartCompaction',
        data: { ...data, customInstructions: 'x'.repeat(MAX_CUSTOM_INSTRUCTIONS_LENGTH + 1) },
      })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses to end an attempt that never started', () => {
    spec.given(startedChain).when(recordCompaction()).thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given(startedChain)
      .when({
        type: 'SkipCompaction',
        data: { attemptId: 'c1', reason: 'nothing_to_summarize', durationMs: 0 },
      })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });
});

describe('a session with an open compaction attempt', () => {
  it('treats a repeated start of the same attempt as a no-op', () => {
    spec.given(compactionOpen).when(startCompaction()).thenNothingHappened();
  });

  it('refuses to reuse the attempt id for a branch summary', () => {
    spec
      .given(compactionOpen)
      .when({
        type: 'StartBranchSummary',
        data: { attemptId: 'c1', targetId: 'u1', oldLeafId: 't2', startedAt: 1 },
      })
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('records the compaction entry and the completed outcome together', () => {
    spec
      .given(compactionOpen)
      .when(recordCompaction())
      .then([appended(compaction('k1', 't2', 'u2')), compactionCompleted()]);
  });

  it('records the summary calls with the completed outcome, and refuses more than it lists or unbounded names', () => {
    const calls: SummaryCall[] = [
      {
        purpose: 'history',
        summarizer: 'remote-endpoint',
        retry: 0,
        durationMs: 30,
        error: { message: 'Remote compaction failed (503 Service Unavailable)', code: 'server_error' },
      },
      {
        purpose: 'history',
        summarizer: 'openai-compatible:m@127.0.0.1',
        retry: 0,
        model: 'fake-summarizer-1-2026',
        usage: { input: 800, output: 60, cacheRead: 0, cacheWrite: 0, totalTokens: 860 },
        durationMs: 45,
      },
    ];
    const withCalls = (summaryCalls: readonly SummaryCall[]): SessionCommand => ({
      type: 'RecordCompaction',
      data: { ...recordCompaction().data, summaryCalls } as RecordCompaction['data'],
    });
    spec
      .given(compactionOpen)
      .when(withCalls(calls))
      .then([
        appended(compaction('k1', 't2', 'u2')),
        {
          type: 'CompactionCompleted',
          data: { ...compactionCompleted().data, summaryCalls: calls },
        } as SessionEvent,
      ]);
    spec
      .given(compactionOpen)
      .when(withCalls(Array.from({ length: MAX_SUMMARY_CALLS + 1 }, () => calls[0]!)))
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(compactionOpen)
      .when(withCalls([{ ...calls[1]!, model: 'm'.repeat(MAX_SUMMARY_CALL_NAME_LENGTH + 1) }]))
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses a compaction that is not a child of the current leaf', () => {
    spec
      .given(compactionOpen)
      .when(recordCompaction(compaction('k1', 'a2', 'u2')))
      .thenThrows(SessionDomainError, withCode('conflict'));
  });

  it('refuses a first kept entry off the compaction path (a hook compaction too)', () => {
    const offPath = [...compactionOpen, appended(user('x1', 'u1'))];
    spec
      .given([...offPath, { type: 'LeafMoved', data: { leafId: 't2', previousLeafId: 'x1' } }])
      .when(recordCompaction({ ...compaction('k1', 't2', 'x1'), fromExtension: true }))
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(compactionOpen)
      .when(recordCompaction({ ...compaction('k1', 't2', 'missing'), fromExtension: true }))
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses a first kept entry that is a tool result', () => {
    spec
      .given(compactionOpen)
      .when(recordCompaction(compaction('k1', 't2', 't1')))
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses a compaction entry whose id is taken', () => {
    spec
      .given(compactionOpen)
      .when(recordCompaction(compaction('a1', 't2', 'u2')))
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('refuses a compaction at an empty leaf', () => {
    spec
      .given([...compactionOpen, { type: 'LeafMoved', data: { leafId: null, previousLeafId: 't2' } }])
      .when(recordCompaction(compaction('k1', null, 'u2')))
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('ends skipped, cancelled or failed with the trigger, model and tokens of its start', () => {
    spec
      .given(compactionOpen)
      .when({
        type: 'SkipCompaction',
        data: { attemptId: 'c1', reason: 'already_compacted', durationMs: 1_500 },
      })
      .then([{ type: 'CompactionSkipped', data: endedWithout({ reason: 'already_compacted' }) }]);
    spec
      .given(compactionOpen)
      .when({ type: 'CancelCompaction', data: { attemptId: 'c1', reason: 'user', durationMs: 1_500 } })
      .then([{ type: 'CompactionCancelled', data: endedWithout({ reason: 'user' }) }]);
    spec
      .given(compactionOpen)
      .when({
        type: 'FailCompaction',
        data: { attemptId: 'c1', error: { message: 'overloaded', code: '529' }, durationMs: 1_500 },
      })
      .then([
        {
          type: 'CompactionFailed',
          data: endedWithout({ error: { message: 'overloaded', code: '529' } }),
        },
      ]);
  });

  it('records the model and usage of a summariser that answered before the attempt ended, and a known estimate after', () => {
    const usage = { input: 30_000, output: 900, cacheRead: 0, cacheWrite: 0, totalTokens: 30_900 };
    spec
      .given(compactionOpen)
      .when({
        type: 'SkipCompaction',
        data: {
          attemptId: 'c1',
          reason: 'stale',
          durationMs: 8_000,
          model: 'openai/gpt-5-mini',
          usage,
          estimatedTokensAfter: 125_000,
        },
      })
      .then([
        {
          type: 'CompactionSkipped',
          data: {
            attemptId: 'c1',
            reason: 'stale',
            trigger: 'threshold',
            model: 'openai/gpt-5-mini',
            usage,
            durationMs: 8_000,
            tokensBefore: 120_000,
            estimatedTokensAfter: 125_000,
          },
        },
      ]);
  });

  it('leaves the model out when neither the start nor the ending knew it', () => {
    const withoutModel: SessionEvent = {
      type: 'CompactionStarted',
      data: {
        attemptId: 'c1',
        trigger: 'manual',
        preparedAtLeafId: 't2',
        tokensBefore: 120_000,
        startedAt: 1,
      },
    };
    spec
      .given([...startedChain, withoutModel])
      .when({ type: 'CancelCompaction', data: { attemptId: 'c1', reason: 'aborted', durationMs: 3 } })
      .then([
        {
          type: 'CompactionCancelled',
          data: {
            attemptId: 'c1',
            reason: 'aborted',
            trigger: 'manual',
            durationMs: 3,
            tokensBefore: 120_000,
            estimatedTokensAfter: 120_000,
          },
        },
      ]);
  });

  it('refuses a skip without a reason', () => {
    spec
      .given(compactionOpen)
      .when({ type: 'SkipCompaction', data: { attemptId: 'c1', reason: '', durationMs: 0 } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses a negative duration or an estimate after that is not a whole number', () => {
    spec
      .given(compactionOpen)
      .when({ type: 'CancelCompaction', data: { attemptId: 'c1', reason: 'aborted', durationMs: -1 } })
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(compactionOpen)
      .when({
        type: 'FailCompaction',
        data: { attemptId: 'c1', error: { message: 'x' }, durationMs: 1, estimatedTokensAfter: 1.5 },
      })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });
});

describe('the figures and ids of a compaction attempt', () => {
  it('refuses an attempt id that breaks the identifier rule', () => {
    for (const attemptId of ['', 'a\nb', '.', 'x'.repeat(513)]) {
      spec
        .given(startedChain)
        .when(startCompaction(attemptId))
        .thenThrows(SessionDomainError, withCode('invalid'));
    }
  });

  it('refuses figures the store could not read back exactly: counts past 2^53 - 1, endless durations', () => {
    spec
      .given(startedChain)
      .when({ type: 'StartCompaction', data: { ...compactionStarted().data, tokensBefore: 1e308 } })
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(compactionOpen)
      .when({ type: 'SkipCompaction', data: { attemptId: 'c1', reason: 'x', durationMs: 1e308 } })
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(compactionOpen)
      .when({
        ...recordCompaction(),
        data: { ...recordCompaction().data, estimatedTokensAfter: 2 ** 53 },
      } as SessionCommand)
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses summariser usage out of bounds, on every outcome', () => {
    const usage = { input: 1e308, output: -1, cacheRead: 0, cacheWrite: 0 };
    spec
      .given(compactionOpen)
      .when({ ...recordCompaction(), data: { ...recordCompaction().data, usage } } as SessionCommand)
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(compactionOpen)
      .when({
        type: 'FailCompaction',
        data: { attemptId: 'c1', error: { message: 'x' }, durationMs: 1, usage },
      })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses a compaction entry whose own fields break the input rules', () => {
    spec
      .given(compactionOpen)
      .when(recordCompaction({ ...compaction('k1', 't2', 'u2'), timestamp: 'later' }))
      .thenThrows(SessionDomainError, withCode('invalid'));
  });
});

describe('a session whose compaction attempt has ended', () => {
  const redelivered: readonly SessionCommand[] = [
    recordCompaction(),
    { type: 'SkipCompaction', data: { attemptId: 'c1', reason: 'already_compacted', durationMs: 1 } },
    { type: 'CancelCompaction', data: { attemptId: 'c1', reason: 'user', durationMs: 1 } },
    { type: 'FailCompaction', data: { attemptId: 'c1', error: { message: 'late' }, durationMs: 1 } },
  ];

  it.each(redelivered.map((command) => [command.type, command] as const))(
    'refuses a second outcome (%s) as already recorded',
    (_type, command) => {
      spec
        .given(compactionDone)
        .when(command)
        .thenThrows(
          SessionDomainError,
          (error) => error.code === 'already_exists' && error.details.outcome === 'CompactionCompleted',
        );
    },
  );

  it('still treats a redelivered start as a no-op', () => {
    spec.given(compactionDone).when(startCompaction()).thenNothingHappened();
  });
});

describe('a session after a completed automatic compaction', () => {
  const continueAfter = (
    reason: 'auto_continue' | 'overflow_retry',
    withMessage: boolean,
  ): SessionCommand => ({
    type: 'RequestContinuation',
    data: {
      reason,
      causationAttemptId: 'c1',
      ...(withMessage ? { message: autoContinueMessage(1_771_146_005_000) } : {}),
    },
  });
  const overflowDone = [
    ...startedChain,
    compactionStarted('c1', 'overflow'),
    appended(compaction('k1', 't2', 'u2')),
    {
      ...compactionCompleted(),
      data: { ...compactionCompleted().data, trigger: 'overflow' },
    } as SessionEvent,
  ];

  it('requests an auto-continue with the synthetic prompt after a threshold compaction', () => {
    spec
      .given(compactionDone)
      .when(continueAfter('auto_continue', true))
      .then([
        {
          type: 'ContinuationRequested',
          data: {
            reason: 'auto_continue',
            causationAttemptId: 'c1',
            message: {
              role: 'user',
              content: 'Continue if you have next steps.',
              synthetic: true,
              timestamp: 1_771_146_005_000,
            },
          },
        },
      ]);
  });

  it('requests a retry without a message after an overflow compaction', () => {
    spec
      .given(overflowDone)
      .when(continueAfter('overflow_retry', false))
      .then([
        { type: 'ContinuationRequested', data: { reason: 'overflow_retry', causationAttemptId: 'c1' } },
      ]);
  });

  it('treats a repeated request as a no-op', () => {
    const requested: SessionEvent = {
      type: 'ContinuationRequested',
      data: { reason: 'overflow_retry', causationAttemptId: 'c1' },
    };
    spec
      .given([...overflowDone, requested])
      .when(continueAfter('overflow_retry', false))
      .thenNothingHappened();
  });

  it('refuses a reason that does not match the trigger, and a message on a retry or not marked synthetic', () => {
    spec
      .given(overflowDone)
      .when(continueAfter('auto_continue', true))
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(overflowDone)
      .when(continueAfter('overflow_retry', true))
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(compactionDone)
      .when({
        type: 'RequestContinuation',
        data: {
          reason: 'auto_continue',
          causationAttemptId: 'c1',
          message: { role: 'user', content: 'Continue if you have next steps.', timestamp: 1 },
        },
      })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses a continuation after an open, skipped or manual compaction, or an unknown one', () => {
    spec
      .given(compactionOpen)
      .when(continueAfter('auto_continue', true))
      .thenThrows(SessionDomainError, withCode('conflict'));
    spec
      .given([
        ...compactionOpen,
        { type: 'CompactionSkipped', data: { attemptId: 'c1', reason: 'already_compacted' } },
      ])
      .when(continueAfter('auto_continue', true))
      .thenThrows(SessionDomainError, withCode('conflict'));
    spec
      .given([
        ...startedChain,
        compactionStarted('c1', 'manual'),
        appended(compaction('k1', 't2', 'u2')),
        {
          ...compactionCompleted(),
          data: { ...compactionCompleted().data, trigger: 'manual' },
        } as SessionEvent,
      ])
      .when(continueAfter('auto_continue', true))
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(startedChain)
      .when(continueAfter('auto_continue', true))
      .thenThrows(SessionDomainError, withCode('not_found'));
  });
});

describe('a compaction recorded after the user kept writing', () => {
  it('is appended at the new leaf, keeping the entries written meanwhile', () => {
    const meanwhile = [user('u3', 't2'), toolResult('t3', 'u3')];
    spec
      .given([...compactionOpen, ...meanwhile.map(appended)])
      .when(recordCompaction(compaction('k1', 't3', 'u2')))
      .then([appended(compaction('k1', 't3', 'u2')), compactionCompleted()]);
  });
});
