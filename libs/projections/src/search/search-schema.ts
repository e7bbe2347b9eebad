// The tables of the session search in SQLite, shared by the storage (which creates them when it
// opens) and the writer thread's operations (a rebuild drops the index and creates it empty, far
// faster than deleting its rows one by one). Plain SQL text: the writer thread loads this module.

/** The FTS5 index of entry texts (unicode61, accents removed); a tenant is a token of `scope`. */
export const SEARCH_ENTRIES_TABLE_SQL = `CREATE VIRTUAL TABLE IF NOT EXISTS projection_search_entries USING fts5(
  session_id UNINDEXED, entry_id UNINDEXED, tenant UNINDEXED, scope, body,
  tokenize = 'unicode61 remove_diacritics 2'
)`;

/** Each session's rows of the index (so a session is forgotten without a scan) and its last position indexed. */
export const SEARCH_SESSION_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS projection_search_rows (
  row_id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS projection_search_rows_by_session ON projection_search_rows (session_id);
CREATE TABLE IF NOT EXISTS projection_search_sessions (
  session_id TEXT PRIMARY KEY,
  position INTEGER NOT NULL
);
`;
