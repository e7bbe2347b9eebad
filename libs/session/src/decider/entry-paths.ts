// The tree of a session's entries as a batch being checked grows it: which ids are known (in
// the session or earlier in the batch) and whether one entry is on the path to another, in
// O(log depth) per question (ancestor-index.ts), without touching the session's own state.
// Batch entries join the ancestor index only when a path question is first asked, so a batch
// without compactions costs no more than a set of its ids.
import type { SessionEntry } from '../entries/entries';
import { AncestorIndex } from './ancestor-index';

export class EntryPaths {
  private readonly batchIndexes = new Map<string, number>();
  private readonly batchIds = new Set<string>();
  private readonly pending: SessionEntry[] = [];

  constructor(
    private readonly indexOfStored: (entryId: string) => number | undefined,
    private readonly ancestry: AncestorIndex,
  ) {}

  /** The tree of a batch on its own (an imported file's entries). */
  static empty(): EntryPaths {
    return new EntryPaths(() => undefined, AncestorIndex.empty());
  }

  has(entryId: string): boolean {
    return this.batchIds.has(entryId) || this.indexOfStored(entryId) !== undefined;
  }

  /** Adds an entry of the batch (its parent, when known, is already here). */
  add(entry: SessionEntry): void {
    this.batchIds.add(entry.id);
    this.pending.push(entry);
  }

  /** Whether `ancestorId` is `entryId` or one of its ancestors (false when either is unknown). */
  isOnPathTo(ancestorId: string, entryId: string): boolean {
    for (const entry of this.pending) {
      const parentIndex = entry.parentId === null ? undefined : this.indexOf(entry.parentId);
      this.batchIndexes.set(entry.id, this.ancestry.add(parentIndex));
    }
    this.pending.length = 0;
    const ancestor = this.indexOf(ancestorId);
    const entry = this.indexOf(entryId);
    return ancestor !== undefined && entry !== undefined && this.ancestry.isAncestorOrSelf(ancestor, entry);
  }

  private indexOf(entryId: string): number | undefined {
    return this.batchIndexes.get(entryId) ?? this.indexOfStored(entryId);
  }
}
