// A CheckpointStore in the `checkpoints` table of a Strata SQLite database: one row per
// subscriber, overwritten on each store (a rebuild may move a checkpoint back).
import type Database from 'better-sqlite3';
import type { CheckpointStore } from '../port';
import { settle } from '../shared/append-rules';
import { openStrataDatabase, type SqliteDatabaseOptions } from './sqlite-database';

export class SqliteCheckpointStore implements CheckpointStore {
  private readonly selectPosition: Database.Statement<[string], { readonly position: bigint }>;
  private readonly upsertPosition: Database.Statement<[string, bigint, string]>;

  /** Uses an open database (see `openStrataDatabase`); the caller keeps ownership of it. */
  constructor(
    private readonly database: Database.Database,
    private readonly clock: () => Date = () => new Date(),
    private readonly ownsDatabase = false,
  ) {
    this.selectPosition = database.prepare('SELECT position FROM checkpoints WHERE subscriber_id = ?');
    this.upsertPosition = database.prepare(
      `INSERT INTO checkpoints (subscriber_id, position, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (subscriber_id) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
    );
  }

  /** Opens its own connection to the database file; `close()` closes it. */
  static open(options: SqliteDatabaseOptions = {}): SqliteCheckpointStore {
    return new SqliteCheckpointStore(openStrataDatabase(options), () => new Date(), true);
  }

  load(subscriberId: string): Promise<bigint | null> {
    return settle(() => this.selectPosition.get(subscriberId)?.position ?? null);
  }

  store(subscriberId: string, position: bigint): Promise<void> {
    return settle(() => {
      this.upsertPosition.run(subscriberId, position, this.clock().toISOString());
    });
  }

  close(): Promise<void> {
    return settle(() => {
      if (this.ownsDatabase) this.database.close();
    });
  }
}
