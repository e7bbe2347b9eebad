// Ancestor queries over a growing forest in O(log depth) time and O(1) extra space per node:
// each node keeps its parent, its depth and one jump pointer laid out as in skew-binary
// random-access lists (E. W. Myers, "An applicative random-access stack", 1983), so that a walk
// up to a given depth takes logarithmically many steps. The decider asks "is this entry on the
// path to that one?" for every compaction it checks; a plain walk would cost the depth of a
// session's tree each time, which a hostile batch could multiply by ten thousand.
const NO_PARENT = -1;

export class AncestorIndex {
  private readonly parents: number[] = [];
  private readonly depths: number[] = [];
  private readonly jumps: number[] = [];

  /** `base` (its first `baseSize` nodes) comes before the nodes added here, which it never sees. */
  private constructor(
    private readonly base: AncestorIndex | undefined,
    private readonly baseSize: number,
  ) {}

  static empty(): AncestorIndex {
    return new AncestorIndex(undefined, 0);
  }

  get size(): number {
    return this.baseSize + this.parents.length;
  }

  /** A new index seeing this one's first `size` nodes and growing apart from it. */
  extend(size: number = this.size): AncestorIndex {
    return new AncestorIndex(this, Math.min(size, this.size));
  }

  /** A flat copy of the first `size` nodes. */
  copy(size: number): AncestorIndex {
    const copied = AncestorIndex.empty();
    for (let node = 0; node < Math.min(size, this.size); node += 1) copied.add(this.parentAt(node));
    return copied;
  }

  /** Adds a node under `parent` (a root when undefined or unknown); returns its index. */
  add(parent: number | undefined): number {
    const node = this.size;
    if (parent === undefined || parent < 0 || parent >= node) {
      this.parents.push(NO_PARENT);
      this.depths.push(0);
      this.jumps.push(node);
      return node;
    }
    const parentDepth = this.depthAt(parent);
    const parentJump = this.jumpAt(parent);
    const jumpDepth = this.depthAt(parentJump);
    const jumpJump = this.jumpAt(parentJump);
    const evenSteps = parentDepth - jumpDepth === jumpDepth - this.depthAt(jumpJump);
    this.parents.push(parent);
    this.depths.push(parentDepth + 1);
    this.jumps.push(evenSteps ? jumpJump : parent);
    return node;
  }

  /** The parent's index, or undefined for a root. */
  parentAt(node: number): number | undefined {
    const parent =
      node < this.baseSize && this.base !== undefined
        ? (this.base.parentAt(node) ?? NO_PARENT)
        : this.own(this.parents, node);
    return parent === NO_PARENT ? undefined : parent;
  }

  /** Whether `ancestor` is `node` or one of its ancestors. */
  isAncestorOrSelf(ancestor: number, node: number): boolean {
    const depth = this.depthAt(ancestor);
    let current = node;
    if (this.depthAt(current) < depth) return false;
    while (this.depthAt(current) > depth) {
      const jump = this.jumpAt(current);
      current = this.depthAt(jump) >= depth ? jump : (this.parentAt(current) ?? current);
    }
    return current === ancestor;
  }

  private depthAt(node: number): number {
    return node < this.baseSize && this.base !== undefined
      ? this.base.depthAt(node)
      : this.own(this.depths, node);
  }

  private jumpAt(node: number): number {
    return node < this.baseSize && this.base !== undefined
      ? this.base.jumpAt(node)
      : this.own(this.jumps, node);
  }

  private own(values: readonly number[], node: number): number {
    const value = values[node - this.baseSize];
    if (value === undefined) throw new RangeError(`no node ${node}`);
    return value;
  }
}
