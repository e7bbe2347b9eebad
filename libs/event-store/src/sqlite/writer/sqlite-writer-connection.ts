// The writer's connection to a SQLite file: WAL, the durability the store was asked for
// (`FULL` by default: a commit returns once the write-ahead log is flushed to disk, so nothing
// is acknowledged before it would survive a power cut), secure delete and foreign keys as every
// Strata connection, and a short busy timeout: the executor waits for a lock held elsewhere in
// slices of it, looking at its queue in between.
import Database from 'better-sqlite3';
import { LOCK_SLICE_MS } from './sqlite-write-executor';

/**
 * How a commit reaches the disk. `full`: the write-ahead log is flushed at every commit (one
 * flush per batch). `normal`: flushed at checkpoints only; a power cut may lose the last commits
 * (never corrupt the file) — an opt-in for those who prefer speed.
 */
export type SqliteSynchronous = 'full' | 'normal';

export const DEFAULT_SQLITE_SYNCHRONOUS: SqliteSynchronous = 'full';

export interface WriterConnectionOptions {
  readonly filename: string;
  readonly synchronous: SqliteSynchronous;
  /** Per attempt to take the write lock; `LOCK_SLICE_MS` by default. */
  readonly lockSliceMs?: number;
}

export function openWriterConnection(options: WriterConnectionOptions): Database.Database {
  const database = new Database(options.filename, { timeout: options.lockSliceMs ?? LOCK_SLICE_MS });
  try {
    database.defaultSafeIntegers(true);
    database.pragma('journal_mode = WAL');
    applyWriterPragmas(database, options.synchronous);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

/** The pragmas of a connection that writes (the writer's own, or an in-place one). */
export function applyWriterPragmas(database: Database.Database, synchronous: SqliteSynchronous): void {
  database.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  database.pragma('secure_delete = ON');
  database.pragma('foreign_keys = ON');
}
