// The event-store port (DESIGN.md decision 3): the one contract that the SQLite, EventStoreDB
// and in-memory adapters honour, checked for all of them by the shared contract suite. Its
// errors are in store-errors.ts.
import { ConcurrencyError, ReservedStreamMetadataError } from './store-errors';

/**
 * What the writer believes about the stream before appending:
 * - `'any'`: no check;
 * - `'no_stream'`: the stream must not exist yet;
 * - `'stream_exists'`: the stream must hold at least one event;
 * - a bigint: the 0-based revision of the stream's last event must equal it.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

/** An event proposed for appending. Data and metadata are JSON (never bigints). */
export interface EventToAppend {
  /** Caller-supplied UUID (time-ordered v7 recommended); makes retried appends idempotent. */
  readonly id: string;
  readonly type: string;
  /** JSON-serialisable. */
  readonly data: unknown;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The time to record the event at (ISO 8601 in UTC, as `Date.toISOString` writes it), when the
   * caller fixes it, as the integrity seal does with the time it seals; the store's clock
   * otherwise. The store reports it as the event's `createdAt`.
   */
  readonly createdAt?: string;
}

/** An event as the store recorded it. */
export interface RecordedEvent {
  readonly streamId: string;
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** 0-based position in its stream. */
  readonly revision: bigint;
  /** Global position, strictly increasing in commit order. */
  readonly position: bigint;
  /** ISO timestamp: the one the event was appended with, else given by the store's clock. */
  readonly createdAt: string;
}

export interface AppendOptions {
  readonly expectedRevision?: ExpectedRevision;
  /**
   * Write to a stream that was erased as to a new one (an explicit re-import). Its erasure
   * record stays. EventStoreDB cannot (a tombstone is final): it throws `StreamErasedError`.
   */
  readonly reviveErased?: boolean;
  /**
   * When the store refuses the events as too large for one append (EventStoreDB's maximum append
   * size), write them in parts instead, in order, each at the revision the previous one left.
   * A reader may then see the first parts before the last, and a failure between two parts
   * leaves the first ones stored: only for writes that are idempotent and complete themselves
   * when done again (imports, whose event ids derive from the file). An event larger than the
   * bound by itself is still refused, with nothing written. Stores without such a bound ignore it.
   */
  readonly splitWhenTooLarge?: boolean;
  /**
   * With a bigint `expectedRevision`: the global position the stream's event at that revision
   * must have. When the stream is erased, is at another revision or holds another event there,
   * the append is refused with a `ConcurrencyError` (before any idempotency check), so a writer
   * that did not read the stream before appending, trusting its memory of its own last append
   * (`WrittenHeadReads`), learns that it moved. Only stores with `WrittenHeadReads` check it.
   */
  readonly expectedPosition?: bigint;
}

export interface AppendResult {
  /** The revision of the stream's last event after the append. */
  readonly nextExpectedRevision: bigint;
  /** The global position of the last event of the append. */
  readonly position: bigint;
}

/**
 * `fromRevision` is inclusive (`'start'` forwards, `'end'` backwards by default); `maxCount`
 * limits the events returned.
 */
export interface ReadStreamOptions {
  readonly direction?: 'forwards' | 'backwards';
  readonly fromRevision?: bigint | 'start' | 'end';
  readonly maxCount?: number;
  /**
   * Read what the store holds now, byte for byte: never data another reader parsed earlier and
   * the adapter shares (SQLite). For verification, which must see a row changed behind the
   * engine's back; adapters that share nothing ignore it.
   */
  readonly uncached?: boolean;
}

/**
 * `fromPosition` is inclusive for reads (`'start'` forwards, `'end'` backwards by default);
 * `maxCount` limits the events returned after filtering.
 */
export interface ReadAllOptions {
  readonly direction?: 'forwards' | 'backwards';
  readonly fromPosition?: bigint | 'start' | 'end';
  readonly maxCount?: number;
  readonly filter?: EventFilter;
  /** As `ReadStreamOptions.uncached`. */
  readonly uncached?: boolean;
}

/**
 * An event matches when it passes every criterion given (a missing or empty list passes
 * everything). Adapters apply the filter where they read, so that events it refuses are not
 * handed to the caller (SQLite: in the query, the tenant through an index; EventStoreDB: on each
 * event as the client receives it, before it is buffered).
 */
export interface EventFilter {
  /** Exact types, or prefixes ending in `'*'` (`'compaction.*'`). */
  readonly eventTypes?: readonly string[];
  readonly streamPrefixes?: readonly string[];
  /** Only the events of this tenant, as `eventTenantOf` names it. */
  readonly tenant?: string;
  /**
   * Also the erasure log's records (`ERASURE_LOG_STREAM`, type `ERASURE_EVENT_TYPE`, one per
   * erasure, in position order with everything else), whatever `eventTypes` and `streamPrefixes`
   * say; `tenant` still applies. No read or subscription shows them otherwise. Read models use
   * them to forget an erased stream, in every process on the store.
   */
  readonly includeErasures?: boolean;
}

