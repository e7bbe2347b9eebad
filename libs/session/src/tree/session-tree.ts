// The session tree (reference §1.6): entries linked by parentId, children, labels, the path
// from a root to an entry, and the common ancestor of two entries. Built once, read many times.
import type { SessionEntry } from '../entries/entries';

export interface SessionTree {
  /** Entries in append (file) order. */
  readonly entries: readonly SessionEntry[];
  readonly byId: ReadonlyMap<string, SessionEntry>;
  /** Children ids of each entry, in append order; roots are under the key `null`. */
  readonly children: ReadonlyMap<string | null, readonly string[]>;
  /** Resolved labels: the last label entry for a target wins, an empty label clears it. */
  readonly labels: ReadonlyMap<string, string>;
  /** The last entry in append order: the reference's leaf after loading a file. */
  readonly lastEntryId: string | null;
}

/** Whether an entry is a root: no parent, itself as parent, or a parent that does not exist. */
function isRoot(entry: SessionEntry, byId: ReadonlyMap<string, SessionEntry>): boolean {
  return entry.parentId === null || entry.parentId === entry.id || !byId.has(entry.parentId);
}

export function buildSessionTree(entries: readonly SessionEntry[]): SessionTree {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  const children = new Map<string | null, string[]>();
  const labels = new Map<string, string>();
  for (const entry of entries) {
    const key = isRoot(entry, byId) ? null : entry.parentId;
    const siblings = children.get(key);
    if (siblings) siblings.push(entry.id);
    else children.set(key, [entry.id]);
    if (entry.type === 'label') {
      if (entry.label) labels.set(entry.targetId, entry.label);
      else labels.delete(entry.targetId);
    }
  }
  const last = entries[entries.length - 1];
  return { entries, byId, children, labels, lastEntryId: last ? last.id : null };
}

/**
 * The root→entry path ending at `leafId` (inclusive). An orphan (missing parent) starts the
 * path; a parent cycle stops the walk at the first repeated entry. Unknown leaf → [].
 */
export function pathToEntry(byId: ReadonlyMap<string, SessionEntry>, leafId: string): SessionEntry[] {
  const reversed: SessionEntry[] = [];
  const seen = new Set<string>();
  let current = byId.get(leafId);
  while (current && !seen.has(current.id)) {
    reversed.push(current);
    seen.add(current.id);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return reversed.reverse();
}

/** The deepest entry on both root paths, or null when they share none. */
export function commonAncestorId(
  byId: ReadonlyMap<string, SessionEntry>,
  firstId: string,
  secondId: string,
): string | null {
  const firstPath = new Set(pathToEntry(byId, firstId).map((entry) => entry.id));
  const secondPath = pathToEntry(byId, secondId);
  for (let index = secondPath.length - 1; index >= 0; index -= 1) {
    const entry = secondPath[index];
    if (entry && firstPath.has(entry.id)) return entry.id;
  }
  return null;
}

/** Root entries in append order. */
export function rootIds(tree: SessionTree): readonly string[] {
  return tree.children.get(null) ?? [];
}

/** Whether `ancestorId` lies on the root path of `entryId` (an entry is its own ancestor). */
export function isOnPath(
  byId: ReadonlyMap<string, SessionEntry>,
  ancestorId: string,
  entryId: string,
): boolean {
  const seen = new Set<string>();
  let current = byId.get(entryId);
  while (current && !seen.has(current.id)) {
    if (current.id === ancestorId) return true;
    seen.add(current.id);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return false;
}
