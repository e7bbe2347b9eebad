// The baseline of the store suite: raw better-sqlite3 writing the same rows into the SQLite
// adapter's own tables, created from its DDL (`SQLITE_SCHEMA`: events with a global
// AUTOINCREMENT position, unique event id, unique stream/revision; a streams table holding each
// stream's last revision), in WAL with synchronous=NORMAL and one BEGIN IMMEDIATE transaction per append. Rows arrive serialised and
// revisions are known to the caller: nothing but the inserts is left, the limit on this machine.
import Database from 'better-sqlite3';
import { SQLITE_SCHEMA } from '@strata/event-store';
import type { EventRowValues } from './event-batches';

interface StoredRow {
  readonly global_position: number;
  readonly stream_id: string;
  readonly stream_revision: number;
  readonly event_id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  readonly created_at: string;
}

const columns = 'global_position, stream_id, stream_revision, event_id, type, data, metadata, created_at';

export class RawSqliteEvents {
  private readonly database: Database.Database;
  private readonly insertEvent: Database.Statement<[string, number, string, string, string, string, string]>;
  private readonly upsertStream: Database.Statement<[string, number]>;
  private readonly selectStream: Database.Statement<[string], StoredRow>;
  private readonly selectAll: Database.Statement<[], StoredRow>;
  private readonly appendRows: (
    streamId: string,
    firstRevision: number,
    rows: readonly EventRowValues[],
  ) => void;

  constructor(filename: string) {
    this.database = new Database(filename);
    this.database.pragma('journal_mode = WAL');
    this.database.pragma('synchronous = NORMAL');
    this.database.exec(SQLITE_SCHEMA);
    this.insertEvent = this.database.prepare(
      `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.upsertStream = this.database.prepare(
      `INSERT INTO streams (stream_id, last_revision) VALUES (?, ?)
       ON CONFLICT (stream_id) DO UPDATE SET last_revision = excluded.last_revision`,
    );
    this.selectStream = this.database.prepare(
      `SELECT ${columns} FROM events WHERE stream_id = ? ORDER BY stream_revision`,
    );
    this.selectAll = this.database.prepare(`SELECT ${columns} FROM events ORDER BY global_position`);
    const transaction = this.database.transaction(
      (streamId: string, firstRevision: number, rows: readonly EventRowValues[]) => {
        const createdAt = new Date().toISOString();
        let revision = firstRevision;
        for (const row of rows) {
          this.insertEvent.run(streamId, revision, row.id, row.type, row.data, row.metadata, createdAt);
          revision += 1;
        }
        this.upsertStream.run(streamId, revision - 1);
      },
    );
    this.appendRows = (streamId, firstRevision, rows) => transaction.immediate(streamId, firstRevision, rows);
  }

  /** One BEGIN IMMEDIATE transaction: the rows at `firstRevision`, `firstRevision + 1`, … */
  append(streamId: string, firstRevision: number, rows: readonly EventRowValues[]): void {
    this.appendRows(streamId, firstRevision, rows);
  }

  /** Reads a stream and parses each event's data and metadata (what any reader needs). */
  readStream(streamId: string): number {
    let count = 0;
    for (const row of this.selectStream.all(streamId)) {
      if (JSON.parse(row.data) !== undefined && JSON.parse(row.metadata) !== undefined) count += 1;
    }
    return count;
  }

  /** Reads every event in global order, parsing data and metadata. */
  readAll(): number {
    let count = 0;
    for (const row of this.selectAll.iterate()) {
      if (JSON.parse(row.data) !== undefined && JSON.parse(row.metadata) !== undefined) count += 1;
    }
    return count;
  }

  close(): void {
    this.database.close();
  }
}
