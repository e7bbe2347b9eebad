// TEST FIXTURE. The in-memory log behind the EventStoreDB protocol test server. It mimics the
// server semantics the client can observe: one global log (`$all`) whose positions are growing
// byte offsets (commit == prepare, as for every event written outside a legacy TCP transaction),
// 0-based stream revisions, optimistic concurrency with idempotent retries by event id, metadata
// in `$$<stream>` metastreams (`$tb`, `$maxCount`, `$maxAge` honoured on stream reads), soft delete
// (a `$tb` of the deleted-stream revision, undone by the next append) and tombstones (a
// `$streamDeleted` record; the stream and its metastream are closed for good). Like the real
// server, `$all` keeps the records of deleted streams: only a scavenge would remove them, and
// this fixture never scavenges. Nothing is durable.
import { DELETED_STREAM_REVISION, type WireExpectation } from './wire';

export interface ProposedEvent {
  readonly eventId: string;
  readonly eventType: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

export interface LogRecord extends ProposedEvent {
  readonly streamName: string;
  readonly revision: bigint;
  /** Commit and prepare position (the same for every record of this log). */
  readonly position: bigint;
  /** .NET ticks (100 ns) since the Unix epoch, as the server reports `created`. */
  readonly createdTicks: bigint;
}

export type WriteOutcome =
  | { readonly kind: 'written'; readonly lastRevision: bigint | null; readonly position: bigint | null }
  | { readonly kind: 'wrong_expected_version'; readonly actual: bigint | null }
  | { readonly kind: 'stream_deleted' };

export type StreamView =
  | { readonly kind: 'deleted' }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'found'; readonly events: readonly LogRecord[] };

const METADATA_EVENT_TYPE = '$metadata';
const JSON_CONTENT_TYPE = 'application/json';
const RECORD_OVERHEAD_BYTES = 96n;
const TICKS_PER_MILLISECOND = 10_000n;

export function isMetastream(streamName: string): boolean {
  return streamName.startsWith('$$');
}

function jsonBytes(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'utf8'));
}

export class EventLog {
  private readonly records: LogRecord[] = [];
  private readonly streams = new Map<string, LogRecord[]>();
  private readonly tombstoned = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private nextPosition = 0n;

  constructor(private readonly nowMilliseconds: () => number = Date.now) {}

  /** The record at `index` of `$all` (in position order), if any. */
  recordAt(index: number): LogRecord | undefined {
    return this.records[index];
  }

  get length(): number {
    return this.records.length;
  }

