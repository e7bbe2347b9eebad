// The in-memory adapter of the event-store port, for unit tests: the same semantics as the
// durable adapters (checked by the shared contract suite), nothing kept across processes.
import { randomUUID } from 'node:crypto';
import {
  assertAllowedStreamMetadata,
  DuplicateEventIdError,
  StreamErasedError,
  matchesEventFilter,
  ERASURE_EVENT_TYPE,
  ERASURE_LOG_STREAM,
  erasureEventData,
  assertErasureHead,
  erasureHeadOf,
  type AppendOptions,
  type AppendResult,
  type EventFilter,
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
  inReadRange,
  recordedTimeOf,
  resolveRepeatedAppend,
  settle,
} from '../shared/append-rules';
import { deepFreeze, fromJsonText, toJsonRecord, toJsonText } from '../shared/json-values';
import { PageFill, pageLimitsOf } from '../shared/page-limits';
import { AppendNotifier } from '../subscription/append-notifier';
import { CatchUpSubscription, type SubscriptionSource } from '../subscription/catch-up-subscription';

export interface InMemoryEventStoreOptions {
  /** The store's clock for `createdAt`; the system clock by default. */
  readonly clock?: () => Date;
  /** Events per page of a subscription. 256 by default. */
  readonly pageSize?: number;
  /** The byte limit of those pages (see `PageLimits`). 1 MiB by default. */
  readonly pageBytes?: number;
}

interface StreamState {
  readonly events: RecordedEvent[];
  erased: boolean;
}

