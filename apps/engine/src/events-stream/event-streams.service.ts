// The live event stream (DESIGN.md decisions 5 and 8): each client gets its own catch-up
// subscription to the store — not in-process publication — filtered to its tenant, the names it
// asked for and optionally one session, starting after the id it last saw. A slow client is
// waited for (the subscription is not read further until its socket drains); heartbeat comments
// keep idle connections open through proxies. Every stream is ended when the engine stops.
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { EventFilter, EventStore, RecordedEvent, Subscription } from '@strata/event-store';
import { readProjectedEvent } from '@strata/projections';
import { SESSION_STREAM_PREFIX, sessionStreamName } from '@strata/session';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineConfig } from '../config/engine-config';
import { unavailable } from '../http/problem/api-errors';
import { ENGINE_CONFIG } from '../http/http-tokens';
import { EngineMetrics } from '../observability/engine-metrics.service';
import { EVENT_STORE } from '../shared/injection-tokens';
import { storeTypesFor, type PublicEventName } from './public-event-names';
import { publicEventsOf } from './public-events';
import { RECONNECT_DELAY_MS, SSE_CONTENT_TYPE, commentFrame, eventFrame, retryFrame } from './sse-frames';
import { StoreStreamLookups } from './store-stream-lookups';

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

class OpenStream {
  subscription: Subscription | undefined;
  heartbeat: NodeJS.Timeout | undefined;
  closed = false;

  constructor(readonly response: ServerResponse) {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    await this.subscription?.close();
    if (!this.response.writableEnded) this.response.end();
  }

  /** Writes a frame; resolves once the socket can take more. */
  async write(frame: string): Promise<void> {
    if (this.closed || this.response.writableEnded) return;
    if (this.response.write(frame)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.response.off('drain', done);
        this.response.off('close', done);
        resolve();
      };
      this.response.on('drain', done);
      this.response.on('close', done);
    });
  }
}

@Injectable()
export class EventStreams implements OnModuleDestroy {
  private readonly logger = new Logger('EventStreams');
  private readonly open = new Set<OpenStream>();
  private readonly lookups: StoreStreamLookups;
  private stopping = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly metrics: EngineMetrics,
  ) {
    this.lookups = new StoreStreamLookups(store);
  }

  get openStreams(): number {
    return this.open.size;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.open].map((stream) => stream.close()));
  }

  /** Refuses a new stream when the limit is reached or the engine is stopping (503). */
  requireCapacity(): void {
    if (this.stopping) throw unavailable('the engine is stopping', 1);
    if (this.open.size >= this.config.maxEventStreams) {
      throw unavailable(`the engine serves at most ${this.config.maxEventStreams} event streams`, 5);
    }
  }

  /** Serves the stream until the client leaves or the engine stops. */
  async serve(
    request: EventStreamRequest,
    incoming: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    this.requireCapacity();
    const stream = new OpenStream(response);
    this.open.add(stream);
    this.metrics.eventStreamsOpen.set({}, this.open.size);
    incoming.on('close', () => void stream.close());
    response.on('close', () => void stream.close());
    response.writeHead(200, {
      'Content-Type': `${SSE_CONTENT_TYPE}; charset=utf-8`,
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    try {
      await stream.write(retryFrame(RECONNECT_DELAY_MS) + commentFrame('connected'));
      stream.heartbeat = setInterval(
        () => void stream.write(commentFrame('heartbeat')),
        this.config.heartbeatMs,
      );
      await this.pump(request, stream);
    } catch (error) {
      if (!stream.closed)
        this.logger.warn(`event stream ended: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await stream.close();
      this.open.delete(stream);
      this.metrics.eventStreamsOpen.set({}, this.open.size);
    }
  }

  private async pump(request: EventStreamRequest, stream: OpenStream): Promise<void> {
    const filter: EventFilter = {
      eventTypes: storeTypesFor(request.names),
      streamPrefixes: [
        request.sessionId !== undefined ? sessionStreamName(request.sessionId) : SESSION_STREAM_PREFIX,
      ],
    };
    const { start } = request;
    if (start.kind === 'after') {
      for await (const recorded of this.store.readAll({
        fromPosition: start.position,
        maxCount: 1,
        filter,
      })) {
        if (recorded.position === start.position) await this.deliver(request, stream, recorded, start.index);
      }
    }
    if (stream.closed) return;
    const subscription = this.store.subscribe({
      fromPosition: start.kind === 'after' ? start.position : start.kind,
      filter,
    });
    stream.subscription = subscription;
    for await (const message of subscription) {
      if (stream.closed) break;
      if (message.kind === 'caught_up') {
        await stream.write(commentFrame(`caught up at ${message.position ?? 'start'}`));
      } else {
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
      await stream.write(eventFrame(event));
      this.metrics.eventsStreamed.increment({ name: event.name });
    }
  }
}
