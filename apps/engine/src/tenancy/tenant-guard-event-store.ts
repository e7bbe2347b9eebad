// An EventStore decorator that guards the tenants of session streams (DESIGN.md decision 4):
// every event written to a session stream must carry, in its sealed metadata, the tenant of the
// stream's first event — the write side puts it there once, before sealing, so nothing is
// changed or sealed again here — and a new stream's events must agree on one. A write for
// another tenant's stream is refused. It tells its after-commit observers of every append to a
// session stream (its outcome and time for metrics, and the appended head for the anchors) and
// of every erasure, and keeps the streams' tenants for the HTTP edge's ownership checks. Events already encoded
// as JSON text (an import sealed on a worker thread) pass the same checks: their metadata texts
// are read a slice at a time, so a large batch never holds the event loop.
import {
  ConcurrencyError,
  acceptsEncodedAppends,
  readsEventsLazily,
  readsStreamEnds,
  remembersWrittenHeads,
  type AppendOptions,
  type EncodedAppends,
  type EncodedEvent,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type LazyEventReads,
  type StreamEndReads,
  type WrittenHeadReads,
  type RecordedEvent,
} from '@strata/event-store';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import { TenantMismatchError, tenantOfMetadata } from '../shared/command-context';
import { StreamTenants } from './stream-tenants';

export type AppendResultKind = 'ok' | 'conflict' | 'error';

/**
 * Told what a write through the guard did, once it is over; every hook is optional. Hooks run in
 * the order of the list, each kind for every observer before the next kind.
 */
export interface AfterCommitObserver {
  /** Every append to a session stream, with its outcome and how long it took (for metrics). */
  readonly appendFinished?: (result: AppendResultKind, events: number, seconds: number) => void;
  /** Every append to a session stream that succeeded (the anchors follow the heads). */
  readonly appended?: (streamId: string, events: readonly EventToAppend[], result: AppendResult) => void;
  /** Every stream erased through this store (after the erasure). */
  readonly erased?: (streamId: string) => void;
}

/** Metadata texts read between two turns of the event loop. */
const METADATA_SLICE = 1_000;

export class TenantGuardEventStore implements EventStore, Partial<EncodedAppends>, Partial<LazyEventReads> {
  readonly tenants: StreamTenants;
  /** Present when the inner store writes encoded events. */
  readonly appendEncoded?: EncodedAppends['appendEncoded'];
  /** Present when the inner store reads single events lazily (reads are not guarded). */
  readonly readEventAt?: LazyEventReads['readEventAt'];
  readonly readRecentEvents?: LazyEventReads['readRecentEvents'];
  /** Present when the inner store reads an event with its stream's end. */
  readonly readEventAndEnd?: StreamEndReads['readEventAndEnd'];
  /** Present when the inner store remembers its written heads (it checks `expectedPosition` then). */
  readonly writtenHeadAt?: WrittenHeadReads['writtenHeadAt'];

  constructor(
    readonly inner: EventStore,
    private readonly observers: readonly AfterCommitObserver[] = [],
  ) {
    this.tenants = new StreamTenants(inner);
    if (acceptsEncodedAppends(inner)) {
      this.appendEncoded = (streamId, events, options) => this.guardEncoded(inner, streamId, events, options);
    }
    if (readsEventsLazily(inner)) {
      this.readEventAt = (streamId, revision) => inner.readEventAt(streamId, revision);
      this.readRecentEvents = (streamId, fromRevision) => inner.readRecentEvents(streamId, fromRevision);
    }
    if (readsStreamEnds(inner)) {
      this.readEventAndEnd = (streamId, revision) => inner.readEventAndEnd(streamId, revision);
    }
    if (remembersWrittenHeads(inner)) {
      this.writtenHeadAt = (streamId, head) => inner.writtenHeadAt(streamId, head);
    }
  }

