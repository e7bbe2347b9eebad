// Catalog documents in a SQLite table (better-sqlite3): the document as JSON, with the columns
// the queries filter and sort on beside it. Writes of one flush run in one transaction, on the
// file's writer (storage/sqlite-projection-writes.ts); reads on the given connection.
// A write never replaces a document of a later position: engines sharing one database (several
// on one SQLite store) each flush what they applied, and a slower one must not move a document back.
import type Database from 'better-sqlite3';
import type { SqliteWriter } from '@strata/event-store';
import { finishPage, resolvePage, type Page } from '../documents/paging';
import { settle } from '../storage/settle';
import { projectionWrites, type CatalogRowToSave } from '../storage/sqlite-projection-writes';
import { catalogSearchText, storedCatalogSessionSchema, type CatalogSession } from './catalog-session';
import {
  catalogCursorOf,
  readCatalogCursor,
  searchNeedle,
  type CatalogQuery,
  type CatalogStorage,
  type IdleSessionsQuery,
} from './catalog-storage';

const schema = `
CREATE TABLE IF NOT EXISTS projection_catalog_sessions (
  session_id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  last_activity_at TEXT NOT NULL,
  search_text TEXT NOT NULL,
  position INTEGER NOT NULL,
  document TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS projection_catalog_sessions_by_activity
  ON projection_catalog_sessions (tenant, last_activity_at DESC, session_id);
`;

interface CatalogRow {
  readonly position: bigint;
  readonly document: string;
}

type BindValue = string | number | bigint;

function sessionOf(row: CatalogRow): CatalogSession {
  const stored = storedCatalogSessionSchema.parse(JSON.parse(row.document));
  return { ...stored, position: row.position };
}

function documentText(session: CatalogSession): string {
  const { position: _position, ...stored } = session;
  return JSON.stringify(stored);
}

export class SqliteCatalogStorage implements CatalogStorage {
  private readonly selectById: Database.Statement<[string], CatalogRow>;

  /** Reads on `database` and writes through `writer` (the caller closes both); creates the table when missing. */
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    database.exec(schema);
    this.selectById = database
      .prepare<[string], CatalogRow>(
        'SELECT position, document FROM projection_catalog_sessions WHERE session_id = ?',
      )
      .safeIntegers(true);
  }

  load(sessionId: string): Promise<CatalogSession | undefined> {
    return settle(() => {
      const row = this.selectById.get(sessionId);
      return row === undefined ? undefined : sessionOf(row);
    });
  }

  async save(documents: ReadonlyMap<string, CatalogSession>): Promise<void> {
    const rows = await settle(() =>
      [...documents.values()].map((session): CatalogRowToSave => ({
        sessionId: session.sessionId,
        tenant: session.tenant,
        lastActivityAt: session.lastActivityAt,
        searchText: catalogSearchText(session),
        position: session.position,
        document: documentText(session),
      })),
    );
    const bytes = rows.reduce((total, row) => total + row.document.length + row.searchText.length, 0);
    await this.writer.write(projectionWrites.saveCatalog, { rows }, bytes);
  }

  clear(): Promise<void> {
    return this.writer.write(projectionWrites.clearCatalog, {});
  }

  removeSession(sessionId: string): Promise<void> {
    return this.writer.write(projectionWrites.removeCatalogSession, { sessionId });
  }

  listIdleSessions(query: IdleSessionsQuery): Promise<readonly CatalogSession[]> {
    return settle(() =>
      this.database
        .prepare<[string, string, number], CatalogRow>(
          `SELECT position, document FROM projection_catalog_sessions
           WHERE tenant = ? AND last_activity_at < ?
           ORDER BY last_activity_at ASC, session_id DESC LIMIT ?`,
        )
        .safeIntegers(true)
        .all(query.tenant, query.idleBefore, Math.max(0, Math.floor(query.limit)))
        .map(sessionOf),
    );
  }

  findSession(tenant: string, sessionId: string): Promise<CatalogSession | undefined> {
    return settle(() => {
      const row = this.selectById.get(sessionId);
      const session = row === undefined ? undefined : sessionOf(row);
      return session?.tenant === tenant ? session : undefined;
    });
  }

  listSessions(query: CatalogQuery): Promise<Page<CatalogSession>> {
    return settle(() => {
      const page = resolvePage(query);
      const filters = ['tenant = ?'];
      const values: BindValue[] = [query.tenant];
      const needle = searchNeedle(query.text);
      if (needle !== undefined) {
        filters.push('instr(search_text, ?) > 0');
        values.push(needle);
      }
      const where = filters.join(' AND ');
      const counted = this.database
        .prepare<BindValue[], { readonly total: bigint }>(
          `SELECT COUNT(*) AS total FROM projection_catalog_sessions WHERE ${where}`,
        )
        .safeIntegers(true)
        .get(...values);
      if (query.cursor !== undefined) {
        const [lastActivityAt, sessionId] = readCatalogCursor(query.cursor);
        filters.push('(last_activity_at < ? OR (last_activity_at = ? AND session_id > ?))');
        values.push(lastActivityAt, lastActivityAt, sessionId);
      }
      const rows = this.database
        .prepare<BindValue[], CatalogRow>(
          `SELECT position, document FROM projection_catalog_sessions WHERE ${filters.join(' AND ')}
           ORDER BY last_activity_at DESC, session_id ASC LIMIT ? OFFSET ?`,
        )
        .safeIntegers(true)
        .all(...values, page.limit + 1, page.offset);
      return finishPage(rows.map(sessionOf), Number(counted?.total ?? 0n), page.limit, catalogCursorOf);
    });
  }
}
