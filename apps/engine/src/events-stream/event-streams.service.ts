// The live event stream (DESIGN.md decisions 5, 8 and 11): each client gets its own catch-up
// subscription to the store — not in-process publication — that the store filters to the
// client's tenant, the names it asked for and optionally one session, starting after the id it
// last saw. Each tenant has its share of the streams (tenant-stream-shares.ts): a stream reads a
// page from the store only when its client has taken what it was sent, when few enough of the
// tenant's streams are reading, and while the tenant's unsent bytes are below their bound; a
// client that reads nothing for several heartbeats is disconnected (it may resume with
// Last-Event-ID). Heartbeat comments keep idle connections open through proxies. Every stream is
// ended when the engine stops.
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { EventFilter, EventStore, ReadGate, RecordedEvent, Subscription } from '@strata/event-store';
import { readProjectedEvent } from '@strata/projections';
import { SESSION_STREAM_PREFIX, sessionStreamName } from '@strata/session';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineConfig } from '../config/engine-config';
import { unavailable } from '../api/problem/api-errors';
import { ENGINE_CONFIG } from '../api/http-tokens';
import { EngineMetrics } from '../observability/engine-metrics.service';
import { EVENT_STORE } from '../shared/injection-tokens';
import { storeTypesFor, type PublicEventName } from './public-event-names';
import { publicEventsOf } from './public-events';
import {
  RECONNECT_DELAY_MS,
  SSE_CONTENT_TYPE,
  EventFrameCache,
  commentFrame,
  retryFrame,
} from './sse-frames';
import { StoreStreamLookups } from './store-stream-lookups';
import {
  READS_PER_TENANT,
  TenantStreamShare,
  streamsPerTenant,
  type StreamShareLimits,
} from './tenant-stream-shares';

export type StreamStart =
  | { readonly kind: 'after'; readonly position: bigint; readonly index: number }
  | { readonly kind: 'start' }
  | { readonly kind: 'end' };

export interface EventStreamRequest {
  readonly tenant: string;
  readonly names: ReadonlySet<PublicEventName>;
  readonly sessionId?: string;
  readonly start: StreamStart;
}

/** Heartbeats in a row during which a client took nothing before its stream is ended. */
export const STALLED_HEARTBEATS = 4;

class OpenStream {
  subscription: Subscription | undefined;
  heartbeat: NodeJS.Timeout | undefined;
  closed = false;
  stalledHeartbeats = 0;

  constructor(
    readonly tenant: string,
    readonly response: ServerResponse,
  ) {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    await this.subscription?.close();
    if (!this.response.writableEnded) this.response.end();
  }

  /** Writes a frame without waiting: the gate waits for the client before the next page. */
  write(frame: string | Buffer): void {
    if (this.closed || this.response.writableEnded) return;
    this.response.write(frame);
  }
}

