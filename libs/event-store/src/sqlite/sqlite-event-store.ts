// The embedded SQLite adapter of the event-store port (the default store, DESIGN.md decision 3).
// Reads run on this thread's own connection (WAL readers never wait for a writer); every write
// goes to the file's writer (writer/sqlite-writer.ts): one per file and process, on a thread of
// its own, committing the writes that arrive together in one transaction, each append in a
// savepoint with its own expectation and idempotency checks, and answering only after the commit
// (flushed to disk with the default `synchronous = FULL`). Writers in other processes queue on the
// database's write lock, so revisions and global positions are assigned in commit order and
// nothing is lost or duplicated. Event ids are unique across the store.
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import {
  assertAllowedStreamMetadata,
  type AppendOptions,
  type EncodedAppends,
  type EncodedEvent,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type LazyEventReads,
  type EventAndStreamEnd,
  type StreamEndReads,
  type StreamHead,
  type WrittenHeadReads,
  type ErasureRecord,
  type ErasureRequest,
  type PageLimits,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamMetadata,
  type SubscribeOptions,
  type Subscription,
} from '../port';
import { assertDistinctIds, asyncIterableOf, recordedTimeOf, settle } from '../shared/append-rules';
import { deepFreeze, fromJsonText, toJsonRecord, toJsonText, toStoredJson } from '../shared/json-values';
import { isSplicedJson } from '../shared/known-encodings';
import { storedTextLength } from '../shared/stored-text';
import { pageLimitsOf } from '../shared/page-limits';
import { CatchUpSubscription } from '../subscription/catch-up-subscription';
import { SqliteAppendWatch } from './sqlite-append-watch';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store';
import { SharedEventData, type SharedEventDataBounds } from './shared-event-data';
import {
  DEFAULT_SQLITE_FILENAME,
  databaseKey,
  openStrataDatabase,
  type SqliteDatabaseOptions,
} from './sqlite-database';
import { logPages, streamPages } from './sqlite-event-reads';
import { OwnWrites } from './own-writes';
import type { RecentAppends, RecentAppendsBounds } from './recent-appends';
import {
  LogRangeReader,
  recordedEventFromHeader,
  recordedEventFromRow,
  type EventHeaderRow,
} from './sqlite-event-rows';
import { SqliteEventStatements } from './sqlite-event-statements';
import {
  sqliteEventWrites,
  type AppendWritten,
  type ErasureWritten,
  type PreparedEvent,
} from './sqlite-event-writes';
import type { SqliteSynchronous } from './writer/sqlite-writer-connection';
import { openSqliteWriter, type SqliteWriter } from './writer/sqlite-writer';

export interface SqliteEventStoreOptions extends SqliteDatabaseOptions {
  /** How often a waiting live subscription looks for other processes' appends. 200 ms by default. */
  readonly pollIntervalMs?: number;
  /** Events fetched per page by reads and subscriptions. 500 by default. */
  readonly readBatchSize?: number;
  /** The byte limit of those pages (see `PageLimits`). 1 MiB by default. */
  readonly readPageBytes?: number;
  /** The store's clock for `createdAt` and erasure records; the system clock by default. */
  readonly clock?: () => Date;
  /** How commits reach the disk (`STRATA_SQLITE_SYNCHRONOUS`); `full` by default. */
  readonly synchronous?: SqliteSynchronous;
  /** The parsed data its readers share (shared-event-data.ts); `DEFAULT_SHARED_EVENT_DATA` by default. */
  readonly sharedEventData?: SharedEventDataBounds;
  /** The rows kept for its subscriptions (recent-appends.ts); `DEFAULT_RECENT_APPENDS` by default. */
  readonly recentAppends?: RecentAppendsBounds;
}

/** The bytes a write of these events stores (it bounds the batch the write joins). */
function preparedBytes(events: readonly PreparedEvent[]): number {
  return events.reduce(
    (total, event) => total + storedTextLength(event.data) + event.metadata.length + 128,
    0,
  );
}

