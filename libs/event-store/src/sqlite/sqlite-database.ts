// Opens the embedded SQLite event database (better-sqlite3): WAL journal, synchronous=NORMAL (this
// connection's own writes are the schema's; the file's writer sets its own durability),
// a busy timeout so that writers in several processes queue instead of failing, secure delete
// so that erased content is overwritten, and the schema (created once, idempotently; a database
// of an earlier version gains what the current one added).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The default database file, relative to the working directory. */
export const DEFAULT_SQLITE_FILENAME = './data/strata.db';

/**
 * The schema version recorded in `PRAGMA user_version`. 2 added the tenant index; opening a
 * database of version 1 builds it once (every statement of the schema is idempotent).
 */
export const SQLITE_SCHEMA_VERSION = 2;

/**
 * An event's tenant in SQL, as the port's `eventTenantOf` names it: `metadata.tenant` when it is
 * a non-empty string, else `default`. The tenant index is built on this very expression, and
 * SQLite uses an index on an expression only for queries that spell it the same way.
 */
export const EVENT_TENANT_SQL =
  "coalesce(CASE json_type(metadata, '$.tenant') WHEN 'text' THEN nullif(json_extract(metadata, '$.tenant'), '') END, 'default')";

/** How long a write waits for another connection's write lock before it is refused. */
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

export interface SqliteDatabaseOptions {
  /** `./data/strata.db` by default (its folder is created); `':memory:'` for a private database. */
  readonly filename?: string;
  /**
   * How long a write waits for another process's write lock before it is refused (`StoreBusyError`,
   * 503 at the HTTP edge); 10 s by default. The wait happens on the file's writer thread.
   */
  readonly busyTimeoutMs?: number;
}

/** The tables of a Strata SQLite database (idempotent DDL; the benchmarks' raw baseline uses it too). */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  global_position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT NOT NULL,
  stream_revision INTEGER NOT NULL,
  event_id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (stream_id, stream_revision)
);
CREATE TABLE IF NOT EXISTS streams (
  stream_id TEXT PRIMARY KEY,
  last_revision INTEGER NOT NULL,
  erased INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS stream_metadata (
  stream_id TEXT PRIMARY KEY,
  metadata TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS erasures (
  erasure_id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  tenant TEXT,
  erased_at TEXT NOT NULL,
  event_count INTEGER NOT NULL,
  head_hash TEXT,
  head_revision TEXT
);
CREATE INDEX IF NOT EXISTS events_by_tenant ON events (${EVENT_TENANT_SQL}, global_position);
CREATE INDEX IF NOT EXISTS erasures_by_stream ON erasures (stream_id);
CREATE TABLE IF NOT EXISTS checkpoints (
  subscriber_id TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
`;

/** Columns later versions added to \`erasures\` (a database written before gains them, empty). */
const ERASURE_HEAD_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ['head_hash', 'TEXT'],
  ['head_revision', 'TEXT'],
];

function missingColumns(
  database: Database.Database,
  table: string,
  columns: readonly (readonly [name: string, type: string])[],
): (readonly [name: string, type: string])[] {
  const present = new Set(
    database
      .prepare<[], { readonly name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .map((column) => column.name),
  );
  return columns.filter(([name]) => !present.has(name));
}

function addMissingColumns(
  database: Database.Database,
  table: string,
  columns: readonly (readonly [name: string, type: string])[],
): void {
  for (const [name, type] of missingColumns(database, table, columns)) {
    database.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  }
}

/** Whether the file's schema is the current one already (then opening it writes nothing). */
function schemaIsCurrent(database: Database.Database): boolean {
  return (
    database.pragma('user_version', { simple: true }) === BigInt(SQLITE_SCHEMA_VERSION) &&
    missingColumns(database, 'erasures', ERASURE_HEAD_COLUMNS).length === 0
  );
}

/** The resolved file name used to recognise the same database across store instances. */
export function databaseKey(filename: string): string {
  return filename === ':memory:' ? filename : resolve(filename);
}

/**
 * Opens (creating if needed) a Strata SQLite database. Integers come back as bigints.
 * `global_position` is AUTOINCREMENT so that positions are never reused after an erasure.
 */
export function openStrataDatabase(options: SqliteDatabaseOptions = {}): Database.Database {
  const filename = options.filename ?? DEFAULT_SQLITE_FILENAME;
  if (filename !== ':memory:') mkdirSync(dirname(resolve(filename)), { recursive: true });
  const database = new Database(filename, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
  try {
    database.defaultSafeIntegers(true);
    if (database.pragma('journal_mode', { simple: true }) !== 'wal') database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('secure_delete = ON');
    database.pragma('foreign_keys = ON');
    // A file at the current version is left as it is: opening it then needs no write lock (a
    // backup or another engine may hold it while this one starts).
    if (!schemaIsCurrent(database)) {
      database
        .transaction(() => {
          database.exec(SQLITE_SCHEMA);
          addMissingColumns(database, 'erasures', ERASURE_HEAD_COLUMNS);
          database.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
        })
        .immediate();
    }
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}