  /** Calls `listener` after every write; returns the function that stops it. */
  onWrite(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  lastRevision(streamName: string): bigint | null {
    const events = this.streams.get(streamName);
    return events === undefined || events.length === 0 ? null : BigInt(events.length - 1);
  }

  /** A tombstoned stream, or the metastream of one. */
  isTombstoned(streamName: string): boolean {
    if (this.tombstoned.has(streamName)) return true;
    return isMetastream(streamName) && this.tombstoned.has(streamName.slice(2));
  }

  /** The JSON of the stream's latest `$metadata` event, when there is one. */
  metadataOf(streamName: string): Readonly<Record<string, unknown>> | undefined {
    const metaEvents = this.streams.get(`$$${streamName}`);
    const latest = metaEvents?.[metaEvents.length - 1];
    if (latest === undefined || latest.contentType !== JSON_CONTENT_TYPE) return undefined;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(latest.data).toString('utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  private isSoftDeleted(streamName: string): boolean {
    const truncateBefore = this.metadataOf(streamName)?.['$tb'];
    return typeof truncateBefore === 'number' && truncateBefore >= Number(DELETED_STREAM_REVISION);
  }

  /** The stream as a read sees it, after metadata (`$tb`, `$maxCount`, `$maxAge`) is applied. */
  view(streamName: string): StreamView {
    if (this.isTombstoned(streamName)) return { kind: 'deleted' };
    const events = this.streams.get(streamName) ?? [];
    if (events.length === 0 || this.isSoftDeleted(streamName)) return { kind: 'not_found' };
    if (isMetastream(streamName)) return { kind: 'found', events: events.slice(-1) };
    const metadata = this.metadataOf(streamName) ?? {};
    let visible: readonly LogRecord[] = events;
    const truncateBefore = metadata['$tb'];
    if (typeof truncateBefore === 'number')
      visible = visible.filter((event) => event.revision >= truncateBefore);
    const maxCount = metadata['$maxCount'];
    if (typeof maxCount === 'number') visible = visible.slice(-maxCount);
    const maxAge = metadata['$maxAge'];
    if (typeof maxAge === 'number') {
      const oldestTicks = BigInt(this.nowMilliseconds() - maxAge * 1000) * TICKS_PER_MILLISECOND;
      visible = visible.filter((event) => event.createdTicks >= oldestTicks);
    }
    return { kind: 'found', events: visible };
  }

  append(streamName: string, expected: WireExpectation, proposed: readonly ProposedEvent[]): WriteOutcome {
    if (this.isTombstoned(streamName)) return { kind: 'stream_deleted' };
    const existing = this.streams.get(streamName) ?? [];
    const current = this.lastRevision(streamName);
    if (expected === 'stream_exists' && this.isSoftDeleted(streamName)) return { kind: 'stream_deleted' };
    const decision = this.checkExpectation(existing, current, expected, proposed);
    if (decision.kind !== 'ok') return decision;
    if (proposed.length === 0) return { kind: 'written', lastRevision: current, position: null };
    if (this.isSoftDeleted(streamName)) this.undoSoftDelete(streamName, current);
    const position = this.writeEvents(streamName, proposed);
    this.notify();
    return { kind: 'written', lastRevision: this.lastRevision(streamName), position };
  }

  /** Soft delete: hides the stream until the next append, which continues its revisions. */
  softDelete(streamName: string, expected: WireExpectation): WriteOutcome {
    const refusal = this.checkDeletion(streamName, expected);
    if (refusal !== undefined) return refusal;
    const metadata = { ...(this.metadataOf(streamName) ?? {}) };
    delete metadata['$tb'];
    const rest = JSON.stringify(metadata).slice(1, -1);
    const text = `{${rest}${rest.length > 0 ? ',' : ''}"$tb":${DELETED_STREAM_REVISION.toString(10)}}`;
    const position = this.writeMetadata(streamName, text);
    this.notify();
    return { kind: 'written', lastRevision: this.lastRevision(streamName), position };
  }

  /** Tombstone: the stream is closed for good; `$all` gains a `$streamDeleted` record. */
  tombstone(streamName: string, expected: WireExpectation): WriteOutcome {
    const refusal = this.checkDeletion(streamName, expected);
    if (refusal !== undefined) return refusal;
    const position = this.pushRecord({
      streamName,
      revision: DELETED_STREAM_REVISION,
      eventId: globalThis.crypto.randomUUID(),
      eventType: '$streamDeleted',
      contentType: 'application/octet-stream',
      data: new Uint8Array(),
      customMetadata: new Uint8Array(),
    });
    this.tombstoned.add(streamName);
    this.notify();
    return { kind: 'written', lastRevision: this.lastRevision(streamName), position };
  }

  private checkDeletion(streamName: string, expected: WireExpectation): WriteOutcome | undefined {
    if (this.isTombstoned(streamName)) return { kind: 'stream_deleted' };
    const current = this.lastRevision(streamName);
    const matches =
      expected === 'any' ||
      (expected === 'no_stream' && current === null) ||
      (expected === 'stream_exists' && current !== null) ||
      expected === current;
    return matches ? undefined : { kind: 'wrong_expected_version', actual: current };
  }

  /**
   * The server's commit check: the expectation holds, or the same ids were already written at the
   * place the expectation names (an idempotent retry: success, nothing written), or it fails.
   */
  private checkExpectation(
    existing: readonly LogRecord[],
    current: bigint | null,
    expected: WireExpectation,
    proposed: readonly ProposedEvent[],
  ): { readonly kind: 'ok' } | WriteOutcome {
    const wrong = { kind: 'wrong_expected_version', actual: current } as const;
    const idempotentFrom = (start: number): WriteOutcome | undefined => {
      if (proposed.length === 0 || start < 0) return undefined;
      const written = existing.slice(start, start + proposed.length);
      if (written.length === 0 || written[0]!.eventId !== proposed[0]!.eventId) return undefined;
      const allMatch =
        written.length === proposed.length &&
        written.every((event, i) => event.eventId === proposed[i]!.eventId);
      if (!allMatch) return wrong;
      const last = written[written.length - 1]!;
      return { kind: 'written', lastRevision: last.revision, position: last.position };
    };
    switch (expected) {
      case 'any':
      case 'stream_exists': {
        if (expected === 'stream_exists' && current === null) return wrong;
        const first = proposed[0];
        const start =
          first === undefined ? -1 : existing.findIndex((event) => event.eventId === first.eventId);
        return idempotentFrom(start) ?? { kind: 'ok' };
      }
      case 'no_stream':
        if (current === null) return { kind: 'ok' };
        return idempotentFrom(0) ?? wrong;
      default:
        if (current === expected) return { kind: 'ok' };
        if (current !== null && current > expected) return idempotentFrom(Number(expected) + 1) ?? wrong;
        return wrong;
    }
  }

  private undoSoftDelete(streamName: string, current: bigint | null): void {
    const metadata = { ...(this.metadataOf(streamName) ?? {}), $tb: Number((current ?? -1n) + 1n) };
    this.writeMetadata(streamName, JSON.stringify(metadata));
  }

  private writeMetadata(streamName: string, json: string): bigint {
    return this.writeEvents(`$$${streamName}`, [
      {
        eventId: globalThis.crypto.randomUUID(),
        eventType: METADATA_EVENT_TYPE,
        contentType: JSON_CONTENT_TYPE,
        data: jsonBytes(json),
        customMetadata: new Uint8Array(),
      },
    ]);
  }

  private writeEvents(streamName: string, proposed: readonly ProposedEvent[]): bigint {
    const events = this.streams.get(streamName) ?? [];
    this.streams.set(streamName, events);
    let position = this.nextPosition;
    for (const event of proposed) {
      position = this.pushRecord({ ...event, streamName, revision: BigInt(events.length) });
      events.push(this.records[this.records.length - 1]!);
    }
    return position;
  }

  private pushRecord(record: Omit<LogRecord, 'position' | 'createdTicks'>): bigint {
    const position = this.nextPosition;
    const size =
      RECORD_OVERHEAD_BYTES +
      BigInt(Buffer.byteLength(record.streamName) + Buffer.byteLength(record.eventType)) +
      BigInt(record.data.length + record.customMetadata.length);
    this.nextPosition = position + size;
    const createdTicks = BigInt(this.nowMilliseconds()) * TICKS_PER_MILLISECOND;
    this.records.push({ ...record, position, createdTicks });
    return position;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
