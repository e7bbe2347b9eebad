// The signed log's one write on a SQLite file, as an operation of the file's writer: inside the
// write's transaction, the log's head is read again and the entries are inserted only if it is
// still the head they were chained to (another engine on the file may have appended meanwhile).
// The `store_log` table is made by the first write, so a store that never logged (an auditor's
// copy) is not changed by reading it. Anchors signed before the log was chained stay in the
// `anchors` table; the first chained entry follows the last of them.
import type { SqliteWriteContext, SqliteWriteOperations, WriteOperation } from '@strata/event-store';
import type Database from 'better-sqlite3';
import type { LogHead, WriteOutcome } from './log-storage';

/** The table of anchors signed before the log was chained (read, never written any more). */
export const SQLITE_LEGACY_ANCHOR_SCHEMA = `
CREATE TABLE IF NOT EXISTS anchors (
  anchor_id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  signed_at TEXT NOT NULL,
  key_id TEXT NOT NULL,
  signature TEXT NOT NULL,
  tenant TEXT
);
CREATE INDEX IF NOT EXISTS anchors_by_stream ON anchors (stream_id, anchor_id);
CREATE INDEX IF NOT EXISTS anchors_by_tenant ON anchors (tenant, anchor_id);
`;

/** One row per chained entry; `entry` is the signed entry's JSON, the other columns index it. */
export const SQLITE_LOG_SCHEMA = `
CREATE TABLE IF NOT EXISTS store_log (
  position INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  stream_id TEXT,
  tenant TEXT,
  entry_hash TEXT NOT NULL,
  entry TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS store_log_by_stream ON store_log (stream_id, position);
CREATE INDEX IF NOT EXISTS store_log_by_tenant ON store_log (tenant, position);
CREATE INDEX IF NOT EXISTS store_log_by_kind ON store_log (kind, position);
`;

const LOG_GENESIS_HASH = '0'.repeat(64);

function hasTable(database: Database.Database, name: string): boolean {
  return (
    database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined
  );
}

/** The log's head as the file holds it (read on any connection). */
export function sqliteLogHead(database: Database.Database): LogHead {
  if (hasTable(database, 'store_log')) {
    const last = database
      .prepare<[], { position: bigint; entry_hash: string }>(
        'SELECT position, entry_hash FROM store_log ORDER BY position DESC LIMIT 1',
      )
      .safeIntegers(true)
      .get();
    if (last !== undefined) return { position: BigInt(last.position), hash: last.entry_hash };
  }
  if (!hasTable(database, 'anchors')) return { position: 0n, hash: LOG_GENESIS_HASH };
  const legacy = database
    .prepare<[], { last: bigint | null }>('SELECT max(anchor_id) AS last FROM anchors')
    .safeIntegers(true)
    .get();
  return { position: legacy?.last ?? 0n, hash: LOG_GENESIS_HASH };
}

/** An entry as its row. */
export interface LogRowToAppend {
  readonly position: bigint;
  readonly kind: string;
  readonly streamId: string | null;
  readonly tenant: string | null;
  readonly hash: string;
  readonly entry: string;
}

const tablesMade = new WeakSet<object>();

function appendLogEntries(
  { database, statement }: SqliteWriteContext,
  args: { readonly expected: LogHead; readonly rows: readonly LogRowToAppend[] },
): WriteOutcome {
  if (!tablesMade.has(database)) {
    database.exec(SQLITE_LOG_SCHEMA);
    tablesMade.add(database);
  }
  const head = sqliteLogHead(database);
  if (head.position !== args.expected.position || head.hash !== args.expected.hash)
    return { written: false, head };
  const insert = statement(
    'INSERT INTO store_log (position, kind, stream_id, tenant, entry_hash, entry) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const row of args.rows)
    insert.run(row.position, row.kind, row.streamId, row.tenant, row.hash, row.entry);
  return { written: true };
}

/** @public The writer thread requires this module by path and takes this export by name. */
export const sqliteWriteOperations: SqliteWriteOperations = { appendLogEntries };

export const logWrites = {
  appendLogEntries: { module: __filename, operation: 'appendLogEntries' },
} as const satisfies Readonly<Record<string, WriteOperation>>;