  async appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (!streamId.startsWith(SESSION_STREAM_PREFIX) || events.length === 0) {
      return this.inner.appendToStream(streamId, events, options);
    }
    const started = process.hrtime.bigint();
    const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      await this.requireOneTenant(streamId, events);
      const result = await this.inner.appendToStream(streamId, events, options);
      this.finished('ok', events.length, seconds());
      for (const observer of this.observers) observer.appended?.(streamId, events, result);
      return result;
    } catch (error) {
      this.finished(error instanceof ConcurrencyError ? 'conflict' : 'error', events.length, seconds());
      throw error;
    }
  }

  private async guardEncoded(
    inner: EventStore & EncodedAppends,
    streamId: string,
    events: readonly EncodedEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (!streamId.startsWith(SESSION_STREAM_PREFIX) || events.length === 0) {
      return inner.appendEncoded(streamId, events, options);
    }
    const started = process.hrtime.bigint();
    const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const metadata: Readonly<Record<string, unknown>>[] = [];
      for (let start = 0; start < events.length; start += METADATA_SLICE) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        for (const event of events.slice(start, start + METADATA_SLICE)) {
          metadata.push(JSON.parse(event.metadata) as Readonly<Record<string, unknown>>);
        }
      }
      await this.requireOneTenant(
        streamId,
        metadata.map((eventMetadata) => ({ metadata: eventMetadata })),
      );
      const result = await inner.appendEncoded(streamId, events, options);
      this.finished('ok', events.length, seconds());
      const last = events[events.length - 1]!;
      // the observers read ids and metadata only; the data stays encoded
      const head = [{ id: last.id, type: last.type, data: null, metadata: metadata.at(-1) }];
      for (const observer of this.observers) observer.appended?.(streamId, head, result);
      return result;
    } catch (error) {
      this.finished(error instanceof ConcurrencyError ? 'conflict' : 'error', events.length, seconds());
      throw error;
    }
  }

  readStream(...args: Parameters<EventStore['readStream']>): AsyncIterable<RecordedEvent> {
    return this.inner.readStream(...args);
  }

  readAll(...args: Parameters<EventStore['readAll']>): ReturnType<EventStore['readAll']> {
    return this.inner.readAll(...args);
  }

  subscribe(...args: Parameters<EventStore['subscribe']>): ReturnType<EventStore['subscribe']> {
    return this.inner.subscribe(...args);
  }

  streamRevision(streamId: string): Promise<bigint | null> {
    return this.inner.streamRevision(streamId);
  }

  getStreamMetadata(streamId: string): ReturnType<EventStore['getStreamMetadata']> {
    return this.inner.getStreamMetadata(streamId);
  }

  setStreamMetadata(...args: Parameters<EventStore['setStreamMetadata']>): Promise<void> {
    return this.inner.setStreamMetadata(...args);
  }

  async eraseStream(...args: Parameters<EventStore['eraseStream']>): ReturnType<EventStore['eraseStream']> {
    const record = await this.inner.eraseStream(...args);
    this.tenants.forget(args[0]);
    for (const observer of this.observers) observer.erased?.(args[0]);
    return record;
  }

  listErasures(streamId?: string): ReturnType<EventStore['listErasures']> {
    return this.inner.listErasures(streamId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private finished(result: AppendResultKind, events: number, seconds: number): void {
    for (const observer of this.observers) observer.appendFinished?.(result, events, seconds);
  }

  /** Refuses a batch whose events name a tenant other than the stream's (or disagree on a new stream). */
  private async requireOneTenant(
    streamId: string,
    events: readonly Pick<EventToAppend, 'metadata'>[],
  ): Promise<void> {
    const streamTenant = await this.tenants.tenantOfStream(streamId);
    const expected = streamTenant ?? tenantOfMetadata(events[0]?.metadata ?? {});
    for (const event of events) {
      const tenant = tenantOfMetadata(event.metadata ?? {});
      if (tenant !== expected) throw new TenantMismatchError(streamId, expected, tenant);
    }
  }
}
