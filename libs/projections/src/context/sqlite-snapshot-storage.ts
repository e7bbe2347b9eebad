// The context projection's session snapshots in SQLite (snapshot-storage.ts): one row per
// session with the snapshot's format, the position it was taken at and its JSON text. Reads on
// this thread's connection; writes through the file's writer (storage/sqlite-projection-writes.ts),
// one snapshot a write, behind the projection's work.
import type Database from 'better-sqlite3';
import type { SqliteWriter } from '@strata/event-store';
import { settle } from '../storage/settle';
import { CONTEXT_SNAPSHOTS_TABLE_SQL, projectionWrites } from '../storage/sqlite-projection-writes';
import type { SessionSnapshotRow } from './session-snapshot';
import type { SessionSnapshotStorage } from './snapshot-storage';

interface StoredRow {
  readonly format: number;
  readonly position: bigint;
  readonly body: string;
}

export class SqliteSnapshotStorage implements SessionSnapshotStorage {
  private selectRow: Database.Statement<[string], StoredRow> | undefined;

  /** Reads on `database` and writes through `writer` (the caller closes both); creates the table when missing. */
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    database.exec(CONTEXT_SNAPSHOTS_TABLE_SQL);
  }

  /** Rejects when the table cannot be read (the projection then reads the events). */
  load(sessionId: string): Promise<SessionSnapshotRow | undefined> {
    return settle(() => {
      this.selectRow ??= this.database
        .prepare<[string], StoredRow>(
          'SELECT format, position, body FROM projection_context_snapshots WHERE session_id = ?',
        )
        .safeIntegers(true);
      const row = this.selectRow.get(sessionId);
      if (row === undefined) return undefined;
      return {
        sessionId,
        format: Number(row.format),
        position: BigInt(row.position),
        body: String(row.body),
      };
    });
  }

  async save(row: SessionSnapshotRow): Promise<void> {
    await this.writer.write(projectionWrites.saveContextSnapshot, { row }, row.body.length * 2);
  }

  forgetSession(sessionId: string): Promise<void> {
    return this.writer.write(projectionWrites.forgetContextSnapshot, { sessionId });
  }

  clear(): Promise<void> {
    return this.writer.write(projectionWrites.clearContextSnapshots, {});
  }
}
