// The rows this store appended last, as the store holds them, so that its subscriptions and its
// stream reads (the write side folding what another command appended) take events just written
// from memory instead of reading them back: a read model woken by an 8 MiB
// append would otherwise copy the 8 MiB out of SQLite again on the thread that answers requests.
// A range of the log is served from here for the positions this store wrote at its start (an
// append's events take consecutive positions in one transaction, and positions are never
// reused): a position written by another process or another store on the file, or one whose
// answer has not reached this thread yet (group commit answers a batch after its commit), leaves
// a gap, and from there the range is read from the file; a stream's run of revisions is served
// only whole, up to its last revision as the file
// records it. The rows are the texts given to the writer, with the revisions, positions
// and time the write gave them, so an event served from here is the one a read would give.
// Bounded by their stored length and by count (oldest out first); an erasure forgets its stream.
// Apart from them, the metadata and time of the last event written to each stream are kept
// (`WrittenHeads`, small): the write side reads that event back for its hash before the next
// append, and SQLite stores both after the data, so reading them from the file walks every
// overflow page of a large event.
import { LRUCache } from 'lru-cache';
import { ERASURE_LOG_STREAM, matchesEventFilter, type EventFilter, type PageLimits } from '../port';
import { fromJsonText, toJsonRecord } from '../shared/json-values';
import { PageFill } from '../shared/page-limits';
import { rowBytes, type EventRow, type RowPage } from './sqlite-event-rows';

export interface RecentAppendsBounds {
  /** The stored JSON length (data and metadata) of the rows kept, in all. */
  readonly maxChars: number;
  readonly maxEvents: number;
}

/** 32 Mi characters, 10,000 events. */
export const DEFAULT_RECENT_APPENDS: RecentAppendsBounds = { maxChars: 32 * 2 ** 20, maxEvents: 10_000 };

export class RecentAppends {
  private readonly rows = new Map<bigint, EventRow>();
  /** The same rows by stream and revision. */
  private readonly byStream = new Map<string, Map<bigint, EventRow>>();
  private chars = 0;

  constructor(private readonly bounds: RecentAppendsBounds = DEFAULT_RECENT_APPENDS) {}

  get size(): { readonly events: number; readonly chars: number } {
    return { events: this.rows.size, chars: this.chars };
  }

  /** Rows one append wrote, in revision order, at consecutive positions. */
  add(rows: readonly EventRow[]): void {
    const chars = rows.reduce((total, row) => total + rowBytes(row), 0);
    // a batch larger than the bound alone is not kept: it would push out everything else
    if (chars > this.bounds.maxChars || rows.length > this.bounds.maxEvents) return;
    for (const row of rows) {
      this.rows.set(row.global_position, row);
      this.chars += rowBytes(row);
      let revisions = this.byStream.get(row.stream_id);
      if (revisions === undefined) {
        revisions = new Map();
        this.byStream.set(row.stream_id, revisions);
      }
      revisions.set(row.stream_revision, row);
    }
    for (const [position, row] of this.rows) {
      if (this.chars <= this.bounds.maxChars && this.rows.size <= this.bounds.maxEvents) break;
      this.drop(position, row);
    }
  }

  /**
   * The page a read of the log in (after, upTo] would give, forwards, when this store wrote the
   * positions at its start: the run of positions it wrote from `after` on, up to the first it did
   * not write (not exhausted then, so the caller asks again from there). Undefined when it did not
   * write the first position, or when nothing of the run passes the filter while positions it
   * did not write follow: read the file.
   */
  range(
    after: bigint | null,
    upTo: bigint,
    limits: PageLimits,
    filter: EventFilter | undefined,
  ): RowPage | undefined {
    const first = (after ?? 0n) + 1n;
    if (upTo < first) return { rows: [], exhausted: true };
    const rows: EventRow[] = [];
    const fill = new PageFill(limits);
    for (let position = first; position <= upTo; position += 1n) {
      const row = this.rows.get(position);
      // a position another writer took (or one gone out of memory): the file has the rest
      if (row === undefined || row.stream_id === ERASURE_LOG_STREAM) {
        return rows.length > 0 ? { rows, exhausted: false } : undefined;
      }
      if (!matches(row, filter)) continue;
      rows.push(row);
      if (fill.add(rowBytes(row))) return { rows, exhausted: false };
    }
    return { rows, exhausted: true };
  }

  /**
   * The rows of `streamId` from revision `first` to `last` (inclusive), when this store wrote
   * every one of them; undefined when it did not (read the file). The caller reads `last` from
   * the file (the stream's last revision), so the rows are what the file holds up to it.
   */
  streamRun(streamId: string, first: bigint, last: bigint): EventRow[] | undefined {
    if (last < first) return [];
    const revisions = this.byStream.get(streamId);
    if (revisions === undefined || last - first + 1n > BigInt(revisions.size)) return undefined;
    const run: EventRow[] = [];
    for (let revision = first; revision <= last; revision += 1n) {
      const row = revisions.get(revision);
      if (row === undefined) return undefined;
      run.push(row);
    }
    return run;
  }

  /** Forgets every row of the stream (it was erased). */
  forgetStream(streamId: string): void {
    for (const row of [...(this.byStream.get(streamId)?.values() ?? [])]) this.drop(row.global_position, row);
  }

  clear(): void {
    this.rows.clear();
    this.byStream.clear();
    this.chars = 0;
  }

  private drop(position: bigint, row: EventRow): void {
    this.rows.delete(position);
    this.chars -= rowBytes(row);
    const revisions = this.byStream.get(row.stream_id);
    if (revisions?.get(row.stream_revision) === row) revisions.delete(row.stream_revision);
    if (revisions?.size === 0) this.byStream.delete(row.stream_id);
  }
}

/** The port's filter over a row; its metadata is parsed only for a filter by tenant. */
function matches(row: EventRow, filter: EventFilter | undefined): boolean {
  return matchesEventFilter(
    {
      streamId: row.stream_id,
      type: row.type,
      get metadata() {
        return toJsonRecord(fromJsonText(row.metadata));
      },
    },
    filter,
  );
}

/** The metadata text and time of an event this store wrote, known by its position and id. */
export interface WrittenHead {
  readonly position: bigint;
  readonly eventId: string;
  readonly revision: bigint;
  readonly type: string;
  readonly metadata: string;
  readonly createdAt: string;
}

/** Streams whose last written event is remembered, by default (about 1 kB each). */
export const DEFAULT_WRITTEN_HEADS = 10_000;

/** The last event this store wrote to each stream (the least recently written stream goes first). */
export class WrittenHeads {
  /** Looked at with `peek`: only a write makes a stream recent. */
  private readonly heads: LRUCache<string, WrittenHead>;

  constructor(private readonly maxStreams: number = DEFAULT_WRITTEN_HEADS) {
    this.heads = new LRUCache({ max: Math.max(1, maxStreams) });
  }

  get size(): number {
    return this.heads.size;
  }

  remember(streamId: string, head: WrittenHead): void {
    if (this.maxStreams < 1) return;
    this.heads.set(streamId, head);
  }

  /** The head written at `position` with this id; undefined when this store did not write it last. */
  at(streamId: string, position: bigint, eventId: string): WrittenHead | undefined {
    const head = this.heads.peek(streamId);
    return head !== undefined && head.position === position && head.eventId === eventId ? head : undefined;
  }

  forgetStream(streamId: string): void {
    this.heads.delete(streamId);
  }

  clear(): void {
    this.heads.clear();
  }
}
