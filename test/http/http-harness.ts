// End-to-end harness for the HTTP faces: the whole engine (AppModule) listening on a loopback
// port, configured through `loadEngineConfig` like `npm start`, with its SQLite store and
// projection tables in a temporary directory. Requests go over real HTTP on kept-alive
// connections, sent again when the engine closed a reused one before answering.
import { Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore, RecordedEvent } from '@strata/event-store';
import type { ProjectionStorage } from '@strata/projections';
import type { Summarizer } from '@strata/summarizer';
import { sessionStreamName, type SessionEntry, type SessionHeader } from '@strata/session';
import { session, waitUntil as waitUntilCondition } from '@strata/testing';
import { loadEngineConfig, type EngineConfig } from '../../apps/engine/src/config/engine-config';
import { createEngineApplication } from '../../apps/engine/src/engine-application';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import { ReadModels } from '../../apps/engine/src/read-side/read-models.service';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import type { Clock } from '../../apps/engine/src/shared/clock';
import { sendWithStaleSocketRetry } from './keep-alive-request';
import {
  forgetEngineOrigin,
  recordApiResponse,
  registerEngineOrigin,
} from './openapi-conformance/conformance-recorder';

export const ALPHA_KEY = 'alpha-key-0123456789abcdef';
export const BETA_KEY = 'beta-key-0123456789abcdef0';
export const AUDITOR_KEY = 'alpha-auditor-0123456789ab';
/** Two tenants, and a read-only key of the first. */
export const TWO_TENANT_KEYS = `alpha:${ALPHA_KEY},beta:${BETA_KEY},alpha:${AUDITOR_KEY}:read`;