/**
 * Lets a subscriber choose when its subscription reads more from the store. `enter()` is awaited
 * before each page is read (on EventStoreDB: before more events are let in from the server), and
 * `leave()` is called once every event of that page has been handed out and the subscriber asked
 * for the next message, or when the subscription closes while inside. A subscriber uses it to
 * bound how many of its subscriptions hold events at once; its `enter()` should settle once the
 * subscriber closes the subscription.
 */
export interface ReadGate {
  enter(): Promise<void>;
  leave(): void;
}

export interface SubscribeOptions {
  /** EXCLUSIVE: events after this position are delivered. `'start'` by default. */
  readonly fromPosition?: bigint | 'start' | 'end';
  readonly filter?: EventFilter;
  readonly gate?: ReadGate;
}

/**
 * How much one page of a read or a subscription may hold. A page ends at `maxCount` events, or
 * at the first event that brings the size of the page's events (their data and metadata as JSON
 * text) to `maxBytes`. It always holds at least one event, so a page holds at most `maxBytes`
 * plus one event, and an event larger than `maxBytes` ends the page it is in.
 */
export interface PageLimits {
  readonly maxCount: number;
  readonly maxBytes: number;
}

/** The pages of every adapter unless configured otherwise. */
export const DEFAULT_PAGE_BYTES = 1_048_576;

/**
 * `caught_up` arrives once, after the history that existed at subscription time; its position
 * is the last position seen by then (null when the store was empty).
 */
export type SubscriptionMessage =
  | { readonly kind: 'event'; readonly event: RecordedEvent }
  | { readonly kind: 'caught_up'; readonly position: bigint | null }
  /**
   * Every event of the subscription's filter up to `position` has been delivered, and `position`
   * is after the last one: a subscriber may store it as its checkpoint, so that a restart does not
   * read again a long stretch of events the filter refuses. Sent by stores whose server filters a
   * subscription (EventStoreDB's checkpoints); never before an event it passes.
   */
  | { readonly kind: 'checkpoint'; readonly position: bigint };

/** A catch-up subscription: history, then `caught_up`, then live events. `close()` ends iteration. */
export interface Subscription extends AsyncIterable<SubscriptionMessage> {
  close(): Promise<void>;
}

/**
 * A stream's custom metadata, as JSON. Keys that would let the store drop or hide events
 * (`RESERVED_STREAM_METADATA_KEYS`, and any key starting with `$`) are refused by every adapter
 * with `ReservedStreamMetadataError`: events leave a stream only through `eraseStream`.
 */
export interface StreamMetadata {
  readonly [key: string]: unknown;
}

/**
 * EventStoreDB's system settings of a stream as its client names them: retention (`maxAge`,
 * `maxCount`, `truncateBefore`) would delete events, `acl` would hide them, `cacheControl` changes
 * how they are served. None may be set through the port (see docs/decisions/0004).
 */
export const RESERVED_STREAM_METADATA_KEYS: readonly string[] = [
  'maxAge',
  'maxCount',
  'truncateBefore',
  'cacheControl',
  'acl',
];

/** The keys of `metadata` that the port refuses (reserved names and `$`-prefixed system keys). */
export function reservedStreamMetadataKeys(metadata: StreamMetadata): string[] {
  return Object.keys(metadata).filter(
    (key) => RESERVED_STREAM_METADATA_KEYS.includes(key) || key.startsWith('$'),
  );
}

export interface ErasureRequest {
  readonly actor: string;
  readonly reason: string;
  readonly tenant?: string;
  /** The time the record states (ISO 8601); the store's clock when absent. */
  readonly erasedAt?: string;
  /**
   * The revision of the stream's last event the erasure is meant for: when the stream's head is
   * elsewhere (an append came first), nothing is erased and `ConcurrencyError` is thrown. A caller
   * that signed the head it erases before erasing (decision 0018) erases exactly that head.
   */
  readonly expectedRevision?: bigint;
}

/** Throws `ConcurrencyError` when the erasure names a head that is not the stream's (see `ErasureRequest.expectedRevision`). */
export function assertErasureHead(streamId: string, request: ErasureRequest, current: bigint | null): void {
  if (request.expectedRevision === undefined || request.expectedRevision === current) return;
  throw new ConcurrencyError(streamId, request.expectedRevision, current);
}

/** The audit record of an erasure. It never holds event content. */
export interface ErasureRecord {
  readonly streamId: string;
  readonly actor: string;
  readonly reason: string;
  readonly tenant?: string;
  readonly erasedAt: string;
  readonly eventCount: number;
  /** The chain hash (`metadata.hash`) of the stream's last event, when it had one. */
  readonly headHash?: string;
  /** The revision of the stream's last event, as a decimal string (absent for an empty stream). */
  readonly headRevision?: string;
}

/** The stream of the erasure log as reads that ask for it (`includeErasures`) see it. */
export const ERASURE_LOG_STREAM = 'strata-erasures';
/** The type of an erasure log record; its data is the `ErasureRecord`, its metadata the tenant. */
export const ERASURE_EVENT_TYPE = 'strata.stream-erased';

