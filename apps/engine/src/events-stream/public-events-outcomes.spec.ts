import type { ProjectedEvent } from '@strata/projections';
import type { SessionEntry, SessionEvent } from '@strata/session';
import type { PublicEventName } from './public-event-names';
import { publicEventsOf, type AttemptStart, type StreamLookups } from './public-events';

/** Lookups that find the given start and entry, and count the start lookups. */
function lookups(found: { start?: AttemptStart; entry?: SessionEntry } = {}) {
  const counted = { startLookups: 0 };
  const reads: StreamLookups = {
    entryBefore: (_stream, _revision, entryId) =>
      Promise.resolve(found.entry?.id === entryId ? found.entry : undefined),
    attemptStartBefore: () => {
      counted.startLookups += 1;
      return Promise.resolve(found.start);
    },
    opensBranchSummary: () => Promise.resolve(false),
  };
  return { reads, counted };
}

function projected(event: SessionEvent): ProjectedEvent {
  return {
    sessionId: 's1',
    streamId: 'session-s1',
    eventId: 'event-1',
    revision: 9n,
    position: 70n,
    recordedAt: '2026-01-01T00:00:05.000Z',
    tenant: 'acme',
    event,
  };
}

const only = (...names: PublicEventName[]) => ({ wants: (name: PublicEventName) => names.includes(name) });
const usage = { input: 5_000, output: 400, cacheRead: 0, cacheWrite: 0, totalTokens: 5_400 };

describe('an automatic compaction outcome that carries its facts', () => {
  const cancelled: SessionEvent = {
    type: 'CompactionCancelled',
    data: {
      attemptId: 'a1',
      reason: 'aborted',
      trigger: 'overflow',
      model: 'anthropic/claude-sonnet-4-5',
      usage,
      durationMs: 2_100,
      tokensBefore: 190_000,
      estimatedTokensAfter: 190_000,
    },
  };

  it('is published with every fact, and its auto_compaction_end needs no look-up of the start', async () => {
    const { reads, counted } = lookups();
    const events = await publicEventsOf(
      projected(cancelled),
      only('compaction_cancelled', 'auto_compaction_end'),
      reads,
    );

    expect(events.map((item) => [item.id, item.name])).toEqual([
      ['70', 'compaction_cancelled'],
      ['70.1', 'auto_compaction_end'],
    ]);
    expect(events[0]?.data).toEqual(cancelled.data);
    expect(events[1]?.data).toMatchObject({ attemptId: 'a1', reason: 'overflow', outcome: 'cancelled' });
    expect(counted.startLookups).toBe(0);
  });
});

describe('an automatic compaction outcome stored before outcomes carried their facts', () => {
  it('still finds its trigger through the start of the attempt', async () => {
    const start: AttemptStart = {
      kind: 'compaction',
      data: {
        attemptId: 'a1',
        trigger: 'threshold',
        preparedAtLeafId: 'e9',
        tokensBefore: 900,
        startedAt: 1,
      },
    };
    const { reads, counted } = lookups({ start });
    const [end] = await publicEventsOf(
      projected({ type: 'CompactionFailed', data: { attemptId: 'a1', error: { message: 'down' } } }),
      only('auto_compaction_end'),
      reads,
    );

    expect(end?.data).toMatchObject({ reason: 'threshold', outcome: 'failed' });
    expect(counted.startLookups).toBe(1);
  });
});

describe('a completed branch summary', () => {
  const summaryEntry: SessionEntry = {
    type: 'branch_summary',
    id: 's1',
    parentId: 'e3',
    timestamp: '2026-01-01T00:00:04.000Z',
    fromId: 'e9',
    summary: 'Tried the other approach.',
  };

  it('is published as session_tree with its navigation, model, usage and duration from the event itself', async () => {
    const { reads, counted } = lookups({ entry: summaryEntry });
    const [tree] = await publicEventsOf(
      projected({
        type: 'BranchSummaryCompleted',
        data: {
          attemptId: 'b1',
          entryId: 's1',
          newLeafId: 'e3',
          targetId: 'e3',
          oldLeafId: 'e9',
          model: 'openai/gpt-5-mini',
          usage,
          durationMs: 800,
        },
      }),
      only('session_tree'),
      reads,
    );

    expect(tree?.data).toMatchObject({
      cause: 'branch_summary',
      leafId: 's1',
      targetId: 'e3',
      oldLeafId: 'e9',
      model: 'openai/gpt-5-mini',
      usage,
      durationMs: 800,
      summaryEntry,
    });
    expect(counted.startLookups).toBe(0);
  });

  it('reads the old leaf of one stored before outcomes carried it from the start of the attempt', async () => {
    const start: AttemptStart = {
      kind: 'branch_summary',
      data: { attemptId: 'b1', targetId: 'e3', oldLeafId: 'e9', startedAt: 1 },
    };
    const { reads } = lookups({ start, entry: summaryEntry });
    const [tree] = await publicEventsOf(
      projected({
        type: 'BranchSummaryCompleted',
        data: { attemptId: 'b1', entryId: 's1', newLeafId: 'e3', durationMs: 800 },
      }),
      only('session_tree'),
      reads,
    );

    expect(tree?.data).toMatchObject({ leafId: 's1', oldLeafId: 'e9' });
  });
});
