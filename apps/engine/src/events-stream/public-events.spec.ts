import type { ProjectedEvent } from '@strata/projections';
import type { CompactionEntry, SessionEntry, SessionEvent } from '@strata/session';
import {
  describeNameMapping,
  publicEventNames,
  storeTypesFor,
  type PublicEventName,
} from './public-event-names';
import {
  parsePublicEventId,
  publicEventId,
  publicEventsOf,
  type AttemptStart,
  type StreamLookups,
} from './public-events';

const compactionEntry: CompactionEntry = {
  type: 'compaction',
  id: 'c1',
  parentId: 'e9',
  timestamp: '2026-01-01T00:00:00.000Z',
  summary: 'The summary.',
  firstKeptEntryId: 'e5',
  tokensBefore: 900,
};

function lookups(
  options: { start?: AttemptStart; entry?: SessionEntry; opensSummary?: boolean } = {},
): StreamLookups {
  return {
    entryBefore: (_stream, _revision, entryId) =>
      Promise.resolve(options.entry?.id === entryId ? options.entry : undefined),
    attemptStartBefore: () => Promise.resolve(options.start),
    opensBranchSummary: () => Promise.resolve(options.opensSummary ?? false),
  };
}

function projected(event: SessionEvent, position = 42n): ProjectedEvent {
  return {
    sessionId: 's1',
    streamId: 'session-s1',
    eventId: 'event-1',
    revision: 7n,
    position,
    recordedAt: '2026-01-01T00:00:05.000Z',
    tenant: 'acme',
    event,
  };
}

const everything = { wants: (): boolean => true };
const only = (...names: PublicEventName[]) => ({ wants: (name: PublicEventName) => names.includes(name) });

function startOf(trigger: 'manual' | 'threshold' | 'overflow'): AttemptStart {
  return {
    kind: 'compaction',
    data: {
      attemptId: 'a1',
      trigger,
      preparedAtLeafId: 'e9',
      tokensBefore: 900,
      startedAt: 1_767_225_600_000,
    },
  };
}

describe('event ids', () => {
  it('are the global position, with .1 for the second public event of a store event', () => {
    expect(publicEventId(42n, 0)).toBe('42');
    expect(publicEventId(42n, 1)).toBe('42.1');
    expect(parsePublicEventId('42.1')).toEqual({ position: 42n, index: 1 });
    expect(parsePublicEventId('42')).toEqual({ position: 42n, index: 0 });
    expect(parsePublicEventId('forty-two')).toBeUndefined();
    expect(parsePublicEventId('-1')).toBeUndefined();
    expect(parsePublicEventId('9223372036854775807.1')).toEqual({ position: 2n ** 63n - 1n, index: 1 });
    expect(parsePublicEventId('9223372036854775808')).toBeUndefined();
    expect(parsePublicEventId('99999999999999999999')).toBeUndefined();
  });
});

describe('given a completed manual compaction', () => {
  const event: SessionEvent = {
    type: 'CompactionCompleted',
    data: {
      attemptId: 'a1',
      entryId: 'c1',
      trigger: 'manual',
      durationMs: 12,
      tokensBefore: 900,
      estimatedTokensAfter: 200,
    },
  };

  it('gives session_compact with the compaction entry, and no automatic event', async () => {
    const events = await publicEventsOf(projected(event), everything, lookups({ entry: compactionEntry }));
    expect(events).toEqual([
      expect.objectContaining({
        id: '42',
        name: 'session_compact',
        sessionId: 's1',
        revision: '7',
        data: expect.objectContaining({ compactionEntry, fromExtension: false, trigger: 'manual' }),
      }),
    ]);
  });
});

describe('given a completed overflow compaction', () => {
  const event: SessionEvent = {
    type: 'CompactionCompleted',
    data: {
      attemptId: 'a1',
      entryId: 'c1',
      trigger: 'overflow',
      durationMs: 12,
      tokensBefore: 900,
      estimatedTokensAfter: 200,
    },
  };

  it('gives session_compact, then auto_compaction_end with the result and willRetry', async () => {
    const events = await publicEventsOf(projected(event), everything, lookups({ entry: compactionEntry }));
    expect(events.map((item) => [item.id, item.name])).toEqual([
      ['42', 'session_compact'],
      ['42.1', 'auto_compaction_end'],
    ]);
    expect(events[1]?.data).toEqual({
      attemptId: 'a1',
      reason: 'overflow',
      outcome: 'completed',
      aborted: false,
      willRetry: true,
      skipped: false,
      result: { summary: 'The summary.', firstKeptEntryId: 'e5', tokensBefore: 900 },
      compactionEntry,
    });
  });

  it('skips the delivered index when resuming inside the store event', async () => {
    const events = await publicEventsOf(
      projected(event),
      { ...everything, afterIndex: 0 },
      lookups({ entry: compactionEntry }),
    );
    expect(events.map((item) => item.id)).toEqual(['42.1']);
    expect(await publicEventsOf(projected(event), { ...everything, afterIndex: 1 }, lookups())).toEqual([]);
  });
});

