// The anchor log: where a store keeps the anchors signed for its streams, outside the streams
// themselves (SQLite: the `anchors` table of the same file; EventStoreDB: the `strata-anchors`
// stream, which no read model sees; in memory: beside the store). An anchor holds a head, never
// content, so the log survives an erasure unchanged: the erasure record answers for it. Reads are
// paged, so a long log is never held in memory.
import type Database from 'better-sqlite3';
import { jsonEvent, StreamNotFoundError, type EventStoreDBClient } from '@eventstore/db-client';
import {
  ANCHOR_EVENT_TYPE,
  ANCHOR_STREAM,
  createUuidV7Generator,
  EsdbEventStore,
  type EventStore,
  InMemoryEventStore,
  SqliteEventStore,
  type SqliteWriter,
} from '@strata/event-store';
import { anchorWrites, type AnchorRowToAppend } from './sqlite-anchor-writes';
import { anchorSchema, type Anchor } from './anchor';

/** An anchor as the engine logs it, with the tenant of its stream (not signed: it only scopes reads). */
export interface LoggedAnchor {
  readonly anchor: Anchor;
  readonly tenant?: string;
}

export interface AnchorQuery {
  readonly streamId?: string;
  /** Only anchors signed at or after this time (ISO 8601), as the signing engine's clock said. */
  readonly since?: string;
  /** Only anchors logged after this position of the log (`Anchor.position`): what clocks say does not matter. */
  readonly after?: bigint;
  readonly tenant?: string;
}

export interface AnchorLog {
  /** Appends the anchors in one write. */
  append(anchors: readonly LoggedAnchor[]): Promise<void>;
  /** The anchors the query selects, in the order they were logged, each with its `position`. */
  read(query?: AnchorQuery): AsyncIterable<Anchor>;
}

/** A store whose anchors cannot be kept (an adapter without an anchor log). */
export class AnchorLogUnavailableError extends Error {
  override readonly name = 'AnchorLogUnavailableError';
}

const PAGE_SIZE = 500;

/**
 * The largest log position either store can hold (SQLite's 64-bit rowid): a position asked for
 * past it has nothing after it, and is not handed to a driver that would refuse the number.
 */
const LAST_LOG_POSITION = 2n ** 63n - 1n;

function pastTheEnd(query: AnchorQuery): boolean {
  return query.after !== undefined && query.after >= LAST_LOG_POSITION;
}

function selected(logged: LoggedAnchor, query: AnchorQuery): boolean {
  const { anchor } = logged;
  if (query.streamId !== undefined && anchor.stream !== query.streamId) return false;
  if (query.tenant !== undefined && logged.tenant !== query.tenant) return false;
  return query.since === undefined || Date.parse(anchor.time) >= Date.parse(query.since);
}

/** The log of an in-memory store (tests). */
export class InMemoryAnchorLog implements AnchorLog {
  private readonly entries: LoggedAnchor[] = [];

  append(anchors: readonly LoggedAnchor[]): Promise<void> {
    this.entries.push(...anchors);
    return Promise.resolve();
  }

  async *read(query: AnchorQuery = {}): AsyncIterable<Anchor> {
    await Promise.resolve();
    const after = query.after ?? 0n;
    for (const [index, logged] of this.entries.entries()) {
      const position = BigInt(index + 1);
      if (position > after && selected(logged, query))
        yield { ...logged.anchor, position: position.toString() };
    }
  }
}

interface AnchorRow {
  readonly anchor_id: bigint;
  readonly stream_id: string;
  readonly revision: bigint;
  readonly head_hash: string;
  readonly signed_at: string;
  readonly key_id: string;
  readonly signature: string;
}

/**
 * The `anchors` table of a Strata SQLite database, made by the first append: reading a store that
 * has none (a store written before anchors, an auditor's copy) changes nothing in its file.
 */
export class SqliteAnchorLog implements AnchorLog {
  /** Reads on `database`; appends through `writer`, the file's writer (see sqlite-anchor-writes.ts). */
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {}

  async append(anchors: readonly LoggedAnchor[]): Promise<void> {
    if (anchors.length === 0) return;
    const rows = anchors.map(({ anchor, tenant }): AnchorRowToAppend => ({
      streamId: anchor.stream,
      revision: BigInt(anchor.revision),
      headHash: anchor.headHash,
      signedAt: anchor.time,
      keyId: anchor.keyId,
      signature: anchor.signature,
      tenant: tenant ?? null,
    }));
    await this.writer.write(anchorWrites.appendAnchors, { rows }, rows.length * 256);
  }

  private hasTable(): boolean {
    return (
      this.database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'anchors'").get() !==
      undefined
    );
  }

