// The SQLite event store's writes, as operations of the file's writer (run on its thread, inside a
// batch's transaction, each in a savepoint of its own): append with its expectation and
// idempotency checks, erasure with its audit record, stream metadata, subscriber checkpoints, and
// a pragma for tests and maintenance. Arguments are plain data: event data and metadata arrive
// as the JSON text to store, times as the ISO text the caller's clock gave.
import type Database from 'better-sqlite3';
import {
  ConcurrencyError,
  DuplicateEventIdError,
  ERASURE_EVENT_TYPE,
  ERASURE_LOG_STREAM,
  StreamErasedError,
  erasureEventData,
  assertErasureHead,
  erasureHeadOf,
  type AppendResult,
  type ErasureRecord,
  type EncodedEvent,
  type ErasureRequest,
  type ExpectedRevision,
} from '../port';
import { assertExpectation, resolveRepeatedAppend, type RecordedLocation } from '../shared/append-rules';
import { toJsonText } from '../shared/json-values';
import { storedTextString } from '../shared/stored-text';
import { MAX_SQLITE_INTEGER, recordedEventFromRow } from './sqlite-event-rows';
import { SqliteEventStatements, type LocationRow } from './sqlite-event-statements';
import type { SqliteWriteContext, SqliteWriteOperations } from './writer/sqlite-write-executor';
import type { WriteOperation } from './writer/sqlite-writer';

/** An event ready for its row: data and metadata as the JSON text to store. */
export type PreparedEvent = EncodedEvent;

export interface AppendArgs {
  readonly streamId: string;
  readonly events: readonly PreparedEvent[];
  readonly expected: ExpectedRevision;
  readonly reviveErased: boolean;
  readonly createdAt: string;
  /** The global position of the event at `expected` (AppendOptions.expectedPosition). */
  readonly expectedPosition?: bigint;
}

export interface EraseArgs {
  readonly streamId: string;
  readonly request: ErasureRequest;
  readonly erasedAt: string;
  /** The id of the erasure log's event. */
  readonly eventId: string;
}

export interface ErasureWritten {
  readonly record: ErasureRecord;
  /** The global position of the erasure log's event. */
  readonly position: bigint;
}

const statementsByDatabase = new WeakMap<Database.Database, SqliteEventStatements>();

function statementsOf(database: Database.Database): SqliteEventStatements {
  let statements = statementsByDatabase.get(database);
  if (statements === undefined) {
    statements = new SqliteEventStatements(database);
    statementsByDatabase.set(database, statements);
  }
  return statements;
}

/**
 * Recognised by its code, not by `instanceof`: the native addon builds its errors with the
 * class registered when it was first loaded, which under Jest may belong to another realm.
 */
