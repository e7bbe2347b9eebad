// Parked partitions of the read models in their SQLite database, beside their checkpoints
// (a table of its own, created when missing), so a session set aside stays aside after a
// restart until a rebuild releases it.
import type Database from 'better-sqlite3';
import type { ParkedPartition, ParkedPartitionStore } from '@strata/processing';
import { settle } from './settle';

const PARKED_SCHEMA = `
CREATE TABLE IF NOT EXISTS parked_partitions (
  processor TEXT NOT NULL,
  partition_key TEXT NOT NULL,
  tenant TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  position INTEGER NOT NULL,
  reason TEXT NOT NULL,
  parked_at TEXT NOT NULL,
  PRIMARY KEY (processor, partition_key)
);
`;

interface ParkedRow {
  readonly processor: string;
  readonly partition_key: string;
  readonly tenant: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly position: bigint;
  readonly reason: string;
  readonly parked_at: string;
}

export class SqliteParkedPartitionStore implements ParkedPartitionStore {
  private readonly selectParked: Database.Statement<[string], ParkedRow>;
  private readonly upsertParked: Database.Statement<
    [string, string, string, string, string, bigint, string, string]
  >;
  private readonly deleteOne: Database.Statement<[string, string]>;
  private readonly deleteAll: Database.Statement<[string]>;

  constructor(database: Database.Database) {
    database.exec(PARKED_SCHEMA);
    this.selectParked = database
      .prepare<[string], ParkedRow>('SELECT * FROM parked_partitions WHERE processor = ? ORDER BY position')
      .safeIntegers(true);
    this.upsertParked = database.prepare(
      `INSERT INTO parked_partitions
         (processor, partition_key, tenant, event_id, event_type, position, reason, parked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (processor, partition_key) DO UPDATE SET
         tenant = excluded.tenant, event_id = excluded.event_id, event_type = excluded.event_type,
         position = excluded.position, reason = excluded.reason, parked_at = excluded.parked_at`,
    );
    this.deleteOne = database.prepare(
      'DELETE FROM parked_partitions WHERE processor = ? AND partition_key = ?',
    );
    this.deleteAll = database.prepare('DELETE FROM parked_partitions WHERE processor = ?');
  }

  list(processor: string): Promise<readonly ParkedPartition[]> {
    return settle(() =>
      this.selectParked.all(processor).map((row) => ({
        processor: row.processor,
        partition: row.partition_key,
        tenant: row.tenant,
        eventId: row.event_id,
        eventType: row.event_type,
        position: row.position,
        reason: row.reason,
        parkedAt: row.parked_at,
      })),
    );
  }

  park(record: ParkedPartition): Promise<void> {
    return settle(() => {
      this.upsertParked.run(
        record.processor,
        record.partition,
        record.tenant,
        record.eventId,
        record.eventType,
        record.position,
        record.reason,
        record.parkedAt,
      );
    });
  }

  release(processor: string, partition?: string): Promise<void> {
    return settle(() => {
      if (partition === undefined) this.deleteAll.run(processor);
      else this.deleteOne.run(processor, partition);
    });
  }
}
