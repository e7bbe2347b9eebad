// The session tree as the rows of a windowed list. A chain of single children stays at one
// indentation; the children of a branch point (an entry with several children) are indented one
// step. Each branch head (a root, or a child of a branch point) with descendants can be folded;
// by default the branches off the current leaf's path are folded and listed before it. Pure and
// iterative (a session may be a chain of 10,000 entries, deeper than any call stack).
import type { SessionTree, TreeNode } from '@strata/client/browser';

export interface TreeRow {
  readonly node: TreeNode;
  /** The node's append index (its offset in the entries endpoint). */
  readonly index: number;
  readonly depth: number;
  readonly descendantCount: number;
  readonly foldable: boolean;
  readonly folded: boolean;
  readonly onCurrentPath: boolean;
  readonly isCurrentLeaf: boolean;
  readonly isBranchPoint: boolean;
}

export interface TreeIndex {
  readonly tree: SessionTree;
  readonly byId: ReadonlyMap<string, { readonly node: TreeNode; readonly index: number }>;
  /** Roots, and nodes whose parent is unknown. */
  readonly rootIds: readonly string[];
  readonly descendantCounts: ReadonlyMap<string, number>;
  readonly currentPath: ReadonlySet<string>;
}

/** Explicit fold choices by entry id; an entry without one is folded iff it is off the current path. */
export type FoldChoices = ReadonlyMap<string, boolean>;

export function indexTree(tree: SessionTree): TreeIndex {
  const byId = new Map<string, { node: TreeNode; index: number }>();
  tree.nodes.forEach((node, index) => byId.set(node.id, { node, index }));
  const rootIds = [...tree.rootIds];
  const listedRoots = new Set(rootIds);
  for (const node of tree.nodes) {
    const orphan = node.parentId !== null && !byId.has(node.parentId);
    if (orphan && !listedRoots.has(node.id)) rootIds.push(node.id);
  }
  const descendantCounts = new Map<string, number>();
  const stack: { id: string; expanded: boolean }[] = rootIds.map((id) => ({ id, expanded: false }));
  while (stack.length > 0) {
    const top = stack.pop()!;
    const children = byId.get(top.id)?.node.childIds ?? [];
    if (!top.expanded) {
      stack.push({ id: top.id, expanded: true });
      for (const childId of children) stack.push({ id: childId, expanded: false });
      continue;
    }
    let count = 0;
    for (const childId of children) count += (descendantCounts.get(childId) ?? 0) + 1;
    descendantCounts.set(top.id, count);
  }
  const currentPath = new Set<string>();
  let cursor = tree.leafId;
  while (cursor !== null && !currentPath.has(cursor)) {
    currentPath.add(cursor);
    cursor = byId.get(cursor)?.node.parentId ?? null;
  }
  return { tree, byId, rootIds, descendantCounts, currentPath };
}

/** Whether the node heads a branch (a root or a child of a branch point) and has descendants. */
export function isFoldable(index: TreeIndex, id: string): boolean {
  const found = index.byId.get(id);
  if (found === undefined || found.node.childIds.length === 0) return false;
  const parentId = found.node.parentId;
  if (parentId === null) return true;
  const parent = index.byId.get(parentId);
  return parent === undefined || parent.node.childIds.length > 1;
}

export function isFolded(index: TreeIndex, choices: FoldChoices, id: string): boolean {
  if (!isFoldable(index, id)) return false;
  return choices.get(id) ?? !index.currentPath.has(id);
}

/** Side branches first (folded, they take a row each, next to their branch point), then the current path. */
function displayOrder(index: TreeIndex, childIds: readonly string[]): readonly string[] {
  if (childIds.length < 2) return childIds;
  return [
    ...childIds.filter((id) => !index.currentPath.has(id)),
    ...childIds.filter((id) => index.currentPath.has(id)),
  ];
}

/** The rows to show, in depth-first order, skipping the descendants of folded branch heads. */
export function visibleRows(index: TreeIndex, choices: FoldChoices): TreeRow[] {
  const rows: TreeRow[] = [];
  const stack: { id: string; depth: number }[] = [];
  for (let position = index.rootIds.length - 1; position >= 0; position -= 1) {
    stack.push({ id: index.rootIds[position]!, depth: 0 });
  }
  while (stack.length > 0) {
    const { id, depth } = stack.pop()!;
    const found = index.byId.get(id);
    if (found === undefined) continue;
    const { node } = found;
    const foldable = isFoldable(index, id);
    const folded = foldable && isFolded(index, choices, id);
    rows.push({
      node,
      index: found.index,
      depth,
      descendantCount: index.descendantCounts.get(id) ?? 0,
      foldable,
      folded,
      onCurrentPath: index.currentPath.has(id),
      isCurrentLeaf: index.tree.leafId === id,
      isBranchPoint: node.childIds.length > 1,
    });
    if (folded) continue;
    const childDepth = node.childIds.length > 1 ? depth + 1 : depth;
    const shown = displayOrder(index, node.childIds);
    for (let position = shown.length - 1; position >= 0; position -= 1) {
      stack.push({ id: shown[position]!, depth: childDepth });
    }
  }
  return rows;
}

/** The nearest strict ancestor that heads a branch (where ArrowLeft goes), if any. */
export function branchHeadAbove(index: TreeIndex, id: string): string | undefined {
  let cursor = index.byId.get(id)?.node.parentId ?? null;
  while (cursor !== null) {
    if (isFoldable(index, cursor)) return cursor;
    cursor = index.byId.get(cursor)?.node.parentId ?? null;
  }
  return undefined;
}

/** The fold choices with every branch head above `id` unfolded, so that its row is visible. */
export function revealing(index: TreeIndex, choices: FoldChoices, id: string): Map<string, boolean> {
  const next = new Map(choices);
  let cursor = index.byId.get(id)?.node.parentId ?? null;
  while (cursor !== null) {
    if (isFolded(index, next, cursor)) next.set(cursor, false);
    cursor = index.byId.get(cursor)?.node.parentId ?? null;
  }
  return next;
}
