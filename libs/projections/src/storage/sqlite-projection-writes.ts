// The writes of the read models' SQLite storage, as operations of the file's writer (run on its
// thread, in a batch's transaction, each in a savepoint): catalog and audit documents, the search
// index, the context projection's stored token counts and session snapshots, and the sessions
// set aside. The tables are created by the storage classes when they open;
// the reads stay with them. Arguments are plain data (documents as the JSON text to store).
// Besides types, only SQL text is imported: this module is loaded by the writer thread, which
// needs nothing else.
import type { SqliteWriteContext, SqliteWriteOperations, WriteOperation } from '@strata/event-store';
import type { ParkedPartition } from '@strata/processing';
import { SEARCH_ENTRIES_TABLE_SQL } from '../search/search-schema';

/** A catalog document as its row. */
export interface CatalogRowToSave {
  readonly sessionId: string;
  readonly tenant: string;
  readonly lastActivityAt: string;
  readonly searchText: string;
  readonly position: bigint;
  readonly document: string;
}

/** An audit document as its row. */
export interface AuditRowToSave {
  readonly documentId: string;
  readonly tenant: string;
  readonly sessionId: string;
  readonly kind: string;
  readonly outcome: string;
  readonly startPosition: bigint;
  readonly position: bigint;
  readonly document: string;
}

/** An entry's text for the search index. */
export interface SearchRowToSave {
  readonly sessionId: string;
  readonly entryId: string;
  readonly tenant: string;
  readonly scope: string;
  readonly text: string;
  readonly position: bigint;
}

/** A context projection's token count (context/token-count-storage.ts). */
export interface TokenCountRowToSave {
  readonly sessionId: string;
  readonly counterKey: string;
  readonly eventHash: string;
  readonly characters: number;
  readonly tokens: number;
}

/** A context projection's session snapshot (context/session-snapshot.ts). */
export interface SnapshotRowToSave {
  readonly sessionId: string;
  readonly format: number;
  readonly position: bigint;
  readonly body: string;
}