export class InMemoryEventStore implements EventStore {
  private readonly log: RecordedEvent[] = [];
  private readonly streams = new Map<string, StreamState>();
  private readonly eventsById = new Map<string, RecordedEvent>();
  private readonly metadataByStream = new Map<string, StreamMetadata>();
  private readonly erasures: ErasureRecord[] = [];
  private readonly subscriptions = new Set<CatchUpSubscription>();
  /** The size each page counts for an event: its data and metadata as JSON text. */
  private readonly eventBytes = new WeakMap<RecordedEvent, number>();
  private readonly notifier = new AppendNotifier();
  private readonly clock: () => Date;
  private readonly pageLimits: PageLimits;
  private nextPosition = 1n;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.clock = options.clock ?? (() => new Date());
    this.pageLimits = pageLimitsOf({ maxCount: options.pageSize, maxBytes: options.pageBytes }, 256);
  }

  appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    return settle(() => {
      if (options.reviveErased === true && this.streams.get(streamId)?.erased === true && events.length > 0) {
        this.streams.delete(streamId);
      }
      return this.appendNow(streamId, events, options.expectedRevision ?? 'any');
    });
  }

  readStream(streamId: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    return asyncIterableOf(() => this.streamEvents(streamId, options));
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    return asyncIterableOf(() => this.allEvents(options));
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new CatchUpSubscription(
      this.subscriptionSource(),
      options,
      this.pageLimits,
      (closed) => this.subscriptions.delete(closed),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  streamRevision(streamId: string): Promise<bigint | null> {
    return Promise.resolve(this.lastRevision(streamId));
  }

  getStreamMetadata(streamId: string): Promise<StreamMetadata> {
    return Promise.resolve(this.metadataByStream.get(streamId) ?? {});
  }

  setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    return settle(() => {
      assertAllowedStreamMetadata(streamId, metadata);
      this.metadataByStream.set(streamId, toJsonRecord(this.frozenJson(metadata, 'stream metadata')));
    });
  }

  eraseStream(streamId: string, request: ErasureRequest): Promise<ErasureRecord> {
    return settle(() => this.eraseNow(streamId, request));
  }

  listErasures(streamId?: string): Promise<readonly ErasureRecord[]> {
    return Promise.resolve(
      this.erasures.filter((record) => streamId === undefined || record.streamId === streamId),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
  }

  private streamEvents(streamId: string, options: ReadStreamOptions): readonly RecordedEvent[] {
    const events = this.streams.get(streamId)?.events ?? [];
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    const inRange = events.filter((event) => inReadRange(event.revision, from, backwards));
    const selected = backwards ? inRange.reverse() : inRange;
    return selected.slice(0, options.maxCount ?? selected.length);
  }

  private *allEvents(options: ReadAllOptions): Generator<RecordedEvent> {
    const backwards = options.direction === 'backwards';
    const from = options.fromPosition ?? (backwards ? 'end' : 'start');
    const ordered = backwards ? [...this.log].reverse() : this.log;
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    for (const event of ordered) {
      if (remaining <= 0) return;
      if (!inReadRange(event.position, from, backwards) || !matchesEventFilter(event, options.filter))
        continue;
      remaining -= 1;
      yield event;
    }
  }

  private eraseNow(streamId: string, request: ErasureRequest): ErasureRecord {
    const stream = this.streams.get(streamId) ?? { events: [], erased: false };
    if (stream.erased) throw new StreamErasedError(streamId);
    assertErasureHead(streamId, request, stream.events[stream.events.length - 1]?.revision ?? null);
    const erasedPositions = new Set(stream.events.map((event) => event.position));
    const record: ErasureRecord = {
      streamId,
      actor: request.actor,
      reason: request.reason,
      ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
      erasedAt: request.erasedAt ?? this.clock().toISOString(),
      eventCount: stream.events.length,
      ...erasureHeadOf(stream.events[stream.events.length - 1]),
    };
    for (const event of stream.events) this.eventsById.delete(event.id);
    let kept = 0;
    for (const event of this.log) if (!erasedPositions.has(event.position)) this.log[kept++] = event;
    this.log.length = kept;
    this.streams.set(streamId, { events: [], erased: true });
    this.metadataByStream.delete(streamId);
    this.erasures.push(record);
    this.appendErasureEvent(record);
    return record;
  }

  /** The erasure log's event, after every event of the stream (never in a session stream). */
  private appendErasureEvent(record: ErasureRecord): void {
    const data = deepFreeze(erasureEventData(record));
    const metadata = deepFreeze(record.tenant === undefined ? {} : { tenant: record.tenant });
    const recorded: RecordedEvent = Object.freeze({
      streamId: ERASURE_LOG_STREAM,
      id: randomUUID(),
      type: ERASURE_EVENT_TYPE,
      data,
      metadata,
      revision: BigInt(this.erasures.length - 1),
      position: this.nextPosition,
      createdAt: record.erasedAt,
    });
    this.eventBytes.set(recorded, JSON.stringify(data).length + JSON.stringify(metadata).length);
    this.nextPosition += 1n;
    this.log.push(recorded);
    this.notifier.notify();
  }

  private appendNow(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
  ): AppendResult {
    const stream = this.streams.get(streamId);
    if (stream?.erased === true) throw new StreamErasedError(streamId);
    const current = this.lastRevision(streamId);
    const eventIds = events.map((event) => event.id);
    assertDistinctIds(streamId, eventIds);
    const firstRecorded = eventIds[0] === undefined ? undefined : this.eventsById.get(eventIds[0]);
    if (firstRecorded !== undefined) {
      const run = (this.streams.get(firstRecorded.streamId)?.events ?? []).slice(
        Number(firstRecorded.revision),
        Number(firstRecorded.revision) + events.length,
      );
      return resolveRepeatedAppend(streamId, eventIds, expected, current, firstRecorded, run);
    }
    assertExpectation(streamId, expected, current);
    const reused = eventIds.find((id) => this.eventsById.has(id));
    if (reused !== undefined) throw new DuplicateEventIdError(streamId, reused);
    const createdAt = this.clock().toISOString();
    const prepared = events.map((event) => {
      const dataText = toJsonText(event.data, `data of event ${event.id}`);
      const metadataText = toJsonText(event.metadata ?? {}, `metadata of event ${event.id}`);
      return {
        id: event.id,
        type: event.type,
        data: deepFreeze(fromJsonText(dataText)),
        metadata: toJsonRecord(deepFreeze(fromJsonText(metadataText))),
        createdAt: recordedTimeOf(event, createdAt),
        bytes: dataText.length + metadataText.length,
      };
    });
    const target = stream ?? { events: [], erased: false };
    let revision = current ?? -1n;
    for (const { bytes, ...event } of prepared) {
      revision += 1n;
      const recorded: RecordedEvent = Object.freeze({
        streamId,
        ...event,
        revision,
        position: this.nextPosition,
      });
      this.eventBytes.set(recorded, bytes);
      this.nextPosition += 1n;
      target.events.push(recorded);
      this.log.push(recorded);
      this.eventsById.set(recorded.id, recorded);
    }
    this.streams.set(streamId, target);
    if (prepared.length > 0) this.notifier.notify();
    return { nextExpectedRevision: revision, position: this.log[this.log.length - 1]?.position ?? -1n };
  }

  private lastRevision(streamId: string): bigint | null {
    const events = this.streams.get(streamId)?.events ?? [];
    return events[events.length - 1]?.revision ?? null;
  }

  private frozenJson(value: unknown, what: string): unknown {
    return deepFreeze(fromJsonText(toJsonText(value, what)));
  }

  private subscriptionSource(): SubscriptionSource {
    return {
      notifier: this.notifier,
      head: () => Promise.resolve(this.log[this.log.length - 1]?.position ?? null),
      readRange: (
        after: bigint | null,
        upTo: bigint,
        limits: PageLimits,
        filter: EventFilter | undefined,
      ) => {
        const events: RecordedEvent[] = [];
        const fill = new PageFill(limits);
        for (let index = this.firstIndexAfter(after); index < this.log.length; index += 1) {
          const event = this.log[index]!;
          if (event.position > upTo) break;
          if (!matchesEventFilter(event, filter)) continue;
          events.push(event);
          if (fill.add(this.eventBytes.get(event) ?? 0)) return Promise.resolve({ events, exhausted: false });
        }
        return Promise.resolve({ events, exhausted: true });
      },
    };
  }

  /** Index of the first logged event with a position above `after` (binary search). */
  private firstIndexAfter(after: bigint | null): number {
    if (after === null) return 0;
    let low = 0;
    let high = this.log.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.log[middle]!.position <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
