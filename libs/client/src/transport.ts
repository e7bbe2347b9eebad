// One HTTP exchange with the engine over Node's global fetch: the API key and actor headers, a
// time limit, a bounded answer, the problem document of an error, and retries with backoff
// (honouring Retry-After, bounded) for the calls that may be sent twice.
// What is tagged `@internal` is the client's own: the package's declarations leave it out
// (libs/client/build.js), so they name no DOM or Node type (Response, Headers, URL).
import {
  StrataApiError,
  StrataNetworkError,
  StrataProtocolError,
  StrataTimeoutError,
  type ProblemDocument,
} from './errors';
import type { ClientAbortSignal, ClientFetch } from './platform-types';

export interface RetryPolicy {
  /** Tries in all, the first included (1: no retry). Default 3. */
  readonly attempts?: number;
  /** The first delay; each next one doubles. Default 200 ms. */
  readonly baseDelayMs?: number;
  /** No delay is longer, Retry-After included. Default 10,000 ms. */
  readonly maxDelayMs?: number;
}

export interface TransportOptions {
  /** The engine, e.g. `http://localhost:3000` (a path prefix is kept). */
  readonly url: string;
  /** Sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: string;
  /** Sent as `X-Strata-Actor`: who the caller acts for (recorded in the audit). */
  readonly actor?: string;
  /** The time limit of one request (each try), in milliseconds. Default 30,000. */
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
  /** The largest answer body read, in bytes. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /** Another fetch (tests, proxies); the global one by default. */
  readonly fetch?: ClientFetch;
}

export interface CallOptions {
  /** Ends the call early (it rejects with the signal's reason). */
  readonly signal?: ClientAbortSignal;
  /** This call's time limit instead of the client's. */
  readonly timeoutMs?: number;
}

/** @internal */
export interface Exchange {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** The path and query, e.g. `/sessions/abc/context?format=llm`. */
  readonly path: string;
  readonly json?: unknown;
  readonly text?: { readonly body: string | Uint8Array; readonly contentType: string };
  /** Whether sending it twice does no harm (a read, or a write with an idempotency key). */
  readonly retryable: boolean;
  readonly accept?: string;
}

/** @internal */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const RETRYABLE_STATUSES = new Set([408, 429, 502, 503, 504]);
const MAX_DETAIL_CHARACTERS = 2_000;

/** The delay a `Retry-After` header asks for (seconds or an HTTP date), in milliseconds. @internal */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The engine's URL for `path`, keeping any path prefix of the base URL. @internal */
export function urlOf(base: string, path: string): URL {
  const root = new URL(base);
  if (root.protocol !== 'http:' && root.protocol !== 'https:')
    throw new TypeError(`the engine URL must be http or https, not ${root.protocol}`);
  const prefix = root.pathname.replace(/\/+$/, '');
  return new URL(`${root.origin}${prefix}${path}`);
}

/** @internal */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, milliseconds);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Reads a body up to `limit` bytes; more is a protocol error (the rest is not read). @internal */
export async function readBounded(response: Response, limit: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new StrataProtocolError(`${what}: the answer of ${declared} bytes is over the limit of ${limit}`);
  }
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      throw new StrataProtocolError(`${what}: the answer is over the limit of ${limit} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** The problem document of an error answer; a stand-in naming the status when it is not one. @internal */
export function problemOf(status: number, text: string): ProblemDocument {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const document = parsed as Record<string, unknown>;
      const code = typeof document['code'] === 'string' ? document['code'] : `http_${status}`;
      const detail =
        typeof document['detail'] === 'string' ? document['detail'] : text.slice(0, MAX_DETAIL_CHARACTERS);
      const reason = typeof document['reason'] === 'string' ? document['reason'] : undefined;
      return { ...document, status, code, detail, ...(reason !== undefined ? { reason } : {}) };
    }
  } catch {
    // not JSON: the text is the detail
  }
  return { status, code: `http_${status}`, detail: text.slice(0, MAX_DETAIL_CHARACTERS) };
}

/** The headers every request carries. @internal */
export function baseHeaders(options: TransportOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.apiKey !== undefined && options.apiKey !== '')
    headers['authorization'] = `Bearer ${options.apiKey}`;
  if (options.actor !== undefined && options.actor !== '') headers['x-strata-actor'] = options.actor;
  return headers;
}

/** The backoff before try `attempt + 1` (1-based): doubling, a little jitter, never over the bound. @internal */
export function backoffMs(attempt: number, policy: RetryPolicy, retryAfter: number | undefined): number {
  const base = policy.baseDelayMs ?? 200;
  const bound = policy.maxDelayMs ?? 10_000;
  const doubled = base * 2 ** Math.min(attempt - 1, 20);
  const jittered = doubled * (0.75 + Math.random() * 0.5);
  return Math.min(bound, Math.max(jittered, retryAfter ?? 0));
}

/** @internal */
export class Transport {
  constructor(readonly options: TransportOptions) {
    urlOf(options.url, '/');
  }

  /** Sends the exchange (retrying when it may); the answer of a 2xx status, else `StrataApiError`. */
  async send(exchange: Exchange, call: CallOptions = {}): Promise<Answer> {
    const attempts = exchange.retryable ? Math.max(1, this.options.retry?.attempts ?? 3) : 1;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.once(exchange, call);
      } catch (error) {
        call.signal?.throwIfAborted();
        if (attempt >= attempts || !isTransient(error)) throw error;
        const retryAfter = error instanceof StrataApiError ? error.retryAfterMs : undefined;
        await sleep(backoffMs(attempt, this.options.retry ?? {}, retryAfter), call.signal);
        call.signal?.throwIfAborted();
      }
    }
  }

  private async once(exchange: Exchange, call: CallOptions): Promise<Answer> {
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = call.signal !== undefined ? AbortSignal.any([call.signal, timeout]) : timeout;
    const headers = baseHeaders(this.options);
    headers['accept'] = exchange.accept ?? 'application/json';
    let body: string | Uint8Array | undefined;
    if (exchange.text !== undefined) {
      body = exchange.text.body;
      headers['content-type'] = exchange.text.contentType;
    } else if (exchange.json !== undefined) {
      body = JSON.stringify(exchange.json);
      headers['content-type'] = 'application/json';
    }
    const send = this.options.fetch ?? fetch;
    const limit = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const what = `${exchange.method} ${exchange.path}`;
    try {
      const response = await send(urlOf(this.options.url, exchange.path), {
        method: exchange.method,
        headers,
        signal,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await readBounded(response, limit, what);
      if (response.status >= 200 && response.status < 300)
        return { status: response.status, headers: response.headers, text };
      throw new StrataApiError(
        exchange.method,
        exchange.path,
        response.status,
        problemOf(response.status, text),
        retryAfterMs(response.headers.get('retry-after')),
      );
    } catch (error) {
      if (error instanceof StrataApiError || error instanceof StrataProtocolError) throw error;
      call.signal?.throwIfAborted();
      if (timeout.aborted) throw new StrataTimeoutError(exchange.method, exchange.path, timeoutMs);
      throw new StrataNetworkError(exchange.method, exchange.path, error);
    }
  }
}

/** Whether another try may succeed: no engine reached, a timeout, or a status that says "later". @internal */
export function isTransient(error: unknown): boolean {
  if (error instanceof StrataNetworkError || error instanceof StrataTimeoutError) return true;
  return error instanceof StrataApiError && RETRYABLE_STATUSES.has(error.status);
}
