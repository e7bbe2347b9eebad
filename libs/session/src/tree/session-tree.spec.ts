import { session } from '@strata/testing';
import { buildSessionTree, commonAncestorId, isOnPath, pathToEntry, rootIds } from './session-tree';

// A ─ B ─ C ─ D (first branch)
//     └ E ─ F   (second branch, from B)
const builder = session().user('A').assistant('B').user('C').assistant('D');
const [a, b, c, d] = builder.entries.map((entry) => entry.id) as [string, string, string, string];
builder.branchFrom(b).user('E').assistant('F');
const [e, f] = builder.entries.slice(4).map((entry) => entry.id) as [string, string];
builder.label(c, 'checkpoint').label(a, 'start').label(c);
const tree = buildSessionTree(builder.entries);

describe('a session tree with two branches', () => {
  it('links children to their parents in append order', () => {
    expect(tree.children.get(b)).toEqual([c, e]);
    expect(rootIds(tree)).toEqual([a]);
  });

  it('gives the root→entry path', () => {
    expect(pathToEntry(tree.byId, d).map((entry) => entry.id)).toEqual([a, b, c, d]);
    expect(pathToEntry(tree.byId, f).map((entry) => entry.id)).toEqual([a, b, e, f]);
    expect(pathToEntry(tree.byId, 'unknown')).toEqual([]);
  });

  it('finds the deepest common ancestor of two entries', () => {
    expect(commonAncestorId(tree.byId, d, f)).toBe(b);
    expect(commonAncestorId(tree.byId, c, d)).toBe(c);
  });

  it('tells whether an entry lies on the path of another', () => {
    expect(isOnPath(tree.byId, b, f)).toBe(true);
    expect(isOnPath(tree.byId, c, f)).toBe(false);
    expect(isOnPath(tree.byId, f, f)).toBe(true);
  });

  it('resolves labels: the last label of a target wins and an empty one clears it', () => {
    expect(Object.fromEntries(tree.labels)).toEqual({ [a]: 'start' });
  });

  it('takes the last appended entry as the leaf of a loaded file', () => {
    expect(tree.lastEntryId).toBe(builder.lastId);
  });
});

describe('a session with an orphan and a parent cycle', () => {
  const base = session().user('root').entries[0]!;
  const orphan = { ...base, id: 'orphan', parentId: 'missing' };
  const loopA = { ...base, id: 'loop-a', parentId: 'loop-b' };
  const loopB = { ...base, id: 'loop-b', parentId: 'loop-a' };
  const broken = buildSessionTree([base, orphan, loopA, loopB]);

  it('treats an entry whose parent is missing as a root that starts its path', () => {
    expect(rootIds(broken)).toEqual([base.id, 'orphan']);
    expect(pathToEntry(broken.byId, 'orphan').map((entry) => entry.id)).toEqual(['orphan']);
  });

  it('stops walking a cycle at the first repeated entry', () => {
    expect(pathToEntry(broken.byId, 'loop-a').map((entry) => entry.id)).toEqual(['loop-b', 'loop-a']);
    expect(isOnPath(broken.byId, 'base', 'loop-a')).toBe(false);
  });
});
