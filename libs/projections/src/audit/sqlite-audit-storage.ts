// Audit documents in a SQLite table (better-sqlite3): the document as JSON, with the columns
// the queries filter and sort on beside it. Writes of one flush run in one transaction.
// A write never replaces a document of a later position: engines sharing one database (several
// on one SQLite store) each flush what they applied, and a slower one must not move a document back.
import type Database from 'better-sqlite3';
import { finishPage, resolvePage, type Page } from '../documents/paging';
import { settle } from '../storage/settle';
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
  private readonly saveAll: (documents: ReadonlyMap<string, AuditAttempt>) => void;

  /** Uses an open database (the caller closes it); creates the table when missing. */
  constructor(private readonly database: Database.Database) {
    database.exec(schema);
    this.selectById = database
      .prepare<[string], AuditRow>(
        'SELECT start_position, position, document FROM projection_audit_attempts WHERE document_id = ?',
      )
      .safeIntegers(true);
    const upsert = database.prepare<[string, string, string, string, string, bigint, bigint, string]>(
      `INSERT INTO projection_audit_attempts
         (document_id, tenant, session_id, kind, outcome, start_position, position, document)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (document_id) DO UPDATE SET tenant = excluded.tenant, session_id = excluded.session_id,
         kind = excluded.kind, outcome = excluded.outcome, start_position = excluded.start_position,
         position = excluded.position, document = excluded.document
       WHERE excluded.position > projection_audit_attempts.position`,
    );
    this.saveAll = database.transaction((documents: ReadonlyMap<string, AuditAttempt>) => {
      for (const [documentId, attempt] of documents) {
        upsert.run(
          documentId,
          attempt.tenant,
          attempt.sessionId,
          attempt.kind,
          attempt.outcome,
          attempt.startPosition,
          attempt.position,
          documentText(attempt),
        );
      }
    });
  }

  removeSession(sessionId: string): Promise<void> {
    return settle(() => {
      this.database.prepare('DELETE FROM projection_audit_attempts WHERE session_id = ?').run(sessionId);
    });
  }

  load(documentId: string): Promise<AuditAttempt | undefined> {
    return settle(() => {
      const row = this.selectById.get(documentId);
      return row === undefined ? undefined : attemptOf(row);
    });
  }

  save(documents: ReadonlyMap<string, AuditAttempt>): Promise<void> {
    return settle(() => this.saveAll(documents));
  }

  clear(): Promise<void> {
    return settle(() => {
      this.database.exec('DELETE FROM projection_audit_attempts');
    });
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