describe('given terminal events of automatic attempts', () => {
  it('marks a skipped one as skipped, not failed (reference §11.1 item 8)', async () => {
    const event: SessionEvent = {
      type: 'CompactionSkipped',
      data: { attemptId: 'a1', reason: 'already_compacted' },
    };
    const [end] = await publicEventsOf(
      projected(event),
      only('auto_compaction_end'),
      lookups({ start: startOf('threshold') }),
    );
    expect(end?.data).toEqual({
      attemptId: 'a1',
      reason: 'threshold',
      outcome: 'skipped',
      aborted: false,
      willRetry: false,
      skipped: true,
      result: null,
      outcomeReason: 'already_compacted',
    });
  });

  it('reports a failure with the reference wording, and a cancellation as aborted', async () => {
    const failed: SessionEvent = {
      type: 'CompactionFailed',
      data: { attemptId: 'a1', error: { message: 'model down' } },
    };
    const [failure] = await publicEventsOf(
      projected(failed),
      only('auto_compaction_end'),
      lookups({ start: startOf('overflow') }),
    );
    expect(failure?.data).toMatchObject({
      outcome: 'failed',
      errorMessage: 'Context overflow recovery failed: model down',
    });
    const [threshold] = await publicEventsOf(
      projected(failed),
      only('auto_compaction_end'),
      lookups({ start: startOf('threshold') }),
    );
    expect(threshold?.data).toMatchObject({ errorMessage: 'Auto-compaction failed: model down' });

    const cancelled: SessionEvent = {
      type: 'CompactionCancelled',
      data: { attemptId: 'a1', reason: 'aborted' },
    };
    const [end] = await publicEventsOf(
      projected(cancelled),
      only('auto_compaction_end'),
      lookups({ start: startOf('threshold') }),
    );
    expect(end?.data).toMatchObject({ outcome: 'cancelled', aborted: true });
  });

  it('gives no automatic event for a manual attempt', async () => {
    const event: SessionEvent = {
      type: 'CompactionSkipped',
      data: { attemptId: 'a1', reason: 'nothing_to_summarize' },
    };
    const events = await publicEventsOf(projected(event), everything, lookups({ start: startOf('manual') }));
    expect(events.map((item) => item.name)).toEqual(['compaction_skipped']);
  });
});

describe('given leaf moves', () => {
  const moved: SessionEvent = { type: 'LeafMoved', data: { leafId: 'e3', previousLeafId: 'e9' } };

  it('gives session_tree for a plain navigation', async () => {
    const [tree] = await publicEventsOf(projected(moved), everything, lookups());
    expect(tree).toMatchObject({
      name: 'session_tree',
      data: { cause: 'leaf_moved', newLeafId: 'e3', oldLeafId: 'e9' },
    });
  });

  it('gives nothing for the move that opens a branch summary (its completion gives session_tree)', async () => {
    expect(await publicEventsOf(projected(moved), everything, lookups({ opensSummary: true }))).toEqual([]);
  });
});

describe('the name mapping', () => {
  it('covers every public name, and the subscription filter asks only for what can give them', () => {
    const mapping = describeNameMapping();
    for (const name of publicEventNames) expect(mapping[name].length).toBeGreaterThan(0);
    expect(storeTypesFor(new Set<PublicEventName>(['session_compact']))).toEqual(['CompactionCompleted']);
    expect(storeTypesFor(new Set<PublicEventName>(['auto_compaction_end'])).sort()).toEqual(
      ['CompactionCancelled', 'CompactionCompleted', 'CompactionFailed', 'CompactionSkipped'].sort(),
    );
    expect(storeTypesFor(new Set<PublicEventName>(['session_tree'])).sort()).toEqual([
      'BranchSummaryCompleted',
      'LeafMoved',
    ]);
  });
});

describe('given the writer lease taken, then expired', () => {
  const taken: SessionEvent = {
    type: 'LeaseTaken',
    data: {
      sequence: 1,
      token: '1.secret-nonce',
      holder: 'host-a',
      ttlMs: 5_000,
      takenAt: 10,
      expiresAt: 5_010,
    },
  };

  it('gives lease_taken with who holds it until when, never the token', async () => {
    const [event] = await publicEventsOf(projected(taken), everything, lookups());
    expect(event).toMatchObject({
      name: 'lease_taken',
      data: { sequence: 1, holder: 'host-a', ttlMs: 5_000, takenAt: 10, expiresAt: 5_010 },
    });
    expect(JSON.stringify(event)).not.toContain('secret-nonce');
  });

  it('gives lease_expired with the event data', async () => {
    const expired: SessionEvent = {
      type: 'LeaseExpired',
      data: { sequence: 1, holder: 'host-a', expiresAt: 5_010, recordedAt: 9_000 },
    };
    const events = await publicEventsOf(projected(expired), everything, lookups());
    expect(events).toEqual([expect.objectContaining({ name: 'lease_expired', data: expired.data })]);
  });
});
