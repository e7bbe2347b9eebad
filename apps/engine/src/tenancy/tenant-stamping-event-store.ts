// An EventStore decorator that records the tenant on every event written to a session stream
// (DESIGN.md decision 4): a new stream takes the tenant of the work in progress (`runAsTenant`),
// and every later event of a stream carries the tenant of its first event, whoever writes it
// (a request, a saga, an import). Events arrive already sealed by the integrity layer; when
// their tenant has to change they are sealed again onto the same predecessor, so the hash chain
// stays valid. A write on behalf of one tenant to another tenant's stream is refused.
import {
  ConcurrencyError,
  isHash,
  sealEvents,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type RecordedEvent,
} from '@strata/event-store';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import { StreamTenants, tenantOfMetadata } from './stream-tenants';
import { currentTenant } from './tenant-scope';

/** Work done for one tenant tried to write to a stream of another. */
export class TenantMismatchError extends Error {
  override readonly name = 'TenantMismatchError';

  constructor(
    readonly streamId: string,
    readonly streamTenant: string,
    readonly requestedTenant: string,
  ) {
    super(`stream ${streamId} belongs to another tenant`);
  }
}

export type AppendResultKind = 'ok' | 'conflict' | 'error';

/** Told of every append to a session stream (for metrics). */
export type AppendObserver = (result: AppendResultKind, events: number, seconds: number) => void;

function withTenant(event: EventToAppend, tenant: string): EventToAppend {
  return { ...event, metadata: { ...event.metadata, tenant } };
}

export class TenantStampingEventStore implements EventStore {
  readonly tenants: StreamTenants;

  constructor(
    readonly inner: EventStore,
    private readonly observer?: AppendObserver,
  ) {
    this.tenants = new StreamTenants(inner);
  }

  async appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (!streamId.startsWith(SESSION_STREAM_PREFIX) || events.length === 0) {
      return this.inner.appendToStream(streamId, events, options);
    }
    const started = process.hrtime.bigint();
    const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await this.stampAndAppend(streamId, events, options);
      this.observer?.('ok', events.length, seconds());
      return result;
    } catch (error) {
      this.observer?.(error instanceof ConcurrencyError ? 'conflict' : 'error', events.length, seconds());
      throw error;
    }
  }

  private async stampAndAppend(
    streamId: string,
    events: readonly EventToAppend[],
    options: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    const streamTenant = await this.tenants.tenantOfStream(streamId);
    const requested = currentTenant();
    if (streamTenant !== undefined && requested !== undefined && requested !== streamTenant) {
      throw new TenantMismatchError(streamId, streamTenant, requested);
    }
    const [first] = events;
    const tenant = streamTenant ?? requested ?? tenantOfMetadata(first?.metadata ?? {});
    const stamped = events.every((event) => event.metadata?.['tenant'] === tenant)
      ? events
      : await this.restamp(streamId, events, tenant, options.expectedRevision);
    return this.inner.appendToStream(streamId, stamped, options);
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
    return record;
  }

  listErasures(streamId?: string): ReturnType<EventStore['listErasures']> {
    return this.inner.listErasures(streamId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The batch with `tenant`, sealed again when it was sealed. */
  private async restamp(
    streamId: string,
    events: readonly EventToAppend[],
    tenant: string,
    expectedRevision: ExpectedRevision | undefined,
  ): Promise<readonly EventToAppend[]> {
    const sealed = events.every((event) => isHash(event.metadata?.['hash']));
    if (!sealed) return events.map((event) => withTenant(event, tenant));
    const predecessor = await this.predecessorOf(streamId, events, expectedRevision);
    return sealEvents(streamId, events, predecessor, { tenant });
  }

  /**
   * What the batch was sealed onto: nothing for a new stream; for a known revision, the hash
   * the batch already names as its predecessor; otherwise the stream's last event.
   */
  private async predecessorOf(
    streamId: string,
    events: readonly EventToAppend[],
    expectedRevision: ExpectedRevision | undefined,
  ): Promise<RecordedEvent | undefined> {
    if (expectedRevision === 'no_stream') return undefined;
    const previousHash = events[0]?.metadata?.['previousHash'];
    if (typeof expectedRevision === 'bigint' && isHash(previousHash)) {
      return {
        streamId,
        id: '',
        type: '',
        data: null,
        metadata: { hash: previousHash },
        revision: expectedRevision,
        position: -1n,
        createdAt: '',
      };
    }
    for await (const last of this.inner.readStream(streamId, {
      direction: 'backwards',
      fromRevision: 'end',
      maxCount: 1,
    })) {
      return last;
    }
    return undefined;
  }
}
