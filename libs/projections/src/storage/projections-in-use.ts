// Who is using a projection database: engines keeping its read models up to date, or a rebuild
// (`strata replay`) resetting them. A rebuild under a running engine would race the engine's own
// writes and checkpoints, so the two must not overlap on one database.
//
// The mark is an operating-system file lock, taken through SQLite on a small file beside the
// projection database (`<database>-in-use`): every engine holds a read transaction open on it
// for as long as it runs (SQLite's SHARED lock, which many engines can hold together), and a
// rebuild takes SQLite's EXCLUSIVE lock on it, without waiting, for as long as it runs. The
// kernel drops a process's locks when it exits, however it exits, so a crashed engine never
// leaves a stale mark behind, and nothing depends on clocks, heartbeats or process ids (which
// lie across hosts and containers). Its limits: the lock is as good as the file system's
// (POSIX advisory locks; not reliable on some network file systems, where SQLite itself is not
// either), and an engine older than this mark holds nothing, so it is not seen.
import Database from 'better-sqlite3';

/** How long an engine waits for the lock (another engine creating the file); a replay never waits. */
const ENGINE_WAIT_MS = 2_000;

/** Held until released (or until the process ends). */
export interface ProjectionsHold {
  release(): void;
}

/** The file the lock is taken on, beside the projection database. */
export function inUseFileOf(databaseFile: string): string {
  return `${databaseFile}-in-use`;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** A rebuild holds the database; the engine cannot keep it up to date meanwhile. */
export class ProjectionsBeingRebuiltError extends Error {
  override readonly name = 'ProjectionsBeingRebuiltError';

  constructor(readonly databaseFile: string) {
    super(
      `the projections in ${databaseFile} are being rebuilt (strata replay); start the engine when the replay has ended`,
    );
  }
}

/**
 * Marks the database as used by an engine (a shared hold, beside other engines' holds). Throws
 * `ProjectionsBeingRebuiltError` while a rebuild holds it.
 */
export function holdProjectionsForEngine(databaseFile: string): ProjectionsHold {
  // Waits a little: two engines starting together may meet while the first one creates the table.
  const database = new Database(inUseFileOf(databaseFile), { timeout: ENGINE_WAIT_MS });
  try {
    database.exec('CREATE TABLE IF NOT EXISTS engines_hold_a_read_lock (note TEXT)');
    database.exec('BEGIN');
    database.prepare('SELECT count(*) FROM engines_hold_a_read_lock').get();
  } catch (error) {
    database.close();
    if (isBusy(error)) throw new ProjectionsBeingRebuiltError(databaseFile);
    throw error;
  }
  return { release: () => database.close() };
}

/** Holds the database for a rebuild, or undefined when an engine (or another rebuild) uses it. */
export function holdProjectionsForRebuild(databaseFile: string): ProjectionsHold | undefined {
  const database = new Database(inUseFileOf(databaseFile), { timeout: 0 });
  try {
    database.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    database.close();
    if (isBusy(error)) return undefined;
    throw error;
  }
  return { release: () => database.close() };
}
