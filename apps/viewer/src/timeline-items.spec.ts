import type { AuditAttempt, SessionTree, TreeNode } from '@strata/client/browser';
import { timelineItems } from './timeline-items';

function node(id: string, type: string, timestamp: string): TreeNode {
  return { id, parentId: null, type, timestamp, label: null, childIds: [] };
}

function attempt(attemptId: string, entryId: string | null, startedAt: string): AuditAttempt {
  return {
    sessionId: 's',
    attemptId,
    tenant: 'default',
    kind: 'compaction',
    trigger: 'manual',
    outcome: entryId === null ? 'failed' : 'completed',
    reason: null,
    error: null,
    model: 'offline',
    tokensBefore: 100,
    estimatedTokensAfter: 10,
    usage: null,
    durationMs: 5,
    startedAt,
    endedAt: startedAt,
    entryId,
    preparedAtLeafId: null,
    firstKeptEntryId: null,
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
    startPosition: '1',
    position: '2',
  };
}

describe('given imported compactions and recorded attempts', () => {
  const tree: SessionTree = {
    sessionId: 's',
    header: { type: 'session', id: 's', timestamp: '2026-01-01T00:00:00Z', cwd: '/work' },
    leafId: 'engine-compaction',
    rootIds: [],
    nodes: [
      node('imported', 'compaction', '2025-01-01T00:00:00.000Z'),
      node('message', 'message', '2025-01-02T00:00:00.000Z'),
      node('engine-compaction', 'compaction', '2026-01-01T00:00:01Z'),
    ],
    revision: '3',
    position: '3',
  };

  it('lists each attempt once with the entry it wrote, and imported entries without an attempt, by time', () => {
    const items = timelineItems(tree, [
      attempt('a1', null, '2026-01-01T00:00:00.000Z'),
      attempt('a2', 'engine-compaction', '2026-01-01T00:00:01.000Z'),
    ]);
    expect(items.map((item) => [item.key, item.entryIndex])).toEqual([
      ['entry:imported', 0],
      ['attempt:a1', undefined],
      ['attempt:a2', 2],
    ]);
  });
});
