import { foldSessionEvents } from './decide';
import {
  appended,
  assistant,
  compaction,
  header,
  label,
  started,
  startedChain,
  toolResult,
  user,
} from './decider-spec-data';
import type { SessionEntry } from '../entries/entries';
import type { SessionEvent } from './session-events';
import { ActiveSessionState, evolve, initialState, type SessionState } from './session-state';

function active(state: SessionState): ActiveSessionState {
  if (state.status !== 'active') throw new Error(`expected an active session, got ${state.status}`);
  return state;
}

const ids = (entries: readonly { readonly id: string }[]) => entries.map((entry) => entry.id);

describe('the initial state', () => {
  it('is empty, and ignores everything but SessionStarted', () => {
    expect(initialState()).toEqual({ status: 'empty' });
    expect(foldSessionEvents([appended(user('u1', null))])).toEqual({ status: 'empty' });
  });

  it('becomes active with the header and no leaf on SessionStarted', () => {
    const state = active(foldSessionEvents([started]));
    expect(state.header).toEqual(header);
    expect(state.leafId).toBeNull();
    expect(state.entries()).toEqual([]);
    expect(state.currentPath()).toEqual([]);
  });
});

describe('a session folded from appended entries', () => {
  const branched = active(
    foldSessionEvents([
      ...startedChain,
      appended(user('x1', 'a1')),
      appended(label('l1', 'x1', 'u1', 'start')),
      appended(label('l2', 'l1', 'u2', 'second turn')),
      appended(label('l3', 'l2', 'u1', 'renamed')),
      appended(label('l4', 'l3', 'u2')),
    ]),
  );

  it('moves the leaf to each appended entry', () => {
    expect(branched.leafId).toBe('l4');
  });

  it('finds entries by id and lists them in append order', () => {
    expect(branched.hasEntry('t1')).toBe(true);
    expect(branched.hasEntry('missing')).toBe(false);
    expect(branched.getEntry('x1')).toEqual(user('x1', 'a1'));
    expect(ids(branched.entries())).toEqual([
      'u1',
      'a1',
      't1',
      'u2',
      'a2',
      't2',
      'x1',
      'l1',
      'l2',
      'l3',
      'l4',
    ]);
  });

  it('walks the root-to-entry path of any entry', () => {
    expect(ids(branched.pathTo('t2'))).toEqual(['u1', 'a1', 't1', 'u2', 'a2', 't2']);
    expect(ids(branched.pathTo('x1'))).toEqual(['u1', 'a1', 'x1']);
    expect(ids(branched.currentPath())).toEqual(['u1', 'a1', 'x1', 'l1', 'l2', 'l3', 'l4']);
    expect(branched.pathTo('missing')).toEqual([]);
    expect(branched.isOnPathTo('a1', 'x1')).toBe(true);
    expect(branched.isOnPathTo('t1', 'x1')).toBe(false);
    expect(branched.isOnPathTo('x1', 'x1')).toBe(true);
  });

  it('resolves labels: the last label entry wins and an empty one clears', () => {
    expect(branched.labelOf('u1')).toBe('renamed');
    expect(branched.labelOf('u2')).toBeUndefined();
    expect([...branched.labels()]).toEqual([['u1', 'renamed']]);
  });

  it('ignores an entry whose id is already taken', () => {
    const again = evolve(branched, appended(user('u1', 't2', 'a duplicate')));
    expect(again).toBe(branched);
  });
});

describe('a session whose leaf was moved', () => {
  it('keeps the moved leaf after folding again (navigation is persisted)', () => {
    const state = active(
      foldSessionEvents([
        ...startedChain,
        { type: 'LeafMoved', data: { leafId: 'a1', previousLeafId: 't2' } },
      ]),
    );
    // The reference keeps the leaf in memory only: reloading puts it back on the last entry (t2).
    expect(state.leafId).toBe('a1');
    expect(ids(state.currentPath())).toEqual(['u1', 'a1']);
  });

  it('starts a new root path after moving the leaf before the first entry', () => {
    const state = active(
      foldSessionEvents([
        ...startedChain,
        { type: 'LeafMoved', data: { leafId: null, previousLeafId: 't2' } },
        appended(user('r2', null)),
      ]),
    );
    expect(ids(state.currentPath())).toEqual(['r2']);
  });
});

describe('a session with pruned tool results', () => {
  const pruned: SessionEvent = {
    type: 'ToolOutputsPruned',
    data: { prunedAt: 500, results: [{ entryId: 't1', tokens: 42_000 }], tokensSaved: 41_990 },
  };
  const state = active(foldSessionEvents([...startedChain, appended(toolResult('t9', 't2', 400)), pruned]));

  it('knows which results are pruned, by event or on import', () => {
    expect(state.isPruned('t1')).toBe(true);
    expect(state.isPruned('t9')).toBe(true);
    expect(state.isPruned('t2')).toBe(false);
    expect(state.isPruned('a1')).toBe(false);
  });

  it('lists the results pruned by events with their original size', () => {
    expect([...state.prunedResults()]).toEqual([['t1', { prunedAt: 500, tokens: 42_000 }]]);
  });

  it('keeps the first pruning when a result is pruned again', () => {
    const again = evolve(state, { ...pruned, data: { ...pruned.data, prunedAt: 900 } });
    expect(active(again).prunedResults().get('t1')).toEqual({ prunedAt: 500, tokens: 42_000 });
  });
});

