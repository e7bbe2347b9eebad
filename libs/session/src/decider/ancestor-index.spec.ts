import fc from 'fast-check';
import { AncestorIndex } from './ancestor-index';

/** A forest as parent indexes (undefined: a root), each parent before its child. */
const forest = fc
  .array(fc.option(fc.nat(), { nil: undefined, freq: 8 }), { minLength: 1, maxLength: 200 })
  .map((draws) => draws.map((draw, node) => (draw === undefined || node === 0 ? undefined : draw % node)));

function naiveIsAncestorOrSelf(
  parents: readonly (number | undefined)[],
  ancestor: number,
  node: number,
): boolean {
  for (let current: number | undefined = node; current !== undefined; current = parents[current]) {
    if (current === ancestor) return true;
  }
  return false;
}

function indexOf(parents: readonly (number | undefined)[]): AncestorIndex {
  const index = AncestorIndex.empty();
  for (const parent of parents) index.add(parent);
  return index;
}

describe('an ancestor index', () => {
  it('answers every ancestor question as a walk up the parents would', () => {
    fc.assert(
      fc.property(forest, fc.nat(), fc.nat(), (parents, ancestorDraw, nodeDraw) => {
        const index = indexOf(parents);
        const ancestor = ancestorDraw % parents.length;
        const node = nodeDraw % parents.length;
        expect(index.isAncestorOrSelf(ancestor, node)).toBe(naiveIsAncestorOrSelf(parents, ancestor, node));
        expect(index.parentAt(node)).toBe(parents[node]);
      }),
      { numRuns: 500 },
    );
  });

  it('answers for every pair of a small forest, including across trees', () => {
    const parents = [undefined, 0, 1, 1, undefined, 4, 2, 6, 3];
    const index = indexOf(parents);
    for (let ancestor = 0; ancestor < parents.length; ancestor += 1) {
      for (let node = 0; node < parents.length; node += 1) {
        expect(index.isAncestorOrSelf(ancestor, node)).toBe(naiveIsAncestorOrSelf(parents, ancestor, node));
      }
    }
  });

  it('extends a prefix of itself without changing it, and copies a prefix', () => {
    const index = indexOf([undefined, 0, 1, 2]);
    const extended = index.extend(2);
    const child = extended.add(1);
    expect(child).toBe(2);
    expect(extended.isAncestorOrSelf(0, child)).toBe(true);
    expect(index.size).toBe(4);
    expect(index.isAncestorOrSelf(1, 3)).toBe(true);
    const copied = index.copy(3);
    expect(copied.size).toBe(3);
    expect(copied.isAncestorOrSelf(0, 2)).toBe(true);
  });

  it('treats an unknown or later parent as no parent', () => {
    const index = indexOf([undefined, 5, -1]);
    expect(index.parentAt(1)).toBeUndefined();
    expect(index.parentAt(2)).toBeUndefined();
    expect(index.isAncestorOrSelf(0, 1)).toBe(false);
  });

  it('answers on a chain of 200,000 entries, the root being an ancestor of the last', () => {
    const index = AncestorIndex.empty();
    index.add(undefined);
    for (let node = 1; node < 200_000; node += 1) index.add(node - 1);
    expect(index.isAncestorOrSelf(0, 199_999)).toBe(true);
    expect(index.isAncestorOrSelf(123_456, 199_999)).toBe(true);
    expect(index.isAncestorOrSelf(199_999, 123_456)).toBe(false);
  });
});