export interface HttpHarnessOptions {
  /** Extra environment (STRATA_API_KEYS, limits…). */
  readonly environment?: Readonly<Record<string, string>>;
  readonly summarizers?: readonly Summarizer[];
  readonly settings?: EngineSettingsInput;
  /** Reuse a directory (and so the store) of an earlier harness. */
  readonly directory?: string;
  /** Listen on this port (to restart an engine where a client expects it). */
  readonly port?: number;
  /** Projection storage to use instead of the tables beside the store (the caller closes it). */
  readonly projectionStorage?: ProjectionStorage;
  /** The variables the settings' summarisers read their keys and auth values from (none by default). */
  readonly summarizerEnvironment?: Readonly<Record<string, string>>;
  /**
   * Whether `startHttpEngine` resolves only once the read models have caught up with the store
   * (true by default, as a deployment waits for /ready); false to watch the catch-up itself.
   */
  readonly waitUntilCaughtUp?: boolean;
  /** The engine's clock (the system's by default). */
  readonly clock?: Clock;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly body: unknown;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** A raw body sent as is (with `contentType`). */
  readonly rawBody?: string;
  readonly contentType?: string;
  readonly key?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpHarness {
  readonly app: INestApplication;
  readonly config: EngineConfig;
  readonly url: string;
  readonly port: number;
  readonly directory: string;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Starts a session and appends its entries through the API; fails the test on any error. */
  seed(header: SessionHeader, entries: readonly SessionEntry[], key?: string): Promise<void>;
  /** Closes the engine; the directory is kept when `keepDirectory`. */
  close(options?: { readonly keepDirectory?: boolean }): Promise<void>;
}

export async function startHttpEngine(options: HttpHarnessOptions = {}): Promise<HttpHarness> {
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'strata-http-'));
  const config = loadEngineConfig(
    {
      STRATA_STORE: `sqlite:${join(directory, 'strata.db')}`,
      STRATA_LOG_LEVEL: process.env['STRATA_TEST_LOG'] ?? 'silent',
      STRATA_SSE_HEARTBEAT_MS: '250',
      ...options.environment,
    },
    directory,
  );
  const app = await createEngineApplication(config, {
    environment: options.summarizerEnvironment ?? {},
    settings: { tokenizer: 'chars4', ...options.settings },
    ...(options.summarizers !== undefined ? { summarizers: options.summarizers } : {}),
    ...(options.projectionStorage !== undefined ? { projectionStorage: options.projectionStorage } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
  await app.listen(options.port ?? 0, '127.0.0.1');
  if (options.waitUntilCaughtUp !== false) await app.get(ReadModels).runner.whenCaughtUp();
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const port = Number(new URL(url).port);
  registerEngineOrigin(url);
  // Connections are kept alive, as a real client keeps them; one the engine closes as idle while
  // a request goes out on it is retried (see keep-alive-request.ts).
  const agent = new Agent({ keepAlive: true });

  async function request(
    method: string,
    path: string,
    requestOptions: RequestOptions = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...requestOptions.headers };
    if (requestOptions.key !== undefined) headers['authorization'] = `Bearer ${requestOptions.key}`;
    let body: string | undefined;
    if (requestOptions.rawBody !== undefined) {
      body = requestOptions.rawBody;
      if (requestOptions.contentType !== undefined) headers['content-type'] = requestOptions.contentType;
    } else if (requestOptions.body !== undefined) {
      body = JSON.stringify(requestOptions.body);
      headers['content-type'] = requestOptions.contentType ?? 'application/json';
    }
    const response = await sendWithStaleSocketRetry(agent, {
      method,
      url: `${url}${path}`,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = response.text;
    recordApiResponse({
      method,
      target: path,
      status: response.status,
      contentType: response.headers.get('content-type') ?? undefined,
      body: text,
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  return {
    app,
    config,
    url,
    port,
    directory,
    request,
    async seed(header, entries, key) {
      const started = await request('POST', '/sessions', {
        body: { sessionId: header.id, cwd: header.cwd },
        ...(key !== undefined ? { key } : {}),
      });
      if (started.status !== 201) throw new Error(`start answered ${started.status}: ${started.text}`);
      if (entries.length === 0) return;
      const appended = await request('POST', `/sessions/${header.id}/entries`, {
        body: { entries },
        ...(key !== undefined ? { key } : {}),
      });
      if (appended.status !== 200) throw new Error(`append answered ${appended.status}: ${appended.text}`);
    },
    async close(closeOptions = {}) {
      agent.destroy();
      forgetEngineOrigin(url);
      await app.close();
      if (closeOptions.keepDirectory !== true && options.directory === undefined) {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

/** The problem document of an error response (checks the media type). */
export function problemOf(
  response: ApiResponse,
): { code: string; status: number; detail: string } & Record<string, unknown> {
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${contentType}: ${response.text}`);
  }
  return response.body as { code: string; status: number; detail: string } & Record<string, unknown>;
}

/**
 * Starts a session of four edit turns and compacts it through the API (one `session_compact`);
 * the compaction entry's id. Fails unless the compaction completes.
 */
export async function compactOne(
  engine: HttpHarness,
  sessionId: string,
  options: { readonly key?: string; readonly trigger?: 'manual' | 'threshold' } = {},
): Promise<string> {
  const builder = session({ sessionId }).editTurns(4);
  await engine.seed(builder.header, builder.entries, options.key);
  const result = await engine.request('POST', `/sessions/${sessionId}/compact`, {
    body: options.trigger !== undefined ? { trigger: options.trigger } : {},
    ...(options.key !== undefined ? { key: options.key } : {}),
  });
  const body = result.body as { outcome: string; entry: { id: string } };
  if (body.outcome !== 'completed') throw new Error(`compaction ${result.text}`);
  return body.entry.id;
}

/** The events of a session's stream as the engine's store holds them (metadata included). */
export async function storedEventsOf(
  engine: HttpHarness,
  sessionId: string,
  type?: string,
): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of engine.app.get<EventStore>(EVENT_STORE).readStream(sessionStreamName(sessionId)))
    if (type === undefined || event.type === type) events.push(event);
  return events;
}

/**
 * A user turn whose answer reports a context of 8,500 tokens, attached under `parentId`: over
 * the threshold of an engine with a 10,000-token window and 2,000 reserved, so the sagas compact.
 */
export function turnOverThreshold(sessionId: string, parentId: string): SessionEntry[] {
  const next = session({ sessionId, idPrefix: 'n' })
    .user('Next step')
    .assistant('Answer.', {
      usage: { input: 8400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8500 },
    });
  return next.entries.map((entry, index) => (index === 0 ? { ...entry, parentId } : entry));
}

/** Polls `check` every 50 ms until it holds; fails naming `what` after `timeoutMs`. */
export function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  return waitUntilCondition(check, what, { timeoutMs, intervalMs: 50 });
}
