// Telling a store that cannot serve right now from every other failure: the EventStoreDB
// client's connection errors (unavailable, deadline exceeded, not the leader, cancelled) and
// SQLite's busy, locked, read-only, I/O, full and cannot-open errors, and a closed SQLite
// connection. The HTTP edge answers these with 503 (try again later) instead of 500. Errors
// are recognised by their `type` / `code` fields, not by class: under Jest they can come from
// another realm.

const unavailableEsdbTypes = new Set([
  'unavailable',
  'deadline-exceeded',
  'timeout',
  'not-leader',
  'cancelled',
]);

const unavailableSqliteCodes = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_READONLY',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
];

/** Why the store could not serve (`unavailable`, `SQLITE_READONLY`…), or undefined for other errors. */
export function storeUnavailableReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, type, name, message } = error as {
    code?: unknown;
    type?: unknown;
    name?: unknown;
    message?: unknown;
  };
  if (typeof type === 'string' && unavailableEsdbTypes.has(type)) return type;
  if (typeof code === 'string' && unavailableSqliteCodes.some((prefix) => code.startsWith(prefix)))
    return code;
  if (name === 'TypeError' && message === 'The database connection is not open') return 'closed';
  return undefined;
}

export function isStoreUnavailableError(error: unknown): boolean {
  return storeUnavailableReason(error) !== undefined;
}
