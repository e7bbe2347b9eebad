import type { SessionTree, TreeNode } from '@strata/client/browser';
import { compactionToCompare } from './compare-panel';

function node(id: string, parentId: string | null, type = 'message'): TreeNode {
  return { id, parentId, type, timestamp: '2026-01-01T00:00:00Z', label: null, childIds: [] };
}

// root ← c1 (compaction) ← m2 ← c2 (compaction) ← m3, and a side branch m2 ← s1
const tree: SessionTree = {
  sessionId: 's',
  header: { type: 'session', id: 's', timestamp: '2026-01-01T00:00:00Z', cwd: '/work' },
  leafId: 'm3',
  rootIds: ['root'],
  nodes: [
    node('root', null),
    node('c1', 'root', 'compaction'),
    node('m2', 'c1'),
    node('c2', 'm2', 'compaction'),
    node('m3', 'c2'),
    node('s1', 'm2'),
  ],
  revision: '6',
  position: '6',
};

describe('the compaction the before / after tab compares', () => {
  it('is the one chosen in its list, whatever entry is selected', () => {
    expect(compactionToCompare(tree, 'c1', 'm3')?.id).toBe('c1');
  });

  it('is the selected entry when it is a compaction (?entry=), not the latest', () => {
    expect(compactionToCompare(tree, undefined, 'c1')?.id).toBe('c1');
  });

  it('is the compaction in effect at the selected entry, else the latest', () => {
    expect(compactionToCompare(tree, undefined, 's1')?.id).toBe('c1');
    expect(compactionToCompare(tree, undefined, 'm3')?.id).toBe('c2');
    expect(compactionToCompare(tree, undefined, 'root')?.id).toBe('c2');
    expect(compactionToCompare(tree, undefined, undefined)?.id).toBe('c2');
  });

  it('is none for an unknown compaction id', () => {
    expect(compactionToCompare(tree, 'nope', undefined)).toBeUndefined();
  });
});
