// The EventStoreDB adapter of the event-store port (DESIGN.md decision 3), on
// @eventstore/db-client 6.2.1. Revisions are the server's 0-based stream revisions and global
// positions its commit positions (see esdb-mapping.ts for why one number is exact and how resuming
// works). Conflicts become ConcurrencyError, a tombstoned stream StreamErasedError, a missing
// stream an empty read. `readAll` filters on the client; subscriptions filter on the server
// (stream prefixes, else event-type prefixes, else everything but system and Strata streams) and
// again on the client for the exact port filter.
//
// The streams Strata keeps for itself (`strata-erasures`, `strata-anchors`, checkpoints) are
// never shown by `readAll` or subscriptions.
//
// Erasure writes an audit record to `strata-erasures`, then tombstones the stream. The server
// keeps the tombstoned events in `$all` until a scavenge removes them (and never from the chunk
// still being written), so the adapter hides erased streams from `readAll` and from
// subscriptions: those erased before the read began, and, as the read passes an erasure record,
// that stream's later events. Physical removal needs a scavenge by an operator. `strata-erasures`
// is the port's erasure log: reads with `includeErasures` show its records.
//
// Differences from the SQLite adapter (declared to the contract suite): an event id is unique
// only within the retries of one append, as on the server; a reused id elsewhere is written
// again, except that one batch may not name an id twice.
import {
  EventStoreDBClient,
  StreamDeletedError,
  WrongExpectedVersionError,
  MaxAppendSizeExceededError,
  jsonEvent,
  START,
  END,
  type JSONEventData,
  type JSONType,
  type Position,
} from '@eventstore/db-client';
import {
  AppendTooLargeError,
  assertAllowedStreamMetadata,
  ConcurrencyError,
  StreamErasedError,
  matchesEventFilter,
  assertErasureHead,
  erasureHeadOf,
  type AppendOptions,
  type AppendResult,
  type ErasureRecord,
  type ErasureRequest,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type PageLimits,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamMetadata,
  type SubscribeOptions,
  type Subscription,
} from '../port';
import { assertDistinctIds, assertExpectation, recordedTimeOf } from '../shared/append-rules';
import { toJsonText } from '../shared/json-values';
import { pageLimitsOf } from '../shared/page-limits';
import { ErasureRecords, recordErasure } from './esdb-erasures';
import {
  GIVEN_TIME_KEY,
  isVisibleInAll,
  noteErasure,
  toEsdbPosition,
  toExpectedRevision,
  toRecordedEvent,
} from './esdb-mapping';
import { readAllPaged, readStreamPaged, streamHead } from './esdb-reads';
import { DEFAULT_CHECKPOINT_INTERVAL_MULTIPLIER, serverFilter } from './esdb-server-filter';
import { appendInParts } from './esdb-split-append';
import { EsdbSubscription } from './esdb-subscription';

export interface EsdbEventStoreOptions {
  /** The clock of erasure records. */
  readonly clock?: () => Date;
  /** Events per read request and per page a subscription takes. 512 by default. */
  readonly pageSize?: number;
  /** The byte limit of those pages (see `PageLimits`). 1 MiB by default. */
  readonly pageBytes?: number;
  /** Dispose the client when the store closes (true for `fromConnectionString`). */
  readonly disposeClientOnClose?: boolean;
  /**
   * A subscription's checkpoints come every this many times 32 events the server passes over
   * (`DEFAULT_CHECKPOINT_INTERVAL_MULTIPLIER`, every 1,024 events, by default).
   */
  readonly checkpointIntervalMultiplier?: number;
}

/**
 * Events the client's subscription stream converts ahead of the adapter taking them (its own
 * buffer; gRPC keeps a few more messages below it before flow control holds the server back).
 */
const CLIENT_READ_AHEAD = 1;