  async *read(query: AnchorQuery = {}): AsyncIterable<Anchor> {
    const conditions = ['anchor_id > ?'];
    const parameters: unknown[] = [];
    if (query.streamId !== undefined) {
      conditions.push('stream_id = ?');
      parameters.push(query.streamId);
    }
    if (query.tenant !== undefined) {
      conditions.push('tenant = ?');
      parameters.push(query.tenant);
    }
    if (!this.hasTable()) return;
    const statement = this.database.prepare<unknown[], AnchorRow>(
      `SELECT * FROM anchors WHERE ${conditions.join(' AND ')} ORDER BY anchor_id LIMIT ${PAGE_SIZE}`,
    );
    const since = query.since === undefined ? undefined : Date.parse(query.since);
    if (pastTheEnd(query)) return;
    let after = query.after ?? 0n;
    for (;;) {
      await Promise.resolve();
      const rows = statement.all(after, ...parameters);
      for (const row of rows) {
        const anchor: Anchor = {
          stream: row.stream_id,
          revision: row.revision.toString(),
          headHash: row.head_hash,
          time: row.signed_at,
          keyId: row.key_id,
          signature: row.signature,
          position: row.anchor_id.toString(),
        };
        if (since === undefined || Date.parse(anchor.time) >= since) yield anchor;
      }
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < PAGE_SIZE) return;
      after = last.anchor_id;
    }
  }
}

/** The `strata-anchors` stream of an EventStoreDB: one `strata.anchor-signed` event per anchor. */
export class EsdbAnchorLog implements AnchorLog {
  private readonly nextId = createUuidV7Generator();

  constructor(private readonly client: EventStoreDBClient) {}

  async append(anchors: readonly LoggedAnchor[]): Promise<void> {
    if (anchors.length === 0) return;
    await this.client.appendToStream(
      ANCHOR_STREAM,
      anchors.map(({ anchor, tenant }) =>
        jsonEvent({
          id: this.nextId(),
          type: ANCHOR_EVENT_TYPE,
          data: { ...anchor },
          ...(tenant !== undefined ? { metadata: { tenant } } : {}),
        }),
      ),
    );
  }

  async *read(query: AnchorQuery = {}): AsyncIterable<Anchor> {
    // positions are the stream's revisions plus one, so that every log's first anchor is at 1
    if (pastTheEnd(query)) return;
    let from = query.after ?? 0n;
    for (;;) {
      const page = await this.readPage(from);
      for (const logged of page.anchors) if (selected(logged, query)) yield logged.anchor;
      if (page.received < PAGE_SIZE) return;
      from = page.next;
    }
  }

  /** One page, read to its end before anything is handed out (no gRPC call is left open). */
  private async readPage(
    from: bigint,
  ): Promise<{ readonly anchors: LoggedAnchor[]; readonly received: number; readonly next: bigint }> {
    const anchors: LoggedAnchor[] = [];
    let received = 0;
    let next = from;
    try {
      for await (const resolved of this.client.readStream(ANCHOR_STREAM, {
        fromRevision: from,
        maxCount: PAGE_SIZE,
      })) {
        const event = resolved.event;
        if (event === undefined) continue;
        received += 1;
        next = event.revision + 1n;
        if (event.type !== ANCHOR_EVENT_TYPE) continue;
        const parsed = anchorSchema.safeParse(event.data);
        if (!parsed.success) continue;
        const metadata = event.metadata as { readonly tenant?: unknown } | undefined;
        const tenant = typeof metadata?.tenant === 'string' ? metadata.tenant : undefined;
        const anchor = { ...parsed.data, position: (event.revision + 1n).toString() };
        anchors.push({ anchor, ...(tenant !== undefined ? { tenant } : {}) });
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return { anchors, received, next };
  }
}

const memoryLogs = new WeakMap<InMemoryEventStore, InMemoryAnchorLog>();

/** The anchor log of a store opened by `openEventStore`; throws `AnchorLogUnavailableError`. */
export function anchorLogOf(store: EventStore): AnchorLog {
  if (store instanceof SqliteEventStore) return new SqliteAnchorLog(store.database, store.writer);
  if (store instanceof EsdbEventStore) return new EsdbAnchorLog(store.client);
  if (store instanceof InMemoryEventStore) {
    let log = memoryLogs.get(store);
    if (log === undefined) {
      log = new InMemoryAnchorLog();
      memoryLogs.set(store, log);
    }
    return log;
  }
  throw new AnchorLogUnavailableError('this store keeps no anchor log');
}

/** The store's anchor log, or undefined for a store that keeps none. */
export function anchorLogIfAny(store: EventStore): AnchorLog | undefined {
  try {
    return anchorLogOf(store);
  } catch (error) {
    if (error instanceof AnchorLogUnavailableError) return undefined;
    throw error;
  }
}
