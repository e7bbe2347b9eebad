import type { SessionTree, TreeNode } from '@strata/client/browser';
import { branchHeadAbove, indexTree, isFoldable, revealing, visibleRows } from './tree-rows';

/** A tree from `[id, parentId]` pairs in append order. */
function treeOf(pairs: readonly (readonly [string, string | null])[], leafId: string | null): SessionTree {
  const children = new Map<string | null, string[]>();
  for (const [id, parentId] of pairs) children.set(parentId, [...(children.get(parentId) ?? []), id]);
  const nodes: TreeNode[] = pairs.map(([id, parentId]) => ({
    id,
    parentId,
    type: 'message',
    timestamp: '2025-01-01T00:00:00.000Z',
    label: null,
    childIds: children.get(id) ?? [],
  }));
  const header = { type: 'session', id: 's', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/work' } as const;
  return {
    sessionId: 's',
    header,
    leafId,
    rootIds: children.get(null) ?? [],
    nodes,
    revision: '0',
    position: '0',
  };
}

// a ─ b ─┬─ c ─ d          (current path: a b c d)
//        └─ e ─ f ─ g
const branched = treeOf(
  [
    ['a', null],
    ['b', 'a'],
    ['c', 'b'],
    ['d', 'c'],
    ['e', 'b'],
    ['f', 'e'],
    ['g', 'f'],
  ],
  'd',
);

const ids = (rows: readonly { node: TreeNode }[]): string[] => rows.map((row) => row.node.id);

describe('given a session with a side branch off the current path', () => {
  const index = indexTree(branched);

  it('folds the side branch by default, lists it before the current path, and keeps that unfolded', () => {
    const rows = visibleRows(index, new Map());
    expect(ids(rows)).toEqual(['a', 'b', 'e', 'c', 'd']);
    expect(rows.find((row) => row.node.id === 'e')).toMatchObject({
      foldable: true,
      folded: true,
      descendantCount: 2,
    });
    expect(rows.find((row) => row.node.id === 'd')).toMatchObject({
      isCurrentLeaf: true,
      onCurrentPath: true,
    });
  });

  it('indents the children of a branch point one step and keeps chains at one depth', () => {
    const rows = visibleRows(index, new Map([['e', false]]));
    expect(rows.map((row) => [row.node.id, row.depth])).toEqual([
      ['a', 0],
      ['b', 0],
      ['e', 1],
      ['f', 1],
      ['g', 1],
      ['c', 1],
      ['d', 1],
    ]);
  });

  it('only lets branch heads with descendants fold', () => {
    expect(['a', 'b', 'c', 'd', 'e', 'f'].filter((id) => isFoldable(index, id))).toEqual(['a', 'c', 'e']);
  });

  it('unfolds every branch head above an entry to reveal it', () => {
    const choices = revealing(index, new Map(), 'g');
    expect(ids(visibleRows(index, choices))).toContain('g');
  });

  it('goes from an entry to the branch head above it', () => {
    expect(branchHeadAbove(index, 'g')).toBe('e');
    expect(branchHeadAbove(index, 'd')).toBe('c');
    expect(branchHeadAbove(index, 'a')).toBeUndefined();
  });
});

describe('given a chain of 10,000 entries', () => {
  const pairs: [string, string | null][] = [];
  for (let position = 0; position < 10_000; position += 1) {
    pairs.push([`e${position}`, position === 0 ? null : `e${position - 1}`]);
  }
  const index = indexTree(treeOf(pairs, 'e9999'));

  it('lists every entry in order at depth 0 without recursion', () => {
    const rows = visibleRows(index, new Map());
    expect(rows).toHaveLength(10_000);
    expect(rows[9_999]).toMatchObject({ depth: 0, isCurrentLeaf: true });
    expect(rows[0]?.descendantCount).toBe(9_999);
  });

  it('hides the whole chain when its root is folded', () => {
    expect(visibleRows(index, new Map([['e0', true]]))).toHaveLength(1);
  });
});

describe('given an entry whose parent is unknown', () => {
  it('shows it as a root', () => {
    const index = indexTree(treeOf([['orphan', 'missing']], 'orphan'));
    expect(ids(visibleRows(index, new Map()))).toEqual(['orphan']);
  });
});
