// Where a store keeps its signed log, as the log needs it: the head, a write that holds only when
// the head is still the one the entries were chained to, and reads in log order. Each store has
// one (SQLite: the `store_log` table beside the older `anchors` table; EventStoreDB: the
// `strata-anchors` stream; in memory: an array). Anchors signed before the log was chained
// ("legacy" anchors) stay readable at the positions they had; the first chained entry follows them.
import type { Anchor } from '../anchors/anchor';
import type { CheckpointLogEntry, LogEntry } from './log-entry';

export interface LogHead {
  readonly position: bigint;
  readonly hash: string;
}

/** One item of the log: a chained entry, or an anchor signed before the log was chained. */
export type LoggedItem =
  | { readonly source: 'chained'; readonly entry: LogEntry; readonly tenant?: string }
  | {
      readonly source: 'legacy';
      readonly entry: Anchor & { readonly position: string };
      readonly tenant?: string;
    }
  /** A place of the log that holds no entry it can read (the verification names it). */
  | { readonly source: 'unreadable'; readonly position: string; readonly reason: string };

export interface LogRead {
  readonly streamId?: string;
  /** Only anchors signed at or after this time (ISO 8601), as the signing engine's clock said. */
  readonly since?: string;
  /** Only entries after this position of the log: what clocks say does not matter. */
  readonly after?: bigint;
  readonly tenant?: string;
}

export type WriteOutcome = { readonly written: true } | { readonly written: false; readonly head: LogHead };

export interface LogStorage {
  /** The last chained entry's position and hash; with none, the last legacy position and the genesis hash. */
  head(): Promise<LogHead>;
  /** Writes the entries, in order, if the log's head is still `expected`; else says where it is now. */
  writeIfHead(
    expected: LogHead,
    entries: readonly { readonly entry: LogEntry; readonly tenant: string | undefined }[],
  ): Promise<WriteOutcome>;
  /** Every item after `after`, in log order. */
  entries(after: bigint): AsyncIterable<LoggedItem>;
  /** The last checkpoint entry of the log (the last part of it), if any. */
  lastCheckpoint(): Promise<CheckpointLogEntry | undefined>;
  /** The anchors (legacy and chained) the query selects, in log order. */
  anchors(query: LogRead): AsyncIterable<Anchor & { readonly position: string }>;
}

/**
 * The largest log position either store can hold (SQLite's 64-bit rowid): a position asked for
 * past it has nothing after it, and is not handed to a driver that would refuse the number.
 */
export const LAST_LOG_POSITION = 2n ** 63n - 1n;

/** Whether a logged anchor is one the read selects (stream, tenant and time; the caller handles `after`). */
export function anchorSelected(anchor: Anchor, tenant: string | undefined, query: LogRead): boolean {
  if (query.streamId !== undefined && anchor.stream !== query.streamId) return false;
  if (query.tenant !== undefined && tenant !== query.tenant) return false;
  return query.since === undefined || Date.parse(anchor.time) >= Date.parse(query.since);
}
