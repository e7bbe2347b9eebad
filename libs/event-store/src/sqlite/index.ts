// The embedded SQLite adapter, its checkpoint store and database opener.
export * from './sqlite-event-store';
export * from './sqlite-checkpoint-store';
export {
  DEFAULT_SQLITE_FILENAME,
  SQLITE_SCHEMA,
  SQLITE_SCHEMA_VERSION,
  openStrataDatabase,
  type SqliteDatabaseOptions,
} from './sqlite-database';
