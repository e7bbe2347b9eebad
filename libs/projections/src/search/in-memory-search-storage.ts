// The session search in memory (tests, and stores that keep nothing on disk): the same rules as
// SQLite's (search-text.ts), read by a scan of the tenant's rows, newest first.
import { settle } from '../storage/settle';
import type { SearchQuery, SearchResult, SearchRow, SearchStorage } from './search-storage';
import { excerpt, textMatches, type SearchTerms } from './search-text';
import { collectHits } from './sqlite-search-storage';

interface StoredRow extends SearchRow {
  readonly rowId: bigint;
}

export class InMemorySearchStorage implements SearchStorage {
  private rows: StoredRow[] = [];
  private readonly positions = new Map<string, bigint>();
  private nextRowId = 1n;

  indexedPosition(sessionId: string): Promise<bigint | undefined> {
    return Promise.resolve(this.positions.get(sessionId));
  }

  save(rows: readonly SearchRow[], positions: ReadonlyMap<string, bigint>): Promise<void> {
    for (const row of rows) {
      if (row.position <= (this.positions.get(row.sessionId) ?? -1n)) continue;
      this.rows.push({ ...row, rowId: this.nextRowId });
      this.nextRowId += 1n;
    }
    for (const [sessionId, position] of positions) {
      if (position > (this.positions.get(sessionId) ?? -1n)) this.positions.set(sessionId, position);
    }
    return Promise.resolve();
  }

  search(query: SearchQuery): Promise<SearchResult> {
    return settle(() => {
      const matches: { row_id: bigint; session_id: string; entry_id: string }[] = [];
      for (let index = this.rows.length - 1; index >= 0 && matches.length <= query.maxEntries; index -= 1) {
        const row = this.rows[index]!;
        if (row.tenant !== query.tenant || !textMatches(row.text, query.terms)) continue;
        matches.push({ row_id: row.rowId, session_id: row.sessionId, entry_id: row.entryId });
      }
      return collectHits(matches, query);
    });
  }

  excerpt(rowId: bigint, terms: SearchTerms): Promise<string> {
    const row = this.rows.find((candidate) => candidate.rowId === rowId);
    return Promise.resolve(row === undefined ? '' : excerpt(row.text, terms));
  }

  forgetSession(sessionId: string): Promise<void> {
    this.rows = this.rows.filter((row) => row.sessionId !== sessionId);
    this.positions.delete(sessionId);
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.rows = [];
    this.positions.clear();
    return Promise.resolve();
  }
}
