// The session search's storage port: the indexed text of entries by session and tenant, and a
// bounded query. Contract: `search` looks at no more than `maxEntries` matching entries (newest
// first) and returns no more than `maxSessions` sessions, each with its newest matching entry;
// `truncated` says a bound was reached (more may match). Rows of one session are kept in event
// order and never twice: `save` skips rows at or below the position already stored for their
// session (engines sharing one database each save what they applied).
import type { SearchTerms } from './search-text';

export interface SearchRow {
  readonly sessionId: string;
  readonly tenant: string;
  readonly entryId: string;
  /** The global position of the event that appended the entry. */
  readonly position: bigint;
  readonly text: string;
}

export interface SearchQuery {
  readonly tenant: string;
  readonly terms: SearchTerms;
  readonly maxEntries: number;
  readonly maxSessions: number;
}

export interface SearchHit {
  readonly sessionId: string;
  /** The newest entry of the session that matches. */
  readonly entryId: string;
  /** Where that entry is in the index (to ask for its excerpt). */
  readonly rowId: bigint;
  /** How many of the entries looked at matched in this session. */
  readonly matchingEntries: number;
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  readonly truncated: boolean;
}

export interface SearchStorage {
  /** The position of the last event indexed for the session; undefined when none. */
  indexedPosition(sessionId: string): Promise<bigint | undefined>;
  /** Stores the rows and the sessions' positions in one transaction (see the module header). */
  save(rows: readonly SearchRow[], positions: ReadonlyMap<string, bigint>): Promise<void>;
  search(query: SearchQuery): Promise<SearchResult>;
  /** A short excerpt of the row around the terms. */
  excerpt(rowId: bigint, terms: SearchTerms): Promise<string>;
  /** Removes every row of one session (erasure). */
  forgetSession(sessionId: string): Promise<void>;
  clear(): Promise<void>;
}
