import type { ProjectedEvent } from '@strata/projections';
import type { SessionEvent } from '@strata/session';
import { describeEndedAttempt, needsAttemptStart } from './attempt-outcomes';

function projected(event: SessionEvent): ProjectedEvent {
  return {
    sessionId: 's1',
    streamId: 'session-s1',
    eventId: 'event-1',
    revision: 4n,
    position: 9n,
    recordedAt: '2026-01-01T00:00:03.000Z',
    tenant: 'acme',
    event,
  };
}

const startedAt = Date.parse('2026-01-01T00:00:00.000Z');

describe('an outcome that carries its trigger and duration', () => {
  const skipped = projected({
    type: 'CompactionSkipped',
    data: { attemptId: 'a1', reason: 'already_compacted', trigger: 'threshold', durationMs: 40 },
  });

  it('is described from the event alone', () => {
    expect(needsAttemptStart(skipped)).toBe(false);
    expect(describeEndedAttempt(skipped, undefined)).toEqual({
      kind: 'compaction',
      attemptId: 'a1',
      outcome: 'skipped',
      trigger: 'threshold',
      seconds: 0.04,
    });
  });
});

describe('an outcome stored before outcomes carried their facts', () => {
  const failed = projected({
    type: 'CompactionFailed',
    data: { attemptId: 'a1', error: { message: 'down' } },
  });

  it("takes the trigger from the attempt's start and the duration from the store's records", () => {
    expect(needsAttemptStart(failed)).toBe(true);
    const start = {
      kind: 'compaction' as const,
      data: {
        attemptId: 'a1',
        trigger: 'overflow' as const,
        preparedAtLeafId: null,
        tokensBefore: 10,
        startedAt,
      },
    };
    expect(describeEndedAttempt(failed, start)).toMatchObject({
      trigger: 'overflow',
      outcome: 'failed',
      seconds: 3,
    });
  });

  it('is counted with an unknown trigger when its start cannot be found', () => {
    expect(describeEndedAttempt(failed, undefined)).toMatchObject({ trigger: 'unknown', seconds: undefined });
  });
});

describe('events that end no attempt', () => {
  it('are not described', () => {
    const moved = projected({ type: 'LeafMoved', data: { leafId: 'e1', previousLeafId: null } });
    expect(needsAttemptStart(moved)).toBe(false);
    expect(describeEndedAttempt(moved, undefined)).toBeUndefined();
  });
});