export class SqliteEventStore
  implements EventStore, EncodedAppends, LazyEventReads, StreamEndReads, WrittenHeadReads
{
  /**
   * This thread's connection to the database, for reads (and for tests to inspect). On a file it
   * is `query_only`: every write goes through `writer`.
   */
  readonly database: Database.Database;
  /** The file's writer (shared with checkpoint stores, anchor logs and projection storage on it). */
  readonly writer: SqliteWriter;
  private readonly statements: SqliteEventStatements;
  private readonly logReader: LogRangeReader;
  private readonly watch: SqliteAppendWatch;
  private readonly subscriptions = new Set<CatchUpSubscription>();
  private readonly clock: () => Date;
  private readonly pageLimits: PageLimits;
  /** Event data parsed by one reader, for the others (the write side, read models, streams). */
  readonly sharedData: SharedEventData;
  /** The rows this store wrote last, for its subscriptions (recent-appends.ts). */
  readonly recentAppends: RecentAppends;
  /** What it remembers of its own writes (own-writes.ts). */
  private readonly ownWrites: OwnWrites;
  private closed = false;

  constructor(options: SqliteEventStoreOptions = {}) {
    this.database = openStrataDatabase(options);
    this.writer = openSqliteWriter(
      this.database,
      databaseKey(options.filename ?? DEFAULT_SQLITE_FILENAME),
      options,
    );
    this.statements = new SqliteEventStatements(this.database);
    this.logReader = new LogRangeReader(this.database);
    this.clock = options.clock ?? (() => new Date());
    this.sharedData = new SharedEventData(options.sharedEventData);
    this.ownWrites = new OwnWrites(this.sharedData, options.recentAppends);
    this.recentAppends = this.ownWrites.recentAppends;
    this.pageLimits = pageLimitsOf({ maxCount: options.readBatchSize, maxBytes: options.readPageBytes }, 500);
    this.watch = new SqliteAppendWatch(
      databaseKey(options.filename ?? DEFAULT_SQLITE_FILENAME),
      () => this.head(),
      options.pollIntervalMs ?? 200,
    );
  }

  async appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const encoded = await settle(() =>
      events.map((event) => ({
        id: event.id,
        type: event.type,
        data: toStoredJson(event.data, `data of event ${event.id}`),
        metadata: toJsonText(event.metadata ?? {}, `metadata of event ${event.id}`),
        ...(event.createdAt === undefined ? {} : { createdAt: event.createdAt }),
      })),
    );
    return this.appendWith(
      streamId,
      encoded,
      options,
      events.map((event) => (isSplicedJson(event.data) ? deepFreeze(event.data) : undefined)),
    );
  }

  /** Writes events already encoded as JSON text (EncodedAppends): nothing is serialised here. */
  appendEncoded(
    streamId: string,
    events: readonly EncodedEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    return this.appendWith(streamId, events, options, []);
  }

  /**
   * Writes encoded events; `values[i]`, when given, is the data of event i as its text parses
   * (frozen), which the store's readers are then given instead of parsing the text again.
   */
  private async appendWith(
    streamId: string,
    events: readonly EncodedEvent[],
    options: AppendOptions,
    values: readonly unknown[],
  ): Promise<AppendResult> {
    const createdAt = this.clock().toISOString();
    await settle(() => {
      assertDistinctIds(
        streamId,
        events.map((event) => event.id),
      );
      for (const event of events) recordedTimeOf(event, createdAt);
    });
    const { written, ...result } = await this.writer.write<AppendWritten>(
      sqliteEventWrites.appendEvents,
      {
        streamId,
        events,
        expected: options.expectedRevision ?? 'any',
        reviveErased: options.reviveErased === true,
        createdAt,
        ...(options.expectedPosition === undefined ? {} : { expectedPosition: options.expectedPosition }),
      },
      preparedBytes(events),
    );
    if (written === true) this.ownWrites.remember(streamId, events, result, createdAt, values);
    if (events.length > 0) this.watch.announceLocalAppend(result.position);
    return result;
  }

  readStream(streamId: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    return asyncIterableOf(() =>
      streamPages(
        this.statements,
        streamId,
        options,
        this.pageLimits,
        options.uncached === true ? undefined : this.sharedData,
      ),
    );
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    return asyncIterableOf(() =>
      logPages(
        this.logReader,
        options,
        this.pageLimits,
        options.uncached === true ? undefined : this.sharedData,
      ),
    );
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new CatchUpSubscription(
      {
        notifier: this.watch.notifier,
        head: () => settle(() => this.head()),
        readRange: (after, upTo, limits, filter) =>
          settle(() => {
            const page =
              this.recentAppends.range(after, upTo, limits, filter) ??
              this.logReader.read({
                direction: 'forwards',
                after: after ?? 0n,
                before: upTo + 1n,
                limits,
                filter,
              });
            return {
              events: page.rows.map((row) => recordedEventFromRow(row, this.sharedData)),
              exhausted: page.exhausted,
            };
          }),
      },
      options,
      this.pageLimits,
      (closed) => this.subscriptions.delete(closed),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  readRecentEvents(streamId: string, fromRevision: bigint): AsyncIterable<RecordedEvent> {
    return asyncIterableOf(() =>
      streamPages(
        this.statements,
        streamId,
        { fromRevision },
        this.pageLimits,
        this.sharedData,
        this.recentAppends,
      ),
    );
  }

  readEventAt(streamId: string, revision: bigint): Promise<RecordedEvent | undefined> {
    return settle(() => {
      const header = this.statements.selectEventHeader.get(streamId, revision);
      return header === undefined ? undefined : this.eventOfHeader(streamId, header);
    });
  }

  readEventAndEnd(streamId: string, revision: bigint): Promise<EventAndStreamEnd> {
    return settle(() => {
      const row = this.statements.selectEventHeaderAndEnd.get(streamId, revision);
      if (row === undefined || row.erased !== 0n) return { event: undefined, lastRevision: undefined };
      return { event: this.eventOfHeader(streamId, row), lastRevision: row.last_revision };
    });
  }

  /** The event of a header row, its data and metadata loaded when first read (LazyEventReads). */
  private eventOfHeader(streamId: string, header: EventHeaderRow): RecordedEvent {
    const { global_position: position, event_id: eventId } = header;
    return recordedEventFromHeader(
      header,
      {
        data: () => this.statements.selectEventData.get(position, eventId)?.data,
        metadataAndTime: () => {
          const written = this.ownWrites.headAt(streamId, position, eventId);
          if (written === undefined) return this.statements.selectEventMetadata.get(position, eventId);
          return { metadata: written.metadata, created_at: written.createdAt };
        },
      },
      this.sharedData,
    );
  }

  writtenHeadAt(streamId: string, head: StreamHead): RecordedEvent | undefined {
    const written = this.ownWrites.headAt(streamId, head.position, head.id);
    if (written === undefined || written.revision !== head.revision) return undefined;
    const { position, eventId } = written;
    return recordedEventFromHeader(
      {
        global_position: position,
        stream_id: streamId,
        stream_revision: written.revision,
        event_id: eventId,
        type: written.type,
      },
      {
        data: () => this.statements.selectEventData.get(position, eventId)?.data,
        metadataAndTime: () => ({ metadata: written.metadata, created_at: written.createdAt }),
      },
      this.sharedData,
    );
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

  async setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    const text = await settle(() => {
      assertAllowedStreamMetadata(streamId, metadata);
      return toJsonText(metadata, 'stream metadata');
    });
    await this.writer.write(sqliteEventWrites.setStreamMetadata, { streamId, metadata: text }, text.length);
  }

  async eraseStream(streamId: string, request: ErasureRequest): Promise<ErasureRecord> {
    const { record, position } = await this.writer.write<ErasureWritten>(sqliteEventWrites.eraseStream, {
      streamId,
      request,
      erasedAt: request.erasedAt ?? this.clock().toISOString(),
      eventId: randomUUID(),
    });
    // the erased content leaves this process's memory too
    this.ownWrites.forgetStream(streamId);
    this.watch.announceLocalAppend(position);
    return record;
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

  /** A checkpoint store on the same database (reads on this connection, writes through the writer). */
  checkpointStore(): SqliteCheckpointStore {
    return new SqliteCheckpointStore(this.database, this.writer, this.clock);
  }

  /** Runs a pragma on the writer's connection (tests, maintenance): its simple value. */
  writerPragma(pragma: string): Promise<unknown> {
    return this.writer.write(sqliteEventWrites.writerPragma, { pragma });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.watch.close();
    await this.writer.close();
    this.database.close();
    this.ownWrites.clear();
  }

  private head(): bigint | null {
    return this.statements.selectHead.get()?.head ?? null;
  }
}
