// The embedded SQLite adapter of the event-store port (the default store, DESIGN.md decision 3).
// One BEGIN IMMEDIATE transaction per append: writers in this and other processes queue on the
// database's write lock (busy timeout), so revisions and global positions are assigned in
// commit order and nothing is lost or duplicated. Event ids are unique across the store.
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import {
  assertAllowedStreamMetadata,
  DuplicateEventIdError,
  ERASURE_EVENT_TYPE,
  ERASURE_LOG_STREAM,
  erasureEventData,
  erasureHeadOf,
  StreamErasedError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ErasureRecord,
  type ErasureRequest,
  type ExpectedRevision,
  type PageLimits,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamMetadata,
  type SubscribeOptions,
  type Subscription,
} from '../port';
import {
  assertDistinctIds,
  assertExpectation,
  asyncIterableOf,
  resolveRepeatedAppend,
  settle,
  type RecordedLocation,
} from '../shared/append-rules';
import { fromJsonText, toJsonRecord, toJsonText } from '../shared/json-values';
import { pageLimitsOf } from '../shared/page-limits';
import { CatchUpSubscription } from '../subscription/catch-up-subscription';
import { SqliteAppendWatch } from './sqlite-append-watch';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store';
import {
  DEFAULT_SQLITE_FILENAME,
  databaseKey,
  openStrataDatabase,
  type SqliteDatabaseOptions,
} from './sqlite-database';
import { logPages, streamPages } from './sqlite-event-reads';
import { LogRangeReader, MAX_SQLITE_INTEGER, recordedEventFromRow } from './sqlite-event-rows';
import { SqliteEventStatements, type LocationRow } from './sqlite-event-statements';

export interface SqliteEventStoreOptions extends SqliteDatabaseOptions {
  /** How often a waiting live subscription looks for other processes' appends. 200 ms by default. */
  readonly pollIntervalMs?: number;
  /** Events fetched per page by reads and subscriptions. 500 by default. */
  readonly readBatchSize?: number;
  /** The byte limit of those pages (see `PageLimits`). 1 MiB by default. */
  readonly readPageBytes?: number;
  /** The store's clock for `createdAt` and erasure records; the system clock by default. */
  readonly clock?: () => Date;
}

interface PreparedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

export class SqliteEventStore implements EventStore {
  /** The open database (shared with a checkpoint store, or inspected by tests). */
  readonly database: Database.Database;
  private readonly statements: SqliteEventStatements;
  private readonly logReader: LogRangeReader;
  private readonly watch: SqliteAppendWatch;
  private readonly subscriptions = new Set<CatchUpSubscription>();
  private readonly clock: () => Date;
  private readonly pageLimits: PageLimits;
  private readonly appendTransaction: (
    streamId: string,
    events: readonly PreparedEvent[],
    expected: ExpectedRevision,
    reviveErased: boolean,
  ) => AppendResult;
  private readonly eraseTransaction: (
    streamId: string,
    request: ErasureRequest,
  ) => { readonly record: ErasureRecord; readonly position: bigint };
  private closed = false;

  constructor(options: SqliteEventStoreOptions = {}) {
    this.database = openStrataDatabase(options);
    this.statements = new SqliteEventStatements(this.database);
    this.logReader = new LogRangeReader(this.database);
    this.clock = options.clock ?? (() => new Date());
    this.pageLimits = pageLimitsOf({ maxCount: options.readBatchSize, maxBytes: options.readPageBytes }, 500);
    this.watch = new SqliteAppendWatch(
      databaseKey(options.filename ?? DEFAULT_SQLITE_FILENAME),
      () => this.head(),
      options.pollIntervalMs ?? 200,
    );
    const append = this.database.transaction(this.appendInTransaction.bind(this));
    this.appendTransaction = (streamId, events, expected, reviveErased) =>
      append.immediate(streamId, events, expected, reviveErased);
    const erase = this.database.transaction(this.eraseInTransaction.bind(this));
    this.eraseTransaction = (streamId, request) => erase.immediate(streamId, request);
  }

  appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    return settle(() => {
      const prepared = events.map((event) => ({
        id: event.id,
        type: event.type,
        data: toJsonText(event.data, `data of event ${event.id}`),
        metadata: toJsonText(event.metadata ?? {}, `metadata of event ${event.id}`),
      }));
      assertDistinctIds(
        streamId,
        prepared.map((event) => event.id),
      );
      const result = this.appendTransaction(
        streamId,
        prepared,
        options.expectedRevision ?? 'any',
        options.reviveErased === true,
      );
      if (prepared.length > 0) this.watch.announceLocalAppend(result.position);
      return result;
    });
  }

  readStream(streamId: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    return asyncIterableOf(() => streamPages(this.statements, streamId, options, this.pageLimits));
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    return asyncIterableOf(() => logPages(this.logReader, options, this.pageLimits));
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new CatchUpSubscription(
      {
        notifier: this.watch.notifier,
        head: () => settle(() => this.head()),
        readRange: (after, upTo, limits, filter) =>
          settle(() => {
            const page = this.logReader.read({
              direction: 'forwards',
              after: after ?? 0n,
              before: upTo + 1n,
              limits,
              filter,
            });
            return { events: page.rows.map(recordedEventFromRow), exhausted: page.exhausted };
          }),
      },
      options,
      this.pageLimits,
      (closed) => this.subscriptions.delete(closed),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  streamRevision(streamId: string): Promise<bigint | null> {
    return settle(() => {
      const stream = this.statements.selectStream.get(streamId);
      return stream === undefined || stream.erased !== 0n ? null : stream.last_revision;
    });
  }

  getStreamMetadata(streamId: string): Promise<StreamMetadata> {
    return settle(() => {
      const row = this.statements.selectMetadata.get(streamId);
      return row === undefined ? {} : toJsonRecord(fromJsonText(row.metadata));
    });
  }

  setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    return settle(() => {
      assertAllowedStreamMetadata(streamId, metadata);
      this.statements.upsertMetadata.run(streamId, toJsonText(metadata, 'stream metadata'));
    });
  }

  eraseStream(streamId: string, request: ErasureRequest): Promise<ErasureRecord> {
    return settle(() => {
      const { record, position } = this.eraseTransaction(streamId, request);
      this.database.pragma('wal_checkpoint(TRUNCATE)');
      this.watch.announceLocalAppend(position);
      return record;
    });
  }

  listErasures(streamId?: string): Promise<readonly ErasureRecord[]> {
    return settle(() => {
      const rows =
        streamId === undefined
          ? this.statements.selectAllErasures.all()
          : this.statements.selectStreamErasures.all(streamId);
      return rows.map((row) => ({
        streamId: row.stream_id,
        actor: row.actor,
        reason: row.reason,
        ...(row.tenant === null ? {} : { tenant: row.tenant }),
        erasedAt: row.erased_at,
        eventCount: Number(row.event_count),
        ...(row.head_hash === null ? {} : { headHash: row.head_hash }),
        ...(row.head_revision === null ? {} : { headRevision: row.head_revision }),
      }));
    });
  }

  /** A checkpoint store on the same database connection. */
  checkpointStore(): SqliteCheckpointStore {
    return new SqliteCheckpointStore(this.database, this.clock);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.watch.close();
    this.database.close();
  }

  private head(): bigint | null {
    return this.statements.selectHead.get()?.head ?? null;
  }

  private appendInTransaction(
    streamId: string,
    events: readonly PreparedEvent[],
    expected: ExpectedRevision,
    reviveErased: boolean,
  ): AppendResult {
    if (reviveErased && events.length > 0) this.statements.reviveStream.run(streamId);
    const stream = this.statements.selectStream.get(streamId);
    if (stream !== undefined && stream.erased !== 0n) throw new StreamErasedError(streamId);
    const current = stream?.last_revision ?? null;
    const first = events[0];
    const firstRecorded = first === undefined ? undefined : this.statements.selectLocation.get(first.id);
    if (firstRecorded !== undefined) {
      const run = this.statements.selectRun
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
    if (events.length === 0) return { nextExpectedRevision: current ?? -1n, position: this.head() ?? -1n };
    const createdAt = this.clock().toISOString();
    let revision = current ?? -1n;
    let position = 0n;
    for (const event of events) {
      revision += 1n;
      position = this.insertEvent(streamId, revision, event, createdAt);
    }
    this.statements.upsertStream.run(streamId, revision);
    return { nextExpectedRevision: revision, position };
  }

  private insertEvent(streamId: string, revision: bigint, event: PreparedEvent, createdAt: string): bigint {
    try {
      const result = this.statements.insertEvent.run(
        streamId,
        revision,
        event.id,
        event.type,
        event.data,
        event.metadata,
        createdAt,
      );
      return BigInt(result.lastInsertRowid);
    } catch (error) {
      if (isUniqueConstraintFailure(error) && this.statements.selectLocation.get(event.id) !== undefined) {
        throw new DuplicateEventIdError(streamId, event.id);
      }
      throw error;
    }
  }

  private eraseInTransaction(
    streamId: string,
    request: ErasureRequest,
  ): { readonly record: ErasureRecord; readonly position: bigint } {
    const stream = this.statements.selectStream.get(streamId);
    if (stream !== undefined && stream.erased !== 0n) throw new StreamErasedError(streamId);
    const lastRow = this.statements.selectStreamBackwards.get(streamId, MAX_SQLITE_INTEGER, 1);
    const head = erasureHeadOf(lastRow === undefined ? undefined : recordedEventFromRow(lastRow));
    const eventCount = Number(this.statements.deleteStreamEvents.run(streamId).changes);
    this.statements.markErased.run(streamId, stream?.last_revision ?? -1n);
    this.statements.deleteMetadata.run(streamId);
    const erasedAt = this.clock().toISOString();
    const inserted = this.statements.insertErasure.run(
      streamId,
      request.actor,
      request.reason,
      request.tenant ?? null,
      erasedAt,
      eventCount,
      head.headHash ?? null,
      head.headRevision ?? null,
    );
    const record: ErasureRecord = {
      streamId,
      actor: request.actor,
      reason: request.reason,
      ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
      erasedAt,
      eventCount,
      ...head,
    };
    // The erasure log's event: in the global log after every event of the stream, so that read
    // models in every process on this file learn of the erasure in order (reads show it only
    // to a filter with includeErasures).
    const position = this.insertEvent(
      ERASURE_LOG_STREAM,
      BigInt(inserted.lastInsertRowid) - 1n,
      {
        id: randomUUID(),
        type: ERASURE_EVENT_TYPE,
        data: toJsonText(erasureEventData(record), 'erasure record'),
        metadata: toJsonText(
          request.tenant === undefined ? {} : { tenant: request.tenant },
          'erasure metadata',
        ),
      },
      erasedAt,
    );
    return { record, position };
  }
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
