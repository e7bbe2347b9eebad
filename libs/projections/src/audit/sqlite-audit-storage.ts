// Audit documents in a SQLite table (better-sqlite3): the document as JSON, with the columns
// the queries filter and sort on beside it. Writes of one flush run in one transaction, on the
// file's writer (storage/sqlite-projection-writes.ts); reads on the given connection.
// A write never replaces a document of a later position: engines sharing one database (several
// on one SQLite store) each flush what they applied, and a slower one must not move a document back.
import type Database from 'better-sqlite3';
import type { SqliteWriter } from '@strata/event-store';
import { finishPage, resolvePage, type Page } from '../documents/paging';
import { settle } from '../storage/settle';
import { projectionWrites, type AuditRowToSave } from '../storage/sqlite-projection-writes';
import { storedAuditAttemptSchema, type AuditAttempt } from './audit-attempt';
import { auditCursorOf, readAuditCursor, type AuditQuery, type AuditStorage } from './audit-storage';

const schema = `
CREATE TABLE IF NOT EXISTS projection_audit_attempts (
  document_id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  session_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  outcome TEXT NOT NULL,
  start_position INTEGER NOT NULL,
  position INTEGER NOT NULL,
  document TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS projection_audit_attempts_by_tenant
  ON projection_audit_attempts (tenant, start_position);
CREATE INDEX IF NOT EXISTS projection_audit_attempts_by_session
  ON projection_audit_attempts (tenant, session_id, start_position);
`;

interface AuditRow {
  readonly start_position: bigint;
  readonly position: bigint;
  readonly document: string;
}

type BindValue = string | number | bigint;

function attemptOf(row: AuditRow): AuditAttempt {
  const stored = storedAuditAttemptSchema.parse(JSON.parse(row.document));
  return { ...stored, startPosition: row.start_position, position: row.position };
}

function documentText(attempt: AuditAttempt): string {
  const { position: _position, startPosition: _startPosition, ...stored } = attempt;
  return JSON.stringify(stored);
}

export class SqliteAuditStorage implements AuditStorage {
  private readonly selectById: Database.Statement<[string], AuditRow>;

  /** Reads on `database` and writes through `writer` (the caller closes both); creates the table when missing. */
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    database.exec(schema);
    this.selectById = database
      .prepare<[string], AuditRow>(
        'SELECT start_position, position, document FROM projection_audit_attempts WHERE document_id = ?',
      )
      .safeIntegers(true);
  }

  removeSession(sessionId: string): Promise<void> {
    return this.writer.write(projectionWrites.removeAuditSession, { sessionId });
  }

  load(documentId: string): Promise<AuditAttempt | undefined> {
    return settle(() => {
      const row = this.selectById.get(documentId);
      return row === undefined ? undefined : attemptOf(row);
    });
  }

  async save(documents: ReadonlyMap<string, AuditAttempt>): Promise<void> {
    const rows = await settle(() =>
      [...documents].map(([documentId, attempt]): AuditRowToSave => ({
        documentId,
        tenant: attempt.tenant,
        sessionId: attempt.sessionId,
        kind: attempt.kind,
        outcome: attempt.outcome,
        startPosition: attempt.startPosition,
        position: attempt.position,
        document: documentText(attempt),
      })),
    );
    const bytes = rows.reduce((total, row) => total + row.document.length, 0);
    await this.writer.write(projectionWrites.saveAudit, { rows }, bytes);
  }

  clear(): Promise<void> {
    return this.writer.write(projectionWrites.clearAudit, {});
  }

  listAttempts(query: AuditQuery): Promise<Page<AuditAttempt>> {
    return settle(() => {
      const page = resolvePage(query);
      const newestFirst = (query.order ?? 'newest_first') === 'newest_first';
      const filters = ['tenant = ?'];
      const values: BindValue[] = [query.tenant];
      const optional: readonly [string, string | undefined][] = [
        ['session_id', query.sessionId],
        ['kind', query.kind],
        ['outcome', query.outcome],
      ];
      for (const [column, value] of optional) {
        if (value === undefined) continue;
        filters.push(`${column} = ?`);
        values.push(value);
      }
      const counted = this.database
        .prepare<BindValue[], { readonly total: bigint }>(
          `SELECT COUNT(*) AS total FROM projection_audit_attempts WHERE ${filters.join(' AND ')}`,
        )
        .safeIntegers(true)
        .get(...values);
      if (query.cursor !== undefined) {
        filters.push(newestFirst ? 'start_position < ?' : 'start_position > ?');
        values.push(readAuditCursor(query.cursor));
      }
      const rows = this.database
        .prepare<BindValue[], AuditRow>(
          `SELECT start_position, position, document FROM projection_audit_attempts
           WHERE ${filters.join(' AND ')}
           ORDER BY start_position ${newestFirst ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`,
        )
        .safeIntegers(true)
        .all(...values, page.limit + 1, page.offset);
      return finishPage(rows.map(attemptOf), Number(counted?.total ?? 0n), page.limit, auditCursorOf);
    });
  }
}
