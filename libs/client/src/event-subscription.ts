// GET /events as an async iterable: one `StrataEvent` per server-sent event, in order. When the
// connection drops (the engine restarts, a proxy cuts it, nothing arrives for `idleTimeoutMs`)
// it reconnects with `Last-Event-ID` set to the last event it yielded, so the consumer sees every
// event once: none lost, none twice. Refusals that retrying cannot fix (a bad key, an unknown
// session or event name) end the iteration with the `StrataApiError`.
import type { EventName, StrataEvent } from './event-types';
import { StrataApiError, StrataClientError, StrataNetworkError, StrataProtocolError } from './errors';
import { EventStreamParser, type EventFrame } from './event-stream-parser';
import type { ClientAbortSignal } from './platform-types';
import {
  baseHeaders,
  problemOf,
  readBounded,
  retryAfterMs,
  sleep,
  urlOf,
  type TransportOptions,
} from './transport';

/** An SSE id of the engine: `<position>` or `<position>.<index>`. */
export const EVENT_ID_PATTERN = /^\d{1,19}(?:\.\d{1,3})?$/;

const DEFAULT_RECONNECT_DELAY_MS = 2_000;
const DEFAULT_MAX_RECONNECT_DELAY_MS = 30_000;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_EVENT_LENGTH = 64 * 1024 * 1024;
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface EventStreamOptions {
  /** Only these public names (all by default); a comma-separated string is sent as it is. */
  readonly types?: readonly EventName[] | string;
  /** Only the events of this session. */
  readonly session?: string;
  /** Without a last event id: from the beginning of the log, or live (the engine's default). */
  readonly from?: 'start' | 'end';
  /** Resume after this event id (a checkpoint). */
  readonly lastEventId?: string;
  /** The first reconnection delay (doubling while the engine stays away); the server's `retry:` by default. */
  readonly reconnectDelayMs?: number;
  /** No reconnection delay is longer. Default 30,000 ms. */
  readonly maxReconnectDelayMs?: number;
  /** Failed connections in a row after which the iteration ends with the last error. Unbounded by default. */
  readonly maxReconnects?: number;
  /** Reconnect when nothing (not even a heartbeat) arrived for this long. Default 60,000 ms; 0: never. */
  readonly idleTimeoutMs?: number;
  /** The longest line or event taken, in characters. Default 64 Mi. */
  readonly maxEventLength?: number;
  /** Told before each reconnection: why (undefined: the engine ended the stream), and when. */
  readonly onReconnect?: (reconnect: ReconnectInfo) => void;
  /** Told each comment (`connected`, `caught up at <position>`, `heartbeat`). */
  readonly onComment?: (text: string) => void;
  /** Ends the iteration, as `close()` does. */
  readonly signal?: ClientAbortSignal;
}

export interface ReconnectInfo {
  /** Failed connections in a row, this one included. */
  readonly attempt: number;
  readonly delayMs: number;
  /** The id it resumes after (undefined: none seen yet). */
  readonly lastEventId: string | undefined;
  /** Why the connection ended; undefined when the engine ended the stream. */
  readonly error: StrataClientError | undefined;
  /** Whether the connection that ended had opened its stream (false: the engine was not reached or refused). */
  readonly connected: boolean;
}

/** Why one connection ended (other than by a refusal, which ends the iteration). */
type Ended =
  | { readonly kind: 'closed' }
  | { readonly kind: 'dropped'; readonly connected: boolean; readonly error?: StrataClientError };

/** An open subscription; iterate it once. */
export class EventSubscription implements AsyncIterable<StrataEvent> {
  private readonly closer = new AbortController();
  private current: string | undefined;
  private serverDelay: number | undefined;
  private started = false;

  constructor(
    private readonly transport: TransportOptions,
    private readonly options: EventStreamOptions = {},
  ) {
    const id = options.lastEventId;
    if (id !== undefined && !EVENT_ID_PATTERN.test(id))
      throw new TypeError(`lastEventId must be an event id such as 1234 or 1234.1, not '${id}'`);
    this.current = id;
    urlOf(transport.url, '/events');
    if (options.signal !== undefined) {
      if (options.signal.aborted) this.closer.abort();
      else options.signal.addEventListener('abort', () => this.close(), { once: true });
    }
  }

  /** The id of the last event yielded (or the one it started after): where a restart resumes. */
  get lastEventId(): string | undefined {
    return this.current;
  }

