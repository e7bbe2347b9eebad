import { appended, compaction, header, started, user } from './decider-spec-data';
import { autoContinueMessage } from './session-commands';
import {
  parseSessionEvent,
  sessionEventSchema,
  sessionEventTypes,
  sessionStreamName,
  type SessionEvent,
} from './session-events';

describe('the session stream', () => {
  it('is named session-<id>', () => {
    expect(sessionStreamName(header.id)).toBe('session-0194f3a2b7c40001');
  });

  it('has one event type per fact, listed for subscription filters', () => {
    expect([...sessionEventTypes].sort()).toEqual([
      'BranchSummaryCancelled',
      'BranchSummaryCompleted',
      'BranchSummaryFailed',
      'BranchSummarySkipped',
      'BranchSummaryStarted',
      'CompactionCancelled',
      'CompactionCompleted',
      'CompactionFailed',
      'CompactionSkipped',
      'CompactionStarted',
      'ContinuationRequested',
      'EntryAppended',
      'LeafMoved',
      'LeaseExpired',
      'LeaseReleased',
      'LeaseRenewed',
      'LeaseTaken',
      'SessionStarted',
      'ToolOutputsPruned',
    ]);
  });
});

describe('an event read back from a store', () => {
  it('parses unchanged, keeping unknown fields of the entry (lossless pi export)', () => {
    const entry = { ...user('u1', null), futureField: { kept: true } };
    const events: SessionEvent[] = [
      started,
      appended(entry),
      appended(compaction('k1', 'u1', 'u1')),
      { type: 'LeafMoved', data: { leafId: null, previousLeafId: 'k1' } },
      {
        type: 'ContinuationRequested',
        data: { reason: 'auto_continue', causationAttemptId: 'c1', message: autoContinueMessage(5) },
      },
    ];
    for (const event of events)
      expect(parseSessionEvent(JSON.parse(JSON.stringify(event)) as SessionEvent)).toEqual(event);
  });

  it('parses a compaction start with or without force (issue 13.4: starts stored before it have none)', () => {
    const start = {
      attemptId: 'c1',
      trigger: 'manual',
      preparedAtLeafId: 'u1',
      tokensBefore: 10,
      startedAt: 1_771_146_000_000,
    } as const;
    const stored: SessionEvent = { type: 'CompactionStarted', data: start };
    const forced: SessionEvent = { type: 'CompactionStarted', data: { ...start, force: true } };
    expect(parseSessionEvent(JSON.parse(JSON.stringify(stored)) as SessionEvent)).toEqual(stored);
    expect(parseSessionEvent(JSON.parse(JSON.stringify(forced)) as SessionEvent)).toEqual(forced);
    expect(() =>
      parseSessionEvent({ type: 'CompactionStarted', data: { ...start, force: 'yes' } }),
    ).toThrow();
  });

  it('is refused when its type is unknown or its data does not match', () => {
    expect(() => parseSessionEvent({ type: 'SessionErased', data: {} })).toThrow();
    expect(() =>
      parseSessionEvent({ type: 'LeafMoved', data: { leafId: '', previousLeafId: null } }),
    ).toThrow();
    expect(() =>
      parseSessionEvent({ type: 'CompactionStarted', data: { attemptId: 'c1', trigger: 'sometimes' } }),
    ).toThrow();
    expect(() =>
      parseSessionEvent({
        type: 'ToolOutputsPruned',
        data: { prunedAt: 1, results: [{ entryId: 't1', tokens: -3 }], tokensSaved: 0 },
      }),
    ).toThrow();
    expect(
      sessionEventSchema.safeParse({ type: 'EntryAppended', data: { entry: { type: 'message' } } }).success,
    ).toBe(false);
  });

  it('parses attempt outcomes with everything the audit needs', () => {
    const usage = { input: 30_000, output: 900, cacheRead: 0, cacheWrite: 0 };
    const compactionFacts = {
      trigger: 'overflow' as const,
      model: 'anthropic/claude-sonnet-4-5',
      usage,
      durationMs: 2_500,
      tokensBefore: 180_000,
      estimatedTokensAfter: 180_000,
    };
    const navigation = {
      targetId: 'u1',
      oldLeafId: null,
      model: 'openai/gpt-5-mini',
      usage,
      durationMs: 700,
    };
    const events: SessionEvent[] = [
      { type: 'CompactionSkipped', data: { attemptId: 'c1', reason: 'stale', ...compactionFacts } },
      { type: 'CompactionCancelled', data: { attemptId: 'c2', reason: 'aborted', ...compactionFacts } },
      { type: 'CompactionFailed', data: { attemptId: 'c3', error: { message: 'down' }, ...compactionFacts } },
      {
        type: 'BranchSummaryCompleted',
        data: { attemptId: 'b1', entryId: 's1', newLeafId: 'u0', ...navigation },
      },
      { type: 'BranchSummarySkipped', data: { attemptId: 'b2', reason: 'stale', ...navigation } },
      { type: 'BranchSummaryCancelled', data: { attemptId: 'b3', reason: 'aborted', ...navigation } },
      { type: 'BranchSummaryFailed', data: { attemptId: 'b4', error: { message: 'down' }, ...navigation } },
    ];
    for (const event of events)
      expect(parseSessionEvent(JSON.parse(JSON.stringify(event)) as SessionEvent)).toEqual(event);
  });

  it('still parses attempt outcomes stored before they carried those facts', () => {
    const stored = [
      { type: 'CompactionSkipped', data: { attemptId: 'c1', reason: 'nothing_to_summarize' } },
      { type: 'CompactionCancelled', data: { attemptId: 'c2', reason: 'aborted' } },
      { type: 'CompactionFailed', data: { attemptId: 'c3', error: { message: 'down', code: '529' } } },
      {
        type: 'BranchSummaryCompleted',
        data: { attemptId: 'b1', entryId: 's1', newLeafId: null, durationMs: 9 },
      },
      { type: 'BranchSummarySkipped', data: { attemptId: 'b2', reason: 'stale' } },
      { type: 'BranchSummaryCancelled', data: { attemptId: 'b3', reason: 'aborted' } },
      { type: 'BranchSummaryFailed', data: { attemptId: 'b4', error: { message: 'down' } } },
    ];
    for (const event of stored) expect(parseSessionEvent(event)).toEqual(event);
  });

  it('refuses an outcome whose facts have the wrong shape', () => {
    expect(() =>
      parseSessionEvent({
        type: 'CompactionSkipped',
        data: { attemptId: 'c1', reason: 'x', durationMs: -1 },
      }),
    ).toThrow();
    expect(() =>
      parseSessionEvent({
        type: 'CompactionCancelled',
        data: { attemptId: 'c1', reason: 'x', trigger: 'often' },
      }),
    ).toThrow();
    expect(() =>
      parseSessionEvent({
        type: 'CompactionFailed',
        data: { attemptId: 'c1', error: { message: 'x' }, estimatedTokensAfter: 2.5 },
      }),
    ).toThrow();
    expect(() =>
      parseSessionEvent({
        type: 'BranchSummarySkipped',
        data: { attemptId: 'b1', reason: 'x', targetId: '' },
      }),
    ).toThrow();
    expect(() =>
      parseSessionEvent({
        type: 'BranchSummaryCompleted',
        data: { attemptId: 'b1', entryId: 's1', newLeafId: null },
      }),
    ).toThrow();
  });

  it('drops unknown fields of the event data itself', () => {
    const parsed = parseSessionEvent({
      type: 'LeafMoved',
      data: { leafId: 'a1', previousLeafId: null, injected: 'x' },
    });
    expect(parsed).toEqual({ type: 'LeafMoved', data: { leafId: 'a1', previousLeafId: null } });
  });
});