function isUniqueConstraintFailure(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { readonly code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}

function locationFromRow(row: LocationRow): RecordedLocation {
  return {
    streamId: row.stream_id,
    id: row.event_id,
    revision: row.stream_revision,
    position: row.global_position,
  };
}

function insertEvent(
  statements: SqliteEventStatements,
  streamId: string,
  revision: bigint,
  event: PreparedEvent,
  createdAt: string,
): bigint {
  try {
    const result = statements.insertEvent.run(
      streamId,
      revision,
      event.id,
      event.type,
      storedTextString(event.data),
      event.metadata,
      event.createdAt ?? createdAt,
    );
    return BigInt(result.lastInsertRowid);
  } catch (error) {
    if (isUniqueConstraintFailure(error) && statements.selectLocation.get(event.id) !== undefined) {
      throw new DuplicateEventIdError(streamId, event.id);
    }
    throw error;
  }
}

function head(statements: SqliteEventStatements): bigint | null {
  return statements.selectHead.get()?.head ?? null;
}

/** An append's result; `written` when this append stored its events (not a repeat of an earlier one). */
export interface AppendWritten extends AppendResult {
  readonly written?: true;
}

/**
 * Refuses an append naming `expectedPosition` unless the stream, not erased, ends at `expected`
 * with the event at that position: checked before anything else, so that a writer that trusted
 * its memory of the stream reads it and decides again, as one that read it would have.
 */
function assertExpectedHead(statements: SqliteEventStatements, args: AppendArgs): void {
  const { streamId, expected, expectedPosition } = args;
  if (expectedPosition === undefined) return;
  const stream = statements.selectStream.get(streamId);
  const current = stream === undefined || stream.erased !== 0n ? null : stream.last_revision;
  const holds =
    typeof expected === 'bigint' &&
    current === expected &&
    statements.selectEventHeader.get(streamId, expected)?.global_position === expectedPosition;
  if (!holds) {
    throw new ConcurrencyError(
      streamId,
      expected,
      current,
      `Append to ${streamId} expected its event at position ${expectedPosition} last, which it no longer ends with`,
    );
  }
}

export function appendEvents({ database }: SqliteWriteContext, args: AppendArgs): AppendWritten {
  const statements = statementsOf(database);
  const { streamId, events, expected } = args;
  assertExpectedHead(statements, args);
  if (args.reviveErased && events.length > 0) statements.reviveStream.run(streamId);
  const stream = statements.selectStream.get(streamId);
  if (stream !== undefined && stream.erased !== 0n) throw new StreamErasedError(streamId);
  const current = stream?.last_revision ?? null;
  const first = events[0];
  const firstRecorded = first === undefined ? undefined : statements.selectLocation.get(first.id);
  if (firstRecorded !== undefined) {
    const run = statements.selectRun
      .all(firstRecorded.stream_id, firstRecorded.stream_revision, events.length)
      .map(locationFromRow);
    return resolveRepeatedAppend(
      streamId,
      events.map((event) => event.id),
      expected,
      current,
      locationFromRow(firstRecorded),
      run,
    );
  }
  assertExpectation(streamId, expected, current);
  if (events.length === 0) return { nextExpectedRevision: current ?? -1n, position: head(statements) ?? -1n };
  let revision = current ?? -1n;
  let position = 0n;
  for (const event of events) {
    revision += 1n;
    position = insertEvent(statements, streamId, revision, event, args.createdAt);
  }
  statements.upsertStream.run(streamId, revision);
  return { nextExpectedRevision: revision, position, written: true };
}

export function eraseStream({ database, afterCommit }: SqliteWriteContext, args: EraseArgs): ErasureWritten {
  const statements = statementsOf(database);
  const { streamId, request, erasedAt } = args;
  const stream = statements.selectStream.get(streamId);
  if (stream !== undefined && stream.erased !== 0n) throw new StreamErasedError(streamId);
  assertErasureHead(streamId, request, stream?.last_revision ?? null);
  const lastRow = statements.selectStreamBackwards.get(streamId, MAX_SQLITE_INTEGER, 1);
  const erasedHead = erasureHeadOf(lastRow === undefined ? undefined : recordedEventFromRow(lastRow));
  const eventCount = Number(statements.deleteStreamEvents.run(streamId).changes);
  statements.markErased.run(streamId, stream?.last_revision ?? -1n);
  statements.deleteMetadata.run(streamId);
  const inserted = statements.insertErasure.run(
    streamId,
    request.actor,
    request.reason,
    request.tenant ?? null,
    erasedAt,
    eventCount,
    erasedHead.headHash ?? null,
    erasedHead.headRevision ?? null,
  );
  const record: ErasureRecord = {
    streamId,
    actor: request.actor,
    reason: request.reason,
    ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
    erasedAt,
    eventCount,
    ...erasedHead,
  };
  // The erasure log's event: in the global log after every event of the stream, so that read
  // models in every process on this file learn of the erasure in order (reads show it only
  // to a filter with includeErasures).
  const position = insertEvent(
    statements,
    ERASURE_LOG_STREAM,
    BigInt(inserted.lastInsertRowid) - 1n,
    {
      id: args.eventId,
      type: ERASURE_EVENT_TYPE,
      data: toJsonText(erasureEventData(record), 'erasure record'),
      metadata: toJsonText(
        request.tenant === undefined ? {} : { tenant: request.tenant },
        'erasure metadata',
      ),
    },
    erasedAt,
  );
  // Secure delete overwrote the pages in the log; the checkpoint moves them into the file and
  // empties the log, so the erased content is nowhere on disk.
  afterCommit(() => database.pragma('wal_checkpoint(TRUNCATE)'));
  return { record, position };
}

export function setStreamMetadata(
  { database }: SqliteWriteContext,
  args: { readonly streamId: string; readonly metadata: string },
): void {
  statementsOf(database).upsertMetadata.run(args.streamId, args.metadata);
}

const upsertCheckpointSql = `INSERT INTO checkpoints (subscriber_id, position, updated_at) VALUES (?, ?, ?)
  ON CONFLICT (subscriber_id) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`;

export function storeCheckpoint(
  { statement }: SqliteWriteContext,
  args: { readonly subscriberId: string; readonly position: bigint; readonly updatedAt: string },
): void {
  statement(upsertCheckpointSql).run(args.subscriberId, args.position, args.updatedAt);
}

/** Runs one pragma on the writer's connection, outside any transaction (tests, maintenance): its simple value. */
export function writerPragma({ database }: SqliteWriteContext, args: { readonly pragma: string }): unknown {
  return database.pragma(args.pragma, { simple: true });
}

/** @public The writer thread requires this module by path and takes this export by name. */
export const sqliteWriteOperations: SqliteWriteOperations = {
  appendEvents,
  eraseStream,
  setStreamMetadata,
  storeCheckpoint,
  writerPragma,
};

/** The operations of this module, as a writer names them. */
export const sqliteEventWrites = {
  appendEvents: { module: __filename, operation: 'appendEvents', independent: true },
  eraseStream: { module: __filename, operation: 'eraseStream' },
  setStreamMetadata: { module: __filename, operation: 'setStreamMetadata' },
  storeCheckpoint: { module: __filename, operation: 'storeCheckpoint' },
  writerPragma: { module: __filename, operation: 'writerPragma', outsideTransaction: true },
} as const satisfies Readonly<Record<string, WriteOperation>>;
