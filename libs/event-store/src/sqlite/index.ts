// The embedded SQLite adapter, its checkpoint store, database opener and the file's writer.
export * from './sqlite-event-store';
export * from './sqlite-checkpoint-store';
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  DEFAULT_SQLITE_FILENAME,
  SQLITE_SCHEMA,
  SQLITE_SCHEMA_VERSION,
  databaseKey,
  openStrataDatabase,
  type SqliteDatabaseOptions,
} from './sqlite-database';
export {
  SqliteWriterStoppedError,
  openSqliteWriter,
  type OpenSqliteWriterOptions,
  type SqliteWriter,
  type WriteOperation,
} from './writer/sqlite-writer';
export type { SqliteWriteContext, SqliteWriteOperations } from './writer/sqlite-write-executor';
export { StoreBusyError } from './writer/sqlite-write-protocol';
export { DEFAULT_SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './writer/sqlite-writer-connection';
export * from './sqlite-settings';
