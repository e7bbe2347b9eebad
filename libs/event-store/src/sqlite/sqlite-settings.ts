// How a process writes its SQLite files, from its environment (the engine and the CLI read the
// same two variables): `STRATA_SQLITE_SYNCHRONOUS` (`full`, the default: a write is answered only
// once flushed to disk; `normal`: flushed at checkpoints, faster, the last commits can be lost to
// a power cut) and `STRATA_SQLITE_BUSY_TIMEOUT_MS` (how long a write waits for a write lock held
// by another process before it is refused; 10 s by default).
import { DEFAULT_BUSY_TIMEOUT_MS } from './sqlite-database';
import { DEFAULT_SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './writer/sqlite-writer-connection';

export const SQLITE_SYNCHRONOUS_VARIABLE = 'STRATA_SQLITE_SYNCHRONOUS';
export const SQLITE_BUSY_TIMEOUT_VARIABLE = 'STRATA_SQLITE_BUSY_TIMEOUT_MS';
/** The longest busy timeout accepted: a write should be refused before clients give up on it. */
export const MAX_BUSY_TIMEOUT_MS = 600_000;

export interface SqliteSettings {
  readonly synchronous: SqliteSynchronous;
  readonly busyTimeoutMs: number;
}

export const DEFAULT_SQLITE_SETTINGS: SqliteSettings = {
  synchronous: DEFAULT_SQLITE_SYNCHRONOUS,
  busyTimeoutMs: DEFAULT_BUSY_TIMEOUT_MS,
};

/** The settings the environment gives, and a problem per variable it gives wrongly (each naming it). */
export function sqliteSettingsOf(environment: Readonly<Record<string, string | undefined>>): {
  readonly settings: SqliteSettings;
  readonly problems: readonly string[];
} {
  const problems: string[] = [];
  let { synchronous, busyTimeoutMs } = DEFAULT_SQLITE_SETTINGS;
  const synchronousText = environment[SQLITE_SYNCHRONOUS_VARIABLE]?.trim().toLowerCase();
  if (synchronousText === 'full' || synchronousText === 'normal') synchronous = synchronousText;
  else if (synchronousText !== undefined && synchronousText !== '') {
    problems.push(`${SQLITE_SYNCHRONOUS_VARIABLE}: must be full or normal, not ${synchronousText}`);
  }
  const busyText = environment[SQLITE_BUSY_TIMEOUT_VARIABLE]?.trim();
  if (busyText !== undefined && busyText !== '') {
    const value = Number(busyText);
    if (/^\d+$/.test(busyText) && value <= MAX_BUSY_TIMEOUT_MS) busyTimeoutMs = value;
    else
      problems.push(
        `${SQLITE_BUSY_TIMEOUT_VARIABLE}: must be a whole number of milliseconds from 0 to ${MAX_BUSY_TIMEOUT_MS}`,
      );
  }
  return { settings: { synchronous, busyTimeoutMs }, problems };
}
