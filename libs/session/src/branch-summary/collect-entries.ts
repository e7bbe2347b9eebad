// The entries a branch summary covers when the leaf moves to another entry (reference §6.1):
// from the old leaf back to the deepest entry shared with the target's path, oldest first.
import type { SessionEntry } from '../entries/entries';
import { commonAncestorId } from '../tree/session-tree';

export interface BranchEntries {
  /** The abandoned entries, oldest first (the common ancestor excluded). */
  readonly entries: readonly SessionEntry[];
  readonly commonAncestorId: string | null;
}

/**
 * Walks from `oldLeafId` up through parents until the common ancestor of the old leaf and
 * `targetId` (excluded) or a missing entry. Compactions and branch summaries on the way are
 * included. No old leaf → nothing to summarise.
 */
export function collectEntriesForBranchSummary(
  byId: ReadonlyMap<string, SessionEntry>,
  oldLeafId: string | null,
  targetId: string,
): BranchEntries {
  if (oldLeafId === null) return { entries: [], commonAncestorId: null };
  const ancestorId = commonAncestorId(byId, oldLeafId, targetId);
  const reversed: SessionEntry[] = [];
  const seen = new Set<string>();
  let current = byId.get(oldLeafId);
  while (current && current.id !== ancestorId && !seen.has(current.id)) {
    reversed.push(current);
    seen.add(current.id);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return { entries: reversed.reverse(), commonAncestorId: ancestorId };
}
