// The prepared statements of the SQLite event store, prepared once per connection and reused.
import type Database from 'better-sqlite3';
import { EVENT_COLUMNS, EVENT_HEADER_COLUMNS, type EventHeaderRow, type EventRow } from './sqlite-event-rows';

export type EventHeaderAndEndRow = EventHeaderRow & StreamRow;

export interface StreamRow {
  readonly last_revision: bigint;
  readonly erased: bigint;
}

export interface LocationRow {
  readonly stream_id: string;
  readonly event_id: string;
  readonly stream_revision: bigint;
  readonly global_position: bigint;
}

export interface ErasureRow {
  readonly stream_id: string;
  readonly actor: string;
  readonly reason: string;
  readonly tenant: string | null;
  readonly erased_at: string;
  readonly event_count: bigint;
  readonly head_hash: string | null;
  readonly head_revision: string | null;
}

const erasureColumns = 'stream_id, actor, reason, tenant, erased_at, event_count, head_hash, head_revision';

export class SqliteEventStatements {
  readonly selectStream: Database.Statement<[string], StreamRow>;
  readonly selectLocation: Database.Statement<[string], LocationRow>;
  readonly selectRun: Database.Statement<[string, bigint, number], LocationRow>;
  readonly selectHead: Database.Statement<[], { readonly head: bigint | null }>;
  readonly insertEvent: Database.Statement<[string, bigint, string, string, string, string, string]>;
  readonly upsertStream: Database.Statement<[string, bigint]>;
  readonly selectStreamForwards: Database.Statement<[string, bigint, number], EventRow>;
  readonly selectStreamBackwards: Database.Statement<[string, bigint, number], EventRow>;
  readonly selectEventHeader: Database.Statement<[string, bigint], EventHeaderRow>;
  /** The header of the event at a revision with its stream's last revision, read together. */
  readonly selectEventHeaderAndEnd: Database.Statement<[string, bigint], EventHeaderAndEndRow>;
  readonly selectEventData: Database.Statement<[bigint, string], { readonly data: string }>;
  readonly selectEventMetadata: Database.Statement<
    [bigint, string],
    { readonly metadata: string; readonly created_at: string }
  >;
  readonly selectMetadata: Database.Statement<[string], { readonly metadata: string }>;
  readonly upsertMetadata: Database.Statement<[string, string]>;
  readonly deleteMetadata: Database.Statement<[string]>;
  readonly deleteStreamEvents: Database.Statement<[string]>;
  readonly markErased: Database.Statement<[string, bigint]>;
  readonly insertErasure: Database.Statement<
    [string, string, string, string | null, string, number, string | null, string | null]
  >;
  readonly reviveStream: Database.Statement<[string]>;
  readonly selectAllErasures: Database.Statement<[], ErasureRow>;
  readonly selectStreamErasures: Database.Statement<[string], ErasureRow>;

  constructor(database: Database.Database) {
    this.selectStream = database.prepare('SELECT last_revision, erased FROM streams WHERE stream_id = ?');
    this.selectLocation = database.prepare(
      'SELECT stream_id, event_id, stream_revision, global_position FROM events WHERE event_id = ?',
    );
    this.selectRun = database.prepare(
      `SELECT stream_id, event_id, stream_revision, global_position FROM events
       WHERE stream_id = ? AND stream_revision >= ? ORDER BY stream_revision LIMIT ?`,
    );
    this.selectHead = database.prepare('SELECT max(global_position) AS head FROM events');
    this.insertEvent = database.prepare(
      `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.upsertStream = database.prepare(
      `INSERT INTO streams (stream_id, last_revision) VALUES (?, ?)
       ON CONFLICT (stream_id) DO UPDATE SET last_revision = excluded.last_revision`,
    );
    this.selectStreamForwards = database.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_revision >= ?
       ORDER BY stream_revision ASC LIMIT ?`,
    );
    this.selectStreamBackwards = database.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_revision <= ?
       ORDER BY stream_revision DESC LIMIT ?`,
    );
    this.selectEventHeaderAndEnd = database.prepare(
      `SELECT ${EVENT_HEADER_COLUMNS.split(', ')
        .map((column) => `events.${column}`)
        .join(', ')}, streams.last_revision, streams.erased
       FROM events JOIN streams ON streams.stream_id = events.stream_id
       WHERE events.stream_id = ? AND events.stream_revision = ?`,
    );
    this.selectEventHeader = database.prepare(
      `SELECT ${EVENT_HEADER_COLUMNS} FROM events WHERE stream_id = ? AND stream_revision = ?`,
    );
    this.selectEventData = database.prepare(
      'SELECT data FROM events WHERE global_position = ? AND event_id = ?',
    );
    this.selectEventMetadata = database.prepare(
      'SELECT metadata, created_at FROM events WHERE global_position = ? AND event_id = ?',
    );
    this.selectMetadata = database.prepare('SELECT metadata FROM stream_metadata WHERE stream_id = ?');
    this.upsertMetadata = database.prepare(
      `INSERT INTO stream_metadata (stream_id, metadata) VALUES (?, ?)
       ON CONFLICT (stream_id) DO UPDATE SET metadata = excluded.metadata`,
    );
    this.deleteMetadata = database.prepare('DELETE FROM stream_metadata WHERE stream_id = ?');
    this.deleteStreamEvents = database.prepare('DELETE FROM events WHERE stream_id = ?');
    this.markErased = database.prepare(
      `INSERT INTO streams (stream_id, last_revision, erased) VALUES (?, ?, 1)
       ON CONFLICT (stream_id) DO UPDATE SET erased = 1`,
    );
    this.insertErasure = database.prepare(
      `INSERT INTO erasures (${erasureColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.reviveStream = database.prepare('DELETE FROM streams WHERE stream_id = ? AND erased = 1');
    this.selectAllErasures = database.prepare(`SELECT ${erasureColumns} FROM erasures ORDER BY erasure_id`);
    this.selectStreamErasures = database.prepare(
      `SELECT ${erasureColumns} FROM erasures WHERE stream_id = ? ORDER BY erasure_id`,
    );
  }
}