/** Appends answer at most this position; anything above is the server saying "no position". */
const LARGEST_POSITION = 2n ** 63n - 1n;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toEventData(event: EventToAppend): JSONEventData {
  if (!UUID_PATTERN.test(event.id))
    throw new TypeError(`EventStoreDB event ids are UUIDs, got '${event.id}'`);
  toJsonText(event.data, `data of event ${event.id}`);
  if (event.metadata !== undefined) toJsonText(event.metadata, `metadata of event ${event.id}`);
  if (event.metadata !== undefined && GIVEN_TIME_KEY in event.metadata) {
    throw new TypeError(`metadata of event ${event.id} may not use the adapter's key ${GIVEN_TIME_KEY}`);
  }
  const metadata =
    event.createdAt === undefined
      ? event.metadata
      : { ...event.metadata, [GIVEN_TIME_KEY]: recordedTimeOf(event, event.createdAt) };
  return jsonEvent({
    id: event.id,
    type: event.type,
    data: event.data as JSONType,
    ...(metadata === undefined ? {} : { metadata: { ...metadata } }),
  });
}

export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<EsdbSubscription>();
  private readonly clock: () => Date;
  private readonly pageLimits: PageLimits;
  private readonly erasures: ErasureRecords;
  /** The node's maximum append size, once an append was refused for it. */
  private knownMaxAppendBytes: number | undefined;

  /** A store on its own client, e.g. `esdb://localhost:2113?tls=false`; `close()` disposes it. */
  static fromConnectionString(connectionString: string, options: EsdbEventStoreOptions = {}): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString), {
      disposeClientOnClose: true,
      ...options,
    });
  }

  constructor(
    readonly client: EventStoreDBClient,
    private readonly options: EsdbEventStoreOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.pageLimits = pageLimitsOf({ maxCount: options.pageSize, maxBytes: options.pageBytes }, 512);
    this.erasures = new ErasureRecords(client);
  }

  async appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    assertDistinctIds(
      streamId,
      events.map((event) => event.id),
    );
    const proposed = events.map(toEventData);
    if (proposed.length === 0) return this.appendNothing(streamId, expected);
    if (options.splitWhenTooLarge === true && this.knownMaxAppendBytes !== undefined) {
      const maxAppendBytes = this.knownMaxAppendBytes;
      return appendInParts(streamId, proposed, maxAppendBytes, expected, (part, expectation) =>
        this.appendOnce(streamId, part, expectation),
      );
    }
    try {
      return await this.appendOnce(streamId, proposed, expected);
    } catch (error) {
      if (!(error instanceof AppendTooLargeError)) throw error;
      this.knownMaxAppendBytes = error.maxAppendBytes;
      if (options.splitWhenTooLarge !== true) throw error;
      return appendInParts(streamId, proposed, error.maxAppendBytes, expected, (part, expectation) =>
        this.appendOnce(streamId, part, expectation),
      );
    }
  }

  private async appendOnce(
    streamId: string,
    proposed: readonly JSONEventData[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(streamId, [...proposed], {
        expectedRevision: toExpectedRevision(expected),
      });
      const commit = result.position?.commit;
      const position =
        commit === undefined || commit > LARGEST_POSITION
          ? await this.positionAtRevision(streamId, result.nextExpectedRevision)
          : commit;
      return { nextExpectedRevision: result.nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = typeof error.actualVersion === 'bigint' ? error.actualVersion : null;
        throw new ConcurrencyError(streamId, expected, actual);
      }
      if (error instanceof StreamDeletedError) throw new StreamErasedError(streamId);
      if (error instanceof MaxAppendSizeExceededError)
        throw new AppendTooLargeError(streamId, error.maxAppendSize);
      throw error;
    }
  }

  readStream(streamId: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    return readStreamPaged(this.client, streamId, options, this.pageLimits);
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    const { client, pageLimits } = this;
    const erasedStreams = () => this.erasedStreams();
    return (async function* () {
      yield* readAllPaged(client, options, await erasedStreams(), pageLimits);
    })();
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const from = options.fromPosition ?? 'start';
    const checkpointInterval =
      this.options.checkpointIntervalMultiplier ?? DEFAULT_CHECKPOINT_INTERVAL_MULTIPLIER;
    const subscription = new EsdbSubscription(
      async (onCheckpoint) => {
        const erased = await this.erasedStreams();
        // a checkpoint inside a legacy transaction (commit and prepare apart) has no port position
        const checkpointReached = (_subscription: unknown, position: Position) => {
          if (position.commit === position.prepare) onCheckpoint(position.commit);
        };
        const source = this.client.subscribeToAll(
          {
            fromPosition: from === 'start' ? START : from === 'end' ? END : toEsdbPosition(from),
            filter: serverFilter(options.filter, { checkpointInterval, checkpointReached }),
          },
          { highWaterMark: CLIENT_READ_AHEAD },
        );
        const accept = (resolved: Parameters<typeof isVisibleInAll>[0]) => {
          noteErasure(resolved, erased);
          if (!isVisibleInAll(resolved, erased)) return undefined;
          const event = toRecordedEvent(resolved);
          return event !== undefined && matchesEventFilter(event, options.filter) ? event : undefined;
        };
        return { source, accept };
      },
      typeof from === 'bigint' ? from : null,
      (closed) => this.subscriptions.delete(closed),
      this.pageLimits,
      options.gate,
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async streamRevision(streamId: string): Promise<bigint | null> {
    const head = await streamHead(this.client, streamId);
    return head.kind === 'found' ? head.last.revision : null;
  }

  async getStreamMetadata(streamId: string): Promise<StreamMetadata> {
    try {
      const { metadata } = await this.client.getStreamMetadata(streamId);
      return { ...(metadata ?? {}) };
    } catch (error) {
      if (error instanceof StreamDeletedError) return {};
      throw error;
    }
  }

  async setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    assertAllowedStreamMetadata(streamId, metadata);
    toJsonText(metadata, `metadata of stream ${streamId}`);
    try {
      await this.client.setStreamMetadata(streamId, { ...metadata });
    } catch (error) {
      if (error instanceof StreamDeletedError) throw new StreamErasedError(streamId);
      throw error;
    }
  }

  async eraseStream(streamId: string, request: ErasureRequest): Promise<ErasureRecord> {
    const head = await streamHead(this.client, streamId);
    if (head.kind === 'erased') throw new StreamErasedError(streamId);
    assertErasureHead(streamId, request, head.kind === 'found' ? head.last.revision : null);
    const record: ErasureRecord = {
      streamId,
      actor: request.actor,
      reason: request.reason,
      ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
      erasedAt: request.erasedAt ?? this.clock().toISOString(),
      eventCount: head.kind === 'found' ? Number(head.last.revision + 1n) : 0,
      ...erasureHeadOf(head.kind === 'found' ? head.last : undefined),
    };
    await recordErasure(this.client, record);
    try {
      await this.client.tombstoneStream(streamId);
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
    }
    return record;
  }

  async listErasures(streamId?: string): Promise<readonly ErasureRecord[]> {
    const records = await this.erasures.all();
    return streamId === undefined ? records : records.filter((record) => record.streamId === streamId);
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    if (this.options.disposeClientOnClose === true) await this.client.dispose();
  }

  private async erasedStreams(): Promise<Set<string>> {
    return this.erasures.streamIds();
  }

  /** An append with no events writes nothing; it still checks the expectation. */
  private async appendNothing(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const head = await streamHead(this.client, streamId);
    if (head.kind === 'erased') throw new StreamErasedError(streamId);
    const current = head.kind === 'found' ? head.last.revision : null;
    assertExpectation(streamId, expected, current);
    return {
      nextExpectedRevision: current ?? -1n,
      position: head.kind === 'found' ? head.last.position : 0n,
    };
  }

  /** The position of one event, for servers that answer an (idempotent) append without one. */
  private async positionAtRevision(streamId: string, revision: bigint): Promise<bigint> {
    for await (const event of readStreamPaged(
      this.client,
      streamId,
      { fromRevision: revision, maxCount: 1 },
      this.pageLimits,
    )) {
      if (event.revision === revision) return event.position;
    }
    throw new Error(`Append to ${streamId} succeeded, but revision ${revision} cannot be read back`);
  }
}
