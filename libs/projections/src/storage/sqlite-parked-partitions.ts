// Parked partitions of the read models in their SQLite database, beside their checkpoints
// (a table of its own, created when missing), so a session set aside stays aside after a
// restart until a rebuild releases it. Writes go through the file's writer.
import type Database from 'better-sqlite3';
import type { SqliteWriter } from '@strata/event-store';
import type { ParkedPartition, ParkedPartitionStore } from '@strata/processing';
import { settle } from './settle';
import { projectionWrites } from './sqlite-projection-writes';

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

  constructor(
    database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    database.exec(PARKED_SCHEMA);
    this.selectParked = database
      .prepare<[string], ParkedRow>('SELECT * FROM parked_partitions WHERE processor = ? ORDER BY position')
      .safeIntegers(true);
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
    return this.writer.write(projectionWrites.park, { record });
  }

  release(processor: string, partition?: string): Promise<void> {
    return this.writer.write(projectionWrites.release, {
      processor,
      ...(partition !== undefined ? { partition } : {}),
    });
  }
}