  /** Ends the iteration (a pending `next()` resolves done) and the connection. */
  close(): void {
    this.closer.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<StrataEvent> {
    if (this.started) throw new TypeError('an event subscription is iterated once');
    this.started = true;
    return this.run();
  }

  private streamUrl(): URL {
    const url = urlOf(this.transport.url, '/events');
    const { types, session, from } = this.options;
    if (types !== undefined)
      url.searchParams.set('types', typeof types === 'string' ? types : types.join(','));
    if (session !== undefined) url.searchParams.set('session', session);
    if (from !== undefined) url.searchParams.set('from', from);
    return url;
  }

  private async *run(): AsyncGenerator<StrataEvent, void, undefined> {
    const url = this.streamUrl();
    let failures = 0;
    try {
      while (!this.closer.signal.aborted) {
        const connection = new AbortController();
        const signal = AbortSignal.any([this.closer.signal, connection.signal]);
        let ended: Ended;
        let retryAfter: number | undefined;
        try {
          const response = await this.connect(url, signal);
          if (response.status !== 200) {
            const error = await this.refusal(response);
            if (!isTemporary(error.status)) throw error;
            retryAfter = error.retryAfterMs;
            ended = { kind: 'dropped', connected: false, error };
          } else {
            failures = 0;
            ended = yield* this.events(response, connection);
          }
        } catch (error) {
          if (this.closer.signal.aborted) return;
          if (error instanceof StrataApiError || error instanceof StrataProtocolError) throw error;
          ended = {
            kind: 'dropped',
            connected: false,
            error:
              error instanceof StrataClientError ? error : new StrataNetworkError('GET', '/events', error),
          };
        }
        if (this.closer.signal.aborted) return;
        failures += 1;
        const lastError = ended.kind === 'dropped' ? ended.error : undefined;
        if (this.options.maxReconnects !== undefined && failures > this.options.maxReconnects && lastError)
          throw lastError;
        const base = this.options.reconnectDelayMs ?? this.serverDelay ?? DEFAULT_RECONNECT_DELAY_MS;
        const bound = this.options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
        const delayMs = Math.min(bound, Math.max(base * 2 ** Math.min(failures - 1, 20), retryAfter ?? 0));
        this.options.onReconnect?.({
          attempt: failures,
          delayMs,
          lastEventId: this.current,
          error: lastError,
          connected: ended.kind === 'dropped' && ended.connected,
        });
        await sleep(delayMs, this.closer.signal);
      }
    } finally {
      this.closer.abort();
    }
  }

  private connect(url: URL, signal: AbortSignal): Promise<Response> {
    const headers = baseHeaders(this.transport);
    headers['accept'] = 'text/event-stream';
    if (this.current !== undefined) headers['last-event-id'] = this.current;
    return (this.transport.fetch ?? fetch)(url, { headers, signal });
  }

  private async refusal(response: Response): Promise<StrataApiError> {
    let text = '';
    try {
      text = await readBounded(response, MAX_ERROR_BODY_BYTES, 'GET /events');
    } catch {
      // an oversized or broken error body: the status says enough
    }
    return new StrataApiError(
      'GET',
      '/events',
      response.status,
      problemOf(response.status, text),
      retryAfterMs(response.headers.get('retry-after')),
    );
  }

  /** Yields the events of one connection; how it ended. */
  private async *events(
    response: Response,
    connection: AbortController,
  ): AsyncGenerator<StrataEvent, Ended, undefined> {
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.startsWith('text/event-stream') || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      throw new StrataProtocolError(
        `GET /events answered ${contentType || 'no content type'}, not an event stream`,
      );
    }
    const frames: EventFrame[] = [];
    const parser = new EventStreamParser(
      {
        onEvent: (frame) => frames.push(frame),
        onRetry: (milliseconds) => (this.serverDelay = milliseconds),
        ...(this.options.onComment !== undefined ? { onComment: this.options.onComment } : {}),
      },
      this.options.maxEventLength ?? DEFAULT_MAX_EVENT_LENGTH,
    );
    const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    let idle: NodeJS.Timeout | undefined;
    let wentIdle = false;
    const arm = (): void => {
      if (idleMs <= 0) return;
      clearTimeout(idle);
      idle = setTimeout(() => {
        wentIdle = true;
        connection.abort();
      }, idleMs);
    };
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    try {
      arm();
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (this.closer.signal.aborted) return { kind: 'closed' };
          const cause = wentIdle ? new Error(`nothing arrived for ${idleMs} ms`) : error;
          return { kind: 'dropped', connected: true, error: new StrataNetworkError('GET', '/events', cause) };
        }
        if (chunk.done) return { kind: 'dropped', connected: true };
        arm();
        parser.push(decoder.decode(chunk.value, { stream: true }));
        while (frames.length > 0) {
          const frame = frames.shift() as EventFrame;
          const event = eventOf(frame);
          // The frame's id is what Last-Event-ID resumes after; the data's id stands in for a missing one.
          if (frame.id !== undefined && EVENT_ID_PATTERN.test(frame.id)) this.current = frame.id;
          else if (EVENT_ID_PATTERN.test(event.id)) this.current = event.id;
          yield event;
          if (this.closer.signal.aborted) return { kind: 'closed' };
        }
      }
    } finally {
      clearTimeout(idle);
      connection.abort();
      await reader.cancel().catch(() => undefined);
    }
  }
}

function isTemporary(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** The public event a frame carries; anything else is a protocol error. */
function eventOf(frame: EventFrame): StrataEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(frame.data);
  } catch {
    throw new StrataProtocolError(`the event stream sent data that is not JSON: ${frame.data.slice(0, 200)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new StrataProtocolError(
      `the event stream sent data that is not an event: ${frame.data.slice(0, 200)}`,
    );
  }
  const event = parsed as Record<string, unknown>;
  if (typeof event['id'] !== 'string') {
    // An id the frame names stands in for one the data does not carry.
    return { ...event, id: frame.id ?? '' } as unknown as StrataEvent;
  }
  return event as unknown as StrataEvent;
}