/** Whether a recorded event is a record of the erasure log. */
export function isErasureEvent(event: { readonly streamId: string; readonly type: string }): boolean {
  return event.streamId === ERASURE_LOG_STREAM && event.type === ERASURE_EVENT_TYPE;
}

const HEAD_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** What an erasure record holds of the stream's last event (`headHash`, `headRevision`). */
export function erasureHeadOf(
  last: { readonly revision: bigint; readonly metadata: Readonly<Record<string, unknown>> } | undefined,
): Pick<ErasureRecord, 'headHash' | 'headRevision'> {
  if (last === undefined) return {};
  const hash = last.metadata['hash'];
  return {
    headRevision: last.revision.toString(),
    ...(typeof hash === 'string' && HEAD_HASH_PATTERN.test(hash) ? { headHash: hash } : {}),
  };
}

/** The erasure record an erasure log event carries; undefined for anything else or a malformed one. */
export function erasureRecordOfEvent(event: {
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
}): ErasureRecord | undefined {
  if (!isErasureEvent(event)) return undefined;
  const data = event.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const fields = data as Record<string, unknown>;
  const { streamId, actor, reason, tenant, erasedAt, eventCount, headHash, headRevision } = fields;
  if (typeof streamId !== 'string' || typeof actor !== 'string' || typeof reason !== 'string')
    return undefined;
  if (typeof erasedAt !== 'string' || typeof eventCount !== 'number' || !Number.isSafeInteger(eventCount))
    return undefined;
  return {
    streamId,
    actor,
    reason,
    ...(typeof tenant === 'string' ? { tenant } : {}),
    erasedAt,
    eventCount,
    ...(typeof headHash === 'string' ? { headHash } : {}),
    ...(typeof headRevision === 'string' ? { headRevision } : {}),
  };
}

/** An erasure record as the erasure log's event data (the optional fields only when present). */
export function erasureEventData(record: ErasureRecord): Record<string, unknown> {
  return {
    streamId: record.streamId,
    actor: record.actor,
    reason: record.reason,
    ...(record.tenant === undefined ? {} : { tenant: record.tenant }),
    erasedAt: record.erasedAt,
    eventCount: record.eventCount,
    ...(record.headHash === undefined ? {} : { headHash: record.headHash }),
    ...(record.headRevision === undefined ? {} : { headRevision: record.headRevision }),
  };
}

/**
 * Contract (checked by `describeEventStoreContract`):
 * - an append is atomic and idempotent: re-appending the same ids with the same expectation after
 *   a success returns the same result and writes nothing; an id that exists elsewhere is never
 *   written twice (`ConcurrencyError` or `DuplicateEventIdError`);
 * - expectation failures throw `ConcurrencyError` carrying expected and actual revisions;
 * - revisions are 0-based per stream; positions are global, strictly increasing;
 * - reading a missing stream yields nothing;
 * - subscriptions deliver each matching event after `fromPosition` exactly once in position order,
 *   then `caught_up`, then live events, without busy-waiting;
 * - reads and subscriptions fetch pages bounded by `PageLimits`, and a subscription reads its next
 *   page only once the subscriber asked for an event past the current one (and its gate let it);
 * - after `eraseStream` the stream yields no content, appends throw `StreamErasedError`, and
 *   `listErasures` returns the audit record; the record is in the erasure log that reads and
 *   subscriptions with `includeErasures` show, after every event of the stream; no subscription
 *   delivers an event of the stream after it;
 * - `appendToStream` with `reviveErased` writes to an erased stream as to a new one (its revisions
 *   start at 0 again), where the store can (SQLite, memory); EventStoreDB cannot write a
 *   tombstoned stream again and still throws `StreamErasedError`.
 */
export interface EventStore {
  appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /** A missing stream yields nothing. */
  readStream(streamId: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  subscribe(options?: SubscribeOptions): Subscription;
  /** The revision of the stream's last event; null when the stream does not exist. */
  streamRevision(streamId: string): Promise<bigint | null>;
  /** `{}` when none was set. */
  getStreamMetadata(streamId: string): Promise<StreamMetadata>;
  setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void>;
  /** Removes the stream's content and keeps an audit record without content. */
  eraseStream(streamId: string, request: ErasureRequest): Promise<ErasureRecord>;
  /** Every erasure (of one stream when given), oldest first. */
  listErasures(streamId?: string): Promise<readonly ErasureRecord[]>;
  close(): Promise<void>;
}

/** Throws `ReservedStreamMetadataError` when `metadata` names a reserved key. */
export function assertAllowedStreamMetadata(streamId: string, metadata: StreamMetadata): void {
  const reserved = reservedStreamMetadataKeys(metadata);
  if (reserved.length > 0) throw new ReservedStreamMetadataError(streamId, reserved);
}

/** Where a subscriber stored the last position it fully handled. */
export interface CheckpointStore {
  /** null when the subscriber never stored a position. */
  load(subscriberId: string): Promise<bigint | null>;
  store(subscriberId: string, position: bigint): Promise<void>;
}
