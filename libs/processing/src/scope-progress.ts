// How far one processor has come for each scope of events — a partition (one stream) or a
// tenant — as opposed to its checkpoint, which the slowest scope holds back: each scope's
// unfinished events in position order, and the last finish in it until the checkpoint passes
// it. A read of one session (or of one tenant's list) waits for its own scope only. Events of a
// tenant finish out of order (its partitions run side by side), so an entry is marked done
// and the scope's oldest done entries are dropped, as the watermark does.
import { Fifo } from './fifo';

export interface ScopeEntry {
  readonly scope: string;
  readonly position: bigint;
  done: boolean;
}

export class ScopeProgress {
  private readonly unfinished = new Map<string, Fifo<ScopeEntry>>();
  private readonly lastFinished = new Map<string, { readonly position: bigint; readonly seq: number }>();

  opened(scope: string, position: bigint): ScopeEntry {
    let entries = this.unfinished.get(scope);
    if (entries === undefined) {
      entries = new Fifo();
      this.unfinished.set(scope, entries);
    }
    const entry: ScopeEntry = { scope, position, done: false };
    entries.push(entry);
    return entry;
  }

  /** The entry's event finished; `seq` numbers the finishes of the processor. */
  finished(entry: ScopeEntry, seq: number): void {
    entry.done = true;
    const entries = this.unfinished.get(entry.scope);
    while (entries !== undefined && entries.peek()?.done === true) entries.shift();
    if (entries?.length === 0) this.unfinished.delete(entry.scope);
    const last = this.lastFinished.get(entry.scope);
    const position = last !== undefined && last.position > entry.position ? last.position : entry.position;
    this.lastFinished.set(entry.scope, { position, seq });
  }

  /**
   * Whether every event of the scope at or below `position` that the processor was given is
   * finished and covered by a flush (`flushedSeq`).
   */
  reached(scope: string, position: bigint, flushedSeq: number): boolean {
    const firstUnfinished = this.unfinished.get(scope)?.peek();
    if (firstUnfinished !== undefined && firstUnfinished.position <= position) return false;
    const last = this.lastFinished.get(scope);
    return last === undefined || last.seq <= flushedSeq;
  }

  /** Forgets what the checkpoint has passed and a flush has covered. */
  prune(checkpoint: bigint | null, flushedSeq: number): void {
    if (checkpoint === null) return;
    for (const [scope, last] of this.lastFinished) {
      if (last.seq <= flushedSeq && last.position <= checkpoint) this.lastFinished.delete(scope);
    }
  }

  clear(): void {
    this.unfinished.clear();
    this.lastFinished.clear();
  }
}
