// The tree of a session's entries as a batch being checked grows it: which ids are known (in
// the session or earlier in the batch) and whether one entry is on the path to another, in
// O(log depth) per question (ancestor-index.ts), without touching the session's own state.
import type { SessionEntry } from '../entries/entries';
import { AncestorIndex } from './ancestor-index';

export class EntryPaths {
  private readonly batchIndexes = new Map<string, number>();

  constructor(
    private readonly indexOfStored: (entryId: string) => number | undefined,
    private readonly ancestry: AncestorIndex,
  ) {}

  /** The tree of a batch on its own (an imported file's entries). */
  static empty(): EntryPaths {
    return new EntryPaths(() => undefined, AncestorIndex.empty());
  }

  has(entryId: string): boolean {
    return this.indexOf(entryId) !== undefined;
  }

  /** Adds an entry of the batch (its parent, when known, is already here). */
  add(entry: SessionEntry): void {
    const parentIndex = entry.parentId === null ? undefined : this.indexOf(entry.parentId);
    this.batchIndexes.set(entry.id, this.ancestry.add(parentIndex));
  }

  /** Whether `ancestorId` is `entryId` or one of its ancestors (false when either is unknown). */
  isOnPathTo(ancestorId: string, entryId: string): boolean {
    const ancestor = this.indexOf(ancestorId);
    const entry = this.indexOf(entryId);
    return ancestor !== undefined && entry !== undefined && this.ancestry.isAncestorOrSelf(ancestor, entry);
  }

  private indexOf(entryId: string): number | undefined {
    return this.batchIndexes.get(entryId) ?? this.indexOfStored(entryId);
  }
}
