import type { RecordedEvent } from '@strata/event-store';
import { OpenAttemptsIndex } from './open-attempts-index';

let position = 0n;

function recorded(
  streamId: string,
  type: string,
  data: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): RecordedEvent {
  position += 1n;
  return { streamId, id: `e${position}`, type, data, metadata, revision: 0n, position, createdAt: '' };
}

describe('the open attempts index', () => {
  it('lists the attempts started and not ended, by the engine recorded on their start', () => {
    const index = new OpenAttemptsIndex();
    index.apply(
      recorded('session-s1', 'CompactionStarted', { attemptId: 'a1', trigger: 'manual' }, { engine: 'x' }),
    );
    index.apply(
      recorded('session-s1', 'CompactionStarted', { attemptId: 'a2', trigger: 'threshold' }, { engine: 'x' }),
    );
    index.apply(recorded('session-s2', 'BranchSummaryStarted', { attemptId: 'b1' }, { engine: 'y' }));
    index.apply(recorded('session-s1', 'CompactionCompleted', { attemptId: 'a1' }));
    expect(Object.fromEntries(index.byEngine())).toEqual({
      x: [{ sessionId: 's1', attemptId: 'a2', kind: 'compaction', trigger: 'threshold', engine: 'x' }],
      y: [{ sessionId: 's2', attemptId: 'b1', kind: 'branch_summary', trigger: null, engine: 'y' }],
    });
  });

  it('leaves out attempts whose start names no engine', () => {
    const index = new OpenAttemptsIndex();
    index.apply(recorded('session-s1', 'CompactionStarted', { attemptId: 'a1', trigger: 'manual' }));
    expect(index.byEngine().size).toBe(0);
  });

  it('forgets an attempt found ended on its own, and its later end event changes nothing', () => {
    const index = new OpenAttemptsIndex();
    index.apply(
      recorded('session-s1', 'CompactionStarted', { attemptId: 'a1', trigger: 'manual' }, { engine: 'x' }),
    );
    index.forget('s1', 'a1');
    expect(index.byEngine().size).toBe(0);
    index.apply(recorded('session-s1', 'CompactionFailed', { attemptId: 'a1' }));
    expect(index.byEngine().size).toBe(0);
  });

  it('reads on from after the last event it applied', () => {
    const index = new OpenAttemptsIndex();
    expect(index.fromPosition).toBe('start');
    const last = recorded('session-s1', 'CompactionFailed', { attemptId: 'a1' });
    index.apply(last);
    expect(index.fromPosition).toBe(last.position + 1n);
  });
});
