// A CheckpointStore in the `checkpoints` table of a Strata SQLite database: one row per
// subscriber, overwritten on each store (a rebuild may move a checkpoint back). Reads use the
// given connection; stores go through the file's writer, like every write to the file.
import type Database from 'better-sqlite3';
import type { CheckpointStore } from '../port';
import { settle } from '../shared/append-rules';
import { sqliteEventWrites } from './sqlite-event-writes';
import { databaseKey, openStrataDatabase, type SqliteDatabaseOptions } from './sqlite-database';
import { openSqliteWriter, type SqliteWriter } from './writer/sqlite-writer';

export class SqliteCheckpointStore implements CheckpointStore {
  private readonly selectPosition: Database.Statement<[string], { readonly position: bigint }>;

  /** Reads on `database` and writes through `writer` (both the caller's: `close()` leaves them open). */
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
    private readonly clock: () => Date = () => new Date(),
    private readonly owned?: { readonly database: Database.Database; readonly writer: SqliteWriter },
  ) {
    this.selectPosition = database.prepare('SELECT position FROM checkpoints WHERE subscriber_id = ?');
  }

  /** Opens its own connection and writer on the database file; `close()` closes them. */
  static open(options: SqliteDatabaseOptions = {}): SqliteCheckpointStore {
    const database = openStrataDatabase(options);
    const writer = openSqliteWriter(database, databaseKey(options.filename ?? ':memory:'), options);
    return new SqliteCheckpointStore(database, writer, () => new Date(), { database, writer });
  }

  load(subscriberId: string): Promise<bigint | null> {
    return settle(() => this.selectPosition.get(subscriberId)?.position ?? null);
  }

  store(subscriberId: string, position: bigint): Promise<void> {
    return this.writer.write(sqliteEventWrites.storeCheckpoint, {
      subscriberId,
      position,
      updatedAt: this.clock().toISOString(),
    });
  }

  async close(): Promise<void> {
    if (this.owned === undefined) return;
    await this.owned.writer.close();
    this.owned.database.close();
  }
}