/** The context projection's snapshots: one row per session (context/sqlite-snapshot-storage.ts). */
export const CONTEXT_SNAPSHOTS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS projection_context_snapshots (
  session_id TEXT PRIMARY KEY,
  format INTEGER NOT NULL,
  position INTEGER NOT NULL,
  body TEXT NOT NULL
)`;

function tableExists(context: SqliteWriteContext, name: string): boolean {
  const found = context
    .statement<[string], { readonly found: number }>(
      "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?",
    )
    .get(name);
  return found !== undefined;
}

function run(context: SqliteWriteContext, sql: string, ...values: unknown[]): void {
  context.statement(sql).run(...values);
}

const upsertCatalog = `INSERT INTO projection_catalog_sessions (session_id, tenant, last_activity_at, search_text, position, document)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (session_id) DO UPDATE SET tenant = excluded.tenant, last_activity_at = excluded.last_activity_at,
    search_text = excluded.search_text, position = excluded.position, document = excluded.document
  WHERE excluded.position > projection_catalog_sessions.position`;

const upsertAudit = `INSERT INTO projection_audit_attempts
    (document_id, tenant, session_id, kind, outcome, start_position, position, document)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (document_id) DO UPDATE SET tenant = excluded.tenant, session_id = excluded.session_id,
    kind = excluded.kind, outcome = excluded.outcome, start_position = excluded.start_position,
    position = excluded.position, document = excluded.document
  WHERE excluded.position > projection_audit_attempts.position`;

const upsertParked = `INSERT INTO parked_partitions
    (processor, partition_key, tenant, event_id, event_type, position, reason, parked_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (processor, partition_key) DO UPDATE SET
    tenant = excluded.tenant, event_id = excluded.event_id, event_type = excluded.event_type,
    position = excluded.position, reason = excluded.reason, parked_at = excluded.parked_at`;

function saveSearchRows(
  context: SqliteWriteContext,
  args: { readonly rows: readonly SearchRowToSave[]; readonly positions: ReadonlyMap<string, bigint> },
): void {
  const selectPosition = context
    .statement<[string], { readonly position: bigint }>(
      'SELECT position FROM projection_search_sessions WHERE session_id = ?',
    )
    .safeIntegers(true);
  const insertEntry = context
    .statement(
      'INSERT INTO projection_search_entries (session_id, entry_id, tenant, scope, body) VALUES (?, ?, ?, ?, ?)',
    )
    .safeIntegers(true);
  const stored = new Map<string, bigint>();
  const storedPosition = (sessionId: string): bigint => {
    let found = stored.get(sessionId);
    if (found === undefined) {
      found = selectPosition.get(sessionId)?.position ?? -1n;
      stored.set(sessionId, found);
    }
    return found;
  };
  for (const row of args.rows) {
    if (row.position <= storedPosition(row.sessionId)) continue;
    const inserted = insertEntry.run(row.sessionId, row.entryId, row.tenant, row.scope, row.text);
    run(
      context,
      'INSERT INTO projection_search_rows (row_id, session_id) VALUES (?, ?)',
      BigInt(inserted.lastInsertRowid),
      row.sessionId,
    );
  }
  for (const [sessionId, position] of args.positions) {
    run(
      context,
      `INSERT INTO projection_search_sessions (session_id, position) VALUES (?, ?)
       ON CONFLICT (session_id) DO UPDATE SET position = excluded.position
       WHERE excluded.position > projection_search_sessions.position`,
      sessionId,
      position,
    );
  }
}

function forgetSearchSession(context: SqliteWriteContext, args: { readonly sessionId: string }): void {
  run(
    context,
    `DELETE FROM projection_search_entries
     WHERE rowid IN (SELECT row_id FROM projection_search_rows WHERE session_id = ?)`,
    args.sessionId,
  );
  run(context, 'DELETE FROM projection_search_rows WHERE session_id = ?', args.sessionId);
  run(context, 'DELETE FROM projection_search_sessions WHERE session_id = ?', args.sessionId);
  // The context projection's stored token counts go with them: the context projection is
  // volatile and never reads an erasure written while no engine ran, the search index reads
  // every one (it is durable, resumed from its checkpoint).
  // So do its session snapshots.
  if (tableExists(context, 'projection_context_token_counts')) forgetTokenCounts(context, args);
  if (tableExists(context, 'projection_context_snapshots')) forgetContextSnapshot(context, args);
}

function forgetContextSnapshot(context: SqliteWriteContext, args: { readonly sessionId: string }): void {
  run(context, 'DELETE FROM projection_context_snapshots WHERE session_id = ?', args.sessionId);
}

function forgetTokenCounts(context: SqliteWriteContext, args: { readonly sessionId: string }): void {
  run(context, 'DELETE FROM projection_context_token_counts WHERE session_id = ?', args.sessionId);
}

/** @public The writer thread requires this module by path and takes this export by name. */
export const sqliteWriteOperations: SqliteWriteOperations = {
  saveCatalog(context: SqliteWriteContext, args: { readonly rows: readonly CatalogRowToSave[] }) {
    for (const row of args.rows) {
      run(
        context,
        upsertCatalog,
        row.sessionId,
        row.tenant,
        row.lastActivityAt,
        row.searchText,
        row.position,
        row.document,
      );
    }
  },
  removeCatalogSession(context: SqliteWriteContext, args: { readonly sessionId: string }) {
    run(context, 'DELETE FROM projection_catalog_sessions WHERE session_id = ?', args.sessionId);
  },
  clearCatalog(context: SqliteWriteContext) {
    run(context, 'DELETE FROM projection_catalog_sessions');
  },
  saveAudit(context: SqliteWriteContext, args: { readonly rows: readonly AuditRowToSave[] }) {
    for (const row of args.rows) {
      run(
        context,
        upsertAudit,
        row.documentId,
        row.tenant,
        row.sessionId,
        row.kind,
        row.outcome,
        row.startPosition,
        row.position,
        row.document,
      );
    }
  },
  removeAuditSession(context: SqliteWriteContext, args: { readonly sessionId: string }) {
    run(context, 'DELETE FROM projection_audit_attempts WHERE session_id = ?', args.sessionId);
  },
  clearAudit(context: SqliteWriteContext) {
    run(context, 'DELETE FROM projection_audit_attempts');
  },
  saveSearchRows,
  forgetSearchSession,
  clearSearch(context: SqliteWriteContext) {
    // Deleting from an FTS5 table removes each row from the index in turn; dropping it does not.
    run(context, 'DROP TABLE IF EXISTS projection_search_entries');
    run(context, SEARCH_ENTRIES_TABLE_SQL);
    run(context, 'DELETE FROM projection_search_rows');
    run(context, 'DELETE FROM projection_search_sessions');
  },
  saveTokenCounts(context: SqliteWriteContext, args: { readonly rows: readonly TokenCountRowToSave[] }) {
    const insert = context.statement(
      `INSERT INTO projection_context_token_counts
         (session_id, counter_key, event_hash, characters, tokens) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, counter_key, event_hash)
       DO UPDATE SET characters = excluded.characters, tokens = excluded.tokens`,
    );
    for (const row of args.rows) {
      insert.run(row.sessionId, row.counterKey, row.eventHash, row.characters, row.tokens);
    }
  },
  forgetTokenCounts,
  saveContextSnapshot(context: SqliteWriteContext, args: { readonly row: SnapshotRowToSave }) {
    const { row } = args;
    run(
      context,
      `INSERT INTO projection_context_snapshots (session_id, format, position, body) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET format = excluded.format, position = excluded.position,
         body = excluded.body`,
      row.sessionId,
      row.format,
      row.position,
      row.body,
    );
  },
  forgetContextSnapshot,
  clearContextSnapshots(context: SqliteWriteContext) {
    if (tableExists(context, 'projection_context_snapshots'))
      run(context, 'DELETE FROM projection_context_snapshots');
  },
  park(context: SqliteWriteContext, args: { readonly record: ParkedPartition }) {
    const { record } = args;
    run(
      context,
      upsertParked,
      record.processor,
      record.partition,
      record.tenant,
      record.eventId,
      record.eventType,
      record.position,
      record.reason,
      record.parkedAt,
    );
  },
  release(context: SqliteWriteContext, args: { readonly processor: string; readonly partition?: string }) {
    if (args.partition === undefined) {
      run(context, 'DELETE FROM parked_partitions WHERE processor = ?', args.processor);
    } else {
      run(
        context,
        'DELETE FROM parked_partitions WHERE processor = ? AND partition_key = ?',
        args.processor,
        args.partition,
      );
    }
  },
};

function operation(name: string): WriteOperation {
  return { module: __filename, operation: name };
}

/** The operations of this module, as a writer names them. */
export const projectionWrites = {
  saveCatalog: operation('saveCatalog'),
  removeCatalogSession: operation('removeCatalogSession'),
  clearCatalog: operation('clearCatalog'),
  saveAudit: operation('saveAudit'),
  removeAuditSession: operation('removeAuditSession'),
  clearAudit: operation('clearAudit'),
  saveSearchRows: operation('saveSearchRows'),
  forgetSearchSession: operation('forgetSearchSession'),
  clearSearch: operation('clearSearch'),
  saveTokenCounts: operation('saveTokenCounts'),
  forgetTokenCounts: operation('forgetTokenCounts'),
  saveContextSnapshot: operation('saveContextSnapshot'),
  forgetContextSnapshot: operation('forgetContextSnapshot'),
  clearContextSnapshots: operation('clearContextSnapshots'),
  park: operation('park'),
  release: operation('release'),
} as const;
