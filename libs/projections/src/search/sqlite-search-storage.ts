// The session search in SQLite: an FTS5 table (better-sqlite3 ships FTS5) of entry texts,
// tokenised by unicode61 with accents removed, beside a table of the last position indexed per
// session and a table of each session's rows (so a session is forgotten without a scan). A
// tenant is a token of its own in the `scope` column, so a query only walks that tenant's rows.
// Writes go through the file's writer (storage/sqlite-projection-writes.ts).
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { SqliteWriter } from '@strata/event-store';
import { settle } from '../storage/settle';
import { projectionWrites, type SearchRowToSave } from '../storage/sqlite-projection-writes';
import { SEARCH_ENTRIES_TABLE_SQL, SEARCH_SESSION_TABLES_SQL } from './search-schema';
import type { SearchHit, SearchQuery, SearchResult, SearchRow, SearchStorage } from './search-storage';
import type { SearchTerms } from './search-text';

const EXCERPT_TOKENS = 16;

/** The one token that stands for a tenant in the index. */
export function tenantScopeToken(tenant: string): string {
  return `t${createHash('sha256').update(tenant).digest('hex').slice(0, 24)}`;
}

/** The FTS5 query of a tenant and its terms: words only, each quoted as a phrase. */
export function ftsQuery(tenant: string, terms: SearchTerms): string {
  return `scope : "${tenantScopeToken(tenant)}" AND ${bodyQuery(terms)}`;
}

function bodyQuery(terms: SearchTerms): string {
  const words = terms.words.map((word, index) =>
    terms.lastIsPrefix && index === terms.words.length - 1 ? `"${word}"*` : `"${word}"`,
  );
  return `body : (${words.join(' AND ')})`;
}

interface MatchRow {
  readonly row_id: bigint;
  readonly session_id: string;
  readonly entry_id: string;
}

export class SqliteSearchStorage implements SearchStorage {
  private readonly selectPosition: Database.Statement<[string], { readonly position: bigint }>;

  /** Reads on `database` and writes through `writer` (the caller closes both); creates the tables when missing. */
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    database.exec(`${SEARCH_ENTRIES_TABLE_SQL};\n${SEARCH_SESSION_TABLES_SQL}`);
    this.selectPosition = database
      .prepare<[string], { readonly position: bigint }>(
        'SELECT position FROM projection_search_sessions WHERE session_id = ?',
      )
      .safeIntegers(true);
  }

  indexedPosition(sessionId: string): Promise<bigint | undefined> {
    return settle(() => this.selectPosition.get(sessionId)?.position);
  }

  async save(rows: readonly SearchRow[], positions: ReadonlyMap<string, bigint>): Promise<void> {
    const toSave = await settle(() =>
      rows.map((row): SearchRowToSave => ({
        sessionId: row.sessionId,
        entryId: row.entryId,
        tenant: row.tenant,
        scope: tenantScopeToken(row.tenant),
        text: row.text,
        position: row.position,
      })),
    );
    const bytes = toSave.reduce((total, row) => total + row.text.length, 0);
    await this.writer.write(projectionWrites.saveSearchRows, { rows: toSave, positions }, bytes);
  }

  search(query: SearchQuery): Promise<SearchResult> {
    return settle(() => {
      const matches = this.database
        .prepare<[string, string, number], MatchRow>(
          `SELECT rowid AS row_id, session_id, entry_id FROM projection_search_entries
           WHERE projection_search_entries MATCH ? AND tenant = ? ORDER BY rowid DESC LIMIT ?`,
        )
        .safeIntegers(true)
        .all(ftsQuery(query.tenant, query.terms), query.tenant, query.maxEntries + 1);
      return collectHits(matches, query);
    });
  }

  excerpt(rowId: bigint, terms: SearchTerms): Promise<string> {
    return settle(() => {
      const row = this.database
        .prepare<[string, bigint], { readonly excerpt: string }>(
          `SELECT snippet(projection_search_entries, 4, '', '', '…', ${EXCERPT_TOKENS}) AS excerpt
           FROM projection_search_entries WHERE projection_search_entries MATCH ? AND rowid = ?`,
        )
        .get(bodyQuery(terms), rowId);
      return row?.excerpt ?? '';
    });
  }

  forgetSession(sessionId: string): Promise<void> {
    return this.writer.write(projectionWrites.forgetSearchSession, { sessionId });
  }

  clear(): Promise<void> {
    return this.writer.write(projectionWrites.clearSearch, {});
  }
}

/** Sessions of the matches (newest first), within the query's bounds. */
export function collectHits(
  matches: readonly { readonly row_id: bigint; readonly session_id: string; readonly entry_id: string }[],
  query: Pick<SearchQuery, 'maxEntries' | 'maxSessions'>,
): SearchResult {
  const bySession = new Map<string, { -readonly [Key in keyof SearchHit]: SearchHit[Key] }>();
  let truncated = matches.length > query.maxEntries;
  for (const match of matches.slice(0, query.maxEntries)) {
    const found = bySession.get(match.session_id);
    if (found !== undefined) {
      found.matchingEntries += 1;
      continue;
    }
    if (bySession.size === query.maxSessions) {
      truncated = true;
      break;
    }
    bySession.set(match.session_id, {
      sessionId: match.session_id,
      entryId: match.entry_id,
      rowId: match.row_id,
      matchingEntries: 1,
    });
  }
  return { hits: [...bySession.values()], truncated };
}