describe('a session with attempts', () => {
  const compactionStarted: SessionEvent = {
    type: 'CompactionStarted',
    data: {
      attemptId: 'c1',
      trigger: 'overflow',
      preparedAtLeafId: 't2',
      tokensBefore: 200_000,
      startedAt: 1,
    },
  };
  const branchStarted: SessionEvent = {
    type: 'BranchSummaryStarted',
    data: { attemptId: 'b1', targetId: 'u2', oldLeafId: 't2', startedAt: 2 },
  };
  const completed: SessionEvent = {
    type: 'CompactionCompleted',
    data: {
      attemptId: 'c1',
      entryId: 'k1',
      trigger: 'overflow',
      durationMs: 10,
      tokensBefore: 200_000,
      estimatedTokensAfter: 20_000,
    },
  };
  const retry: SessionEvent = {
    type: 'ContinuationRequested',
    data: { reason: 'overflow_retry', causationAttemptId: 'c1' },
  };
  const open = active(foldSessionEvents([...startedChain, compactionStarted, branchStarted]));
  const done = active(foldSessionEvents([appended(compaction('k1', 't2', 'u2')), completed, retry], open));

  it('lists open attempts with what started them', () => {
    expect(open.openAttempts()).toEqual([
      {
        kind: 'compaction',
        attemptId: 'c1',
        started: compactionStarted.data,
        outcome: null,
        continuation: null,
      },
      { kind: 'branch_summary', attemptId: 'b1', started: branchStarted.data, outcome: null },
    ]);
  });

  it('records the outcome and the continuation of an ended attempt', () => {
    expect(done.getAttempt('c1')).toEqual({
      kind: 'compaction',
      attemptId: 'c1',
      started: compactionStarted.data,
      outcome: completed,
      continuation: retry.data,
    });
    expect(done.openAttempts().map((attempt) => attempt.attemptId)).toEqual(['b1']);
    expect(done.getAttempt('missing')).toBeUndefined();
  });

  it('ignores a second outcome and an outcome of the other kind', () => {
    const second = evolve(done, {
      type: 'CompactionFailed',
      data: { attemptId: 'c1', error: { message: 'x' } },
    });
    expect(active(second).getAttempt('c1')?.outcome).toEqual(completed);
    const wrongKind = evolve(open, { type: 'CompactionSkipped', data: { attemptId: 'b1', reason: 'x' } });
    expect(active(wrongKind).getAttempt('b1')?.outcome).toBeNull();
  });

  it('does not let an earlier state see a later outcome', () => {
    expect(open.getAttempt('c1')?.outcome).toBeNull();
    expect(open.openAttempts()).toHaveLength(2);
  });
});

describe('a long session', () => {
  it('folds 100,000 entries and walks the whole path without recursion', () => {
    const events: SessionEvent[] = [started];
    for (let index = 0; index < 100_000; index += 1) {
      const parentId = index === 0 ? null : `e${index - 1}`;
      events.push(appended(index % 2 === 0 ? user(`e${index}`, parentId) : assistant(`e${index}`, parentId)));
    }
    const state = active(foldSessionEvents(events));
    expect(state.entryCount).toBe(100_000);
    expect(state.leafId).toBe('e99999');
    expect(state.currentPath()).toHaveLength(100_000);
  });
});

describe('the newest custom entry of a type', () => {
  const custom = (id: string, parentId: string, customType: string, data: unknown): SessionEntry => ({
    type: 'custom',
    id,
    parentId,
    timestamp: '2026-01-01T00:00:00.000Z',
    customType,
    data,
  });
  const before = active(foldSessionEvents([...startedChain, appended(custom('c1', 't2', 'settings', 1))]));
  const after = active(
    evolve(
      evolve(before, appended(custom('c2', 'c1', 'other', 2))),
      // on another branch: append order decides, not the path
      appended(custom('c3', 'a1', 'settings', 3)),
    ),
  );

  it('is the newest of that type in append order, whatever the branch', () => {
    expect(after.newestCustomEntry('settings')?.id).toBe('c3');
    expect(after.newestCustomEntry('other')?.id).toBe('c2');
    expect(after.newestCustomEntry('missing')).toBeUndefined();
  });

  it('is not seen by an earlier state, nor by a state forked from it', () => {
    expect(before.newestCustomEntry('settings')?.id).toBe('c1');
    expect(before.newestCustomEntry('other')).toBeUndefined();
    const forked = active(evolve(before, appended(custom('c4', 'c1', 'other', 4))));
    expect(forked.newestCustomEntry('other')?.id).toBe('c4');
    expect(forked.newestCustomEntry('settings')?.id).toBe('c1');
    expect(after.newestCustomEntry('other')?.id).toBe('c2');
  });
});
