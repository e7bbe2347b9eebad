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

  it('drops unknown fields of the event data itself', () => {
    const parsed = parseSessionEvent({
      type: 'LeafMoved',
      data: { leafId: 'a1', previousLeafId: null, injected: 'x' },
    });
    expect(parsed).toEqual({ type: 'LeafMoved', data: { leafId: 'a1', previousLeafId: null } });
  });
});