@Injectable()
export class EventStreams implements OnModuleDestroy {
  private readonly logger = new Logger('EventStreams');
  private readonly open = new Set<OpenStream>();
  private readonly shares = new Map<string, TenantStreamShare>();
  private readonly lookups: StoreStreamLookups;
  private readonly limits: StreamShareLimits;
  /** Event JSON shared by the streams, as many bytes as one tenant's streams may hold unsent. */
  private readonly frames: EventFrameCache;
  private stopping = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly metrics: EngineMetrics,
  ) {
    this.lookups = new StoreStreamLookups(store);
    const tenants = new Set(config.apiKeys.map((record) => record.tenant)).size;
    this.limits = {
      maxStreams: config.maxEventStreams,
      maxStreamsPerTenant: streamsPerTenant(config.maxEventStreams, tenants, config.maxEventStreamsPerTenant),
      readsPerTenant: READS_PER_TENANT,
      unsentBytesPerTenant: config.eventStreamBufferBytes,
    };
    this.frames = new EventFrameCache(config.eventStreamBufferBytes);
  }

  get openStreams(): number {
    return this.open.size;
  }

  /** The streams one tenant may keep open. */
  get streamsPerTenant(): number {
    return this.limits.maxStreamsPerTenant;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.open].map((stream) => stream.close()));
  }

  /**
   * Refuses a new stream (503) when the engine is stopping, serves its limit, or the tenant
   * already has its share open.
   */
  requireCapacity(tenant: string): void {
    if (this.stopping) throw unavailable('the engine is stopping', 1);
    if (this.open.size >= this.limits.maxStreams) {
      throw unavailable(`the engine serves at most ${this.limits.maxStreams} event streams`, 5);
    }
    if (this.shares.get(tenant)?.hasRoom === false) {
      throw unavailable(
        `this tenant already has its share of ${this.limits.maxStreamsPerTenant} event streams open ` +
          `(of ${this.limits.maxStreams} for the engine); close one before opening another`,
        5,
      );
    }
  }

  /** Serves the stream until the client leaves or the engine stops. */
  async serve(
    request: EventStreamRequest,
    incoming: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    this.requireCapacity(request.tenant);
    const stream = new OpenStream(request.tenant, response);
    const share = this.shareOf(request.tenant);
    this.open.add(stream);
    share.add(stream);
    this.metrics.eventStreamsOpen.set({}, this.open.size);
    incoming.on('close', () => void stream.close());
    response.on('close', () => void stream.close());
    response.writeHead(200, {
      'Content-Type': `${SSE_CONTENT_TYPE}; charset=utf-8`,
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const gate = share.gateFor(stream);
    try {
      stream.write(retryFrame(RECONNECT_DELAY_MS) + commentFrame('connected'));
      stream.heartbeat = setInterval(() => this.beat(stream, share), this.config.heartbeatMs);
      await this.pump(request, stream, gate);
    } catch (error) {
      if (!stream.closed)
        this.logger.warn(`event stream ended: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await stream.close();
      gate.leave();
      this.open.delete(stream);
      share.remove(stream);
      if (share.openStreams === 0) this.shares.delete(request.tenant);
      this.metrics.eventStreamsOpen.set({}, this.open.size);
    }
  }

  private shareOf(tenant: string): TenantStreamShare {
    const known = this.shares.get(tenant);
    if (known !== undefined) return known;
    const share = new TenantStreamShare(this.limits);
    this.shares.set(tenant, share);
    return share;
  }

  /** A heartbeat, unless the client has not taken the last ones; then, after a while, the end. */
  private beat(stream: OpenStream, share: TenantStreamShare): void {
    share.changed();
    if (!stream.response.writableNeedDrain) {
      stream.stalledHeartbeats = 0;
      stream.write(commentFrame('heartbeat'));
      return;
    }
    stream.stalledHeartbeats += 1;
    if (stream.stalledHeartbeats >= STALLED_HEARTBEATS) {
      this.logger.warn(
        `event stream of tenant ${stream.tenant} ended: its client took nothing for ${STALLED_HEARTBEATS} heartbeats`,
      );
      stream.response.destroy();
      void stream.close();
    }
  }

  private async pump(request: EventStreamRequest, stream: OpenStream, gate: ReadGate): Promise<void> {
    const filter: EventFilter = {
      tenant: request.tenant,
      eventTypes: storeTypesFor(request.names),
      streamPrefixes: [
        request.sessionId !== undefined ? sessionStreamName(request.sessionId) : SESSION_STREAM_PREFIX,
      ],
    };
    const { start } = request;
    if (start.kind === 'after') {
      await gate.enter();
      try {
        for await (const recorded of this.store.readAll({
          fromPosition: start.position,
          maxCount: 1,
          filter,
        })) {
          if (recorded.position === start.position)
            await this.deliver(request, stream, recorded, start.index);
        }
      } finally {
        gate.leave();
      }
    }
    if (stream.closed) return;
    const subscription = this.store.subscribe({
      fromPosition: start.kind === 'after' ? start.position : start.kind,
      filter,
      gate,
    });
    stream.subscription = subscription;
    for await (const message of subscription) {
      if (stream.closed) break;
      if (message.kind === 'caught_up') {
        stream.write(commentFrame(`caught up at ${message.position ?? 'start'}`));
      } else if (message.kind === 'event') {
        await this.deliver(request, stream, message.event, -1);
      }
    }
  }

  private async deliver(
    request: EventStreamRequest,
    stream: OpenStream,
    recorded: RecordedEvent,
    afterIndex: number,
  ): Promise<void> {
    const result = readProjectedEvent(recorded);
    if (result.kind === 'invalid') return;
    const projected = result.event;
    if (projected.tenant !== request.tenant) return;
    if (request.sessionId !== undefined && projected.sessionId !== request.sessionId) return;
    const events = await publicEventsOf(
      projected,
      { wants: (name) => request.names.has(name), afterIndex },
      this.lookups,
    );
    for (const event of events) {
      for (const part of this.frames.frameOf(event)) stream.write(part);
      this.metrics.eventsStreamed.increment({ name: event.name });
    }
  }
}
