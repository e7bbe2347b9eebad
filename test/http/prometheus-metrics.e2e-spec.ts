// End to end over real HTTP: what a Prometheus server scraping /metrics reads (issue 26 item 2).
// The exposition parses as the text format; it has prom-client's process and runtime metrics,
// the build, HTTP requests by route template (never a path a client sent), the summariser's
// calls, retries, errors and tokens by provider and model after a compaction through loopback
// providers, and the sagas' slots; a caller without a key gets the health gauges only, the
// metrics token and a tenant's key everything. An engine whose summariser is held shows its
// summary slots in use and queued. (On EventStoreDB: prometheus-metrics-esdb.e2e-spec.ts.)
import type { AttemptList } from '@strata/client';
import {
  ScriptedSummarizer,
  parsePrometheusText,
  sampleValue,
  samplesOf,
  session,
  type PrometheusExposition,
} from '@strata/testing';
import { ENGINE_VERSION } from '../../apps/engine/src/shared/engine-version';
import { ProviderServer, chatCompletion } from '../engine/provider-server';
import {
  ALPHA_KEY,
  TWO_TENANT_KEYS,
  startHttpEngine,
  turnOverThreshold,
  waitUntil,
  type HttpHarness,
} from './http-harness';

const METRICS_TOKEN = 'prometheus-scrape-token-0123';
const PROVIDER_MODEL = 'fake-summarizer-1-2026';

async function scrape(engine: HttpHarness, key?: string): Promise<PrometheusExposition> {
  const response = await engine.request('GET', '/metrics', key !== undefined ? { key } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(response.text);
}

describe('given an engine with keys, a metrics token, and a remote endpoint that fails before a candidate answers', () => {
  let server: ProviderServer;
  let engine: HttpHarness;
  const builder = session({ sessionId: 'scraped-1' }).editTurns(6);
  let providerHost: string;

  beforeAll(async () => {
    server = await ProviderServer.start();
    providerHost = new URL(server.origin).host;
    server.script('/summarize', { status: 503, body: { error: 'down' } });
    server.script('/v1/chat/completions', chatCompletion('## Goal\n- edit six modules', PROVIDER_MODEL));
    engine = await startHttpEngine({
      environment: {
        STRATA_API_KEYS: TWO_TENANT_KEYS,
        STRATA_METRICS_TOKEN: METRICS_TOKEN,
        STRATA_SAGA_CONCURRENCY: '3',
      },
      summarizerEnvironment: { LOCAL_KEY: 'local-key' },
      settings: {
        compaction: { keepRecentTokens: 250, remoteEndpoint: `${server.origin}/summarize` },
        summarizer: {
          candidates: [
            {
              provider: 'openai-compatible',
              model: 'configured-name',
              baseUrl: `${server.origin}/v1`,
              apiKeyEnv: 'LOCAL_KEY',
            },
          ],
          retry: { maxRetries: 1, baseDelayMs: 1 },
        },
      },
    });
    await engine.seed(builder.header, builder.entries, ALPHA_KEY);
    const compacted = await engine.request('POST', '/sessions/scraped-1/compact', {
      key: ALPHA_KEY,
      body: { attemptId: 'scraped-attempt' },
    });
    expect(compacted.body).toMatchObject({ outcome: 'completed', model: PROVIDER_MODEL });
  });

  afterAll(async () => {
    await engine.close();
    await server.close();
  });

  it('reports the process and runtime metrics under the names prom-client gives them, and the build', async () => {
    const exposition = await scrape(engine, METRICS_TOKEN);
    expect(sampleValue(exposition, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(exposition.types.get('process_cpu_seconds_total')).toBe('counter');
    expect(sampleValue(exposition, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(exposition.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(sampleValue(exposition, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(exposition, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(exposition.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
    expect(
      sampleValue(exposition, 'strata_build_info', {
        version: ENGINE_VERSION,
        node_version: process.version,
        store: 'sqlite',
      }),
    ).toBe(1);
  });

  it('labels HTTP requests by the route that served them, and every unknown path as unmatched', async () => {
    expect((await engine.request('GET', '/sessions/scraped-1/context', { key: ALPHA_KEY })).status).toBe(200);
    expect((await engine.request('GET', '/no/such/path/scraped-1', { key: ALPHA_KEY })).status).toBe(404);
    const exposition = await scrape(engine, METRICS_TOKEN);
    const requests = (labels: Record<string, string>) =>
      sampleValue(exposition, 'strata_http_requests_total', labels) ?? 0;
    expect(
      requests({ method: 'POST', route: '/sessions/:sessionId/entries', status: '200' }),
    ).toBeGreaterThan(0);
    expect(requests({ method: 'POST', route: '/sessions/:sessionId/compact', status: '200' })).toBe(1);
    expect(requests({ method: 'GET', route: '/sessions/:sessionId/context', status: '200' })).toBeGreaterThan(
      0,
    );
    expect(requests({ method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThan(0);
    const routes = new Set(
      [
        ...samplesOf(exposition, 'strata_http_requests_total'),
        ...samplesOf(exposition, 'strata_http_request_duration_seconds_count'),
      ].map((sample) => sample.labels['route']),
    );
    expect(routes.has('/sessions/:sessionId/context')).toBe(true);
    for (const route of routes) expect(route).not.toContain('scraped-1');
    // The first HTTP metrics keep their labels.
    expect(
      sampleValue(exposition, 'strata_http_responses_total', { method: 'POST', status: '200' }),
    ).toBeGreaterThan(0);
  });

  it('counts the summariser calls, retries, errors and tokens by provider and model', async () => {
    const attempts = (
      (await engine.request('GET', '/sessions/scraped-1/attempts', { key: ALPHA_KEY })).body as AttemptList
    ).items;
    const calls = attempts.find((attempt) => attempt.attemptId === 'scraped-attempt')?.summaryCalls ?? [];
    const answered = calls.filter((call) => call.error === null).length;
    expect(answered).toBeGreaterThan(0);
    expect(calls).toHaveLength(3 * answered);

    const exposition = await scrape(engine, METRICS_TOKEN);
    const remote = { provider: 'remote-endpoint', model: 'unknown' };
    const candidate = { provider: 'openai-compatible', model: PROVIDER_MODEL };
    expect(sampleValue(exposition, 'strata_summarizer_calls_total', remote)).toBe(2 * answered);
    expect(sampleValue(exposition, 'strata_summarizer_retries_total', remote)).toBe(answered);
    expect(
      sampleValue(exposition, 'strata_summarizer_errors_total', { ...remote, code: 'server_error' }),
    ).toBe(2 * answered);
    expect(sampleValue(exposition, 'strata_summarizer_calls_total', candidate)).toBe(answered);
    expect(sampleValue(exposition, 'strata_summarizer_retries_total', candidate)).toBeUndefined();
    expect(sampleValue(exposition, 'strata_summarizer_tokens_total', { ...candidate, type: 'input' })).toBe(
      100 * answered,
    );
    expect(sampleValue(exposition, 'strata_summarizer_tokens_total', { ...candidate, type: 'output' })).toBe(
      20 * answered,
    );
    expect(sampleValue(exposition, 'strata_summarizer_call_duration_seconds_count', candidate)).toBe(
      answered,
    );
    // The provider's address is never a label value.
    for (const sample of exposition.samples) {
      for (const value of Object.values(sample.labels)) expect(value).not.toContain(providerHost);
    }
  });

  it('reports the sagas’ slots and, at rest, none in use or queued', async () => {
    let exposition = await scrape(engine, METRICS_TOKEN);
    await waitUntil(async () => {
      exposition = await scrape(engine, METRICS_TOKEN);
      return sampleValue(exposition, 'strata_saga_slots_in_use') === 0;
    }, 'the sagas are idle');
    expect(sampleValue(exposition, 'strata_saga_slots')).toBe(12);
    expect(sampleValue(exposition, 'strata_saga_events_queued')).toBe(0);
    expect(sampleValue(exposition, 'strata_summary_slots')).toBe(3);
    expect(sampleValue(exposition, 'strata_summary_slots_in_use')).toBe(0);
    expect(sampleValue(exposition, 'strata_summary_slots_queued')).toBe(0);
  });

  it('gives a caller without a key the health gauges only', async () => {
    const callers: readonly Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-a-key' },
      { 'x-api-key': METRICS_TOKEN },
    ];
    for (const headers of callers) {
      const response = await engine.request('GET', '/metrics', { headers });
      expect(response.status).toBe(200);
      const exposition = parsePrometheusText(response.text);
      expect(new Set(exposition.samples.map((sample) => sample.name))).toEqual(
        new Set(['strata_projections_live', 'strata_projection_lag_events']),
      );
    }
  });

  it('gives the metrics token and a tenant’s key every metric, and the token nothing else', async () => {
    for (const key of [METRICS_TOKEN, ALPHA_KEY]) {
      const exposition = await scrape(engine, key);
      expect(sampleValue(exposition, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(samplesOf(exposition, 'strata_summarizer_calls_total').length).toBeGreaterThan(0);
      expect(samplesOf(exposition, 'strata_build_info')).toHaveLength(1);
    }
    expect((await engine.request('GET', '/sessions/scraped-1', { key: METRICS_TOKEN })).status).toBe(401);
  });
});

describe('given an engine with one summary slot and a summariser that holds its answers', () => {
  const summarizer = new ScriptedSummarizer();
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      summarizers: [summarizer],
      environment: { STRATA_SAGA_CONCURRENCY: '1' },
      settings: {
        compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
        models: { defaultContextWindow: 10000 },
      },
    });
  });

  afterAll(async () => {
    summarizer.release();
    await engine.close();
  });

  it('shows one summary in its slot and one waiting for it, then none once the summariser answers', async () => {
    summarizer.hold();
    for (const sessionId of ['slot-1', 'slot-2']) {
      const builder = session({ sessionId }).editTurns(6);
      await engine.seed(builder.header, builder.entries);
      const appended = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: turnOverThreshold(sessionId, builder.lastId) },
      });
      expect(appended.status).toBe(200);
    }
    const gauges = async () => {
      const exposition = await scrape(engine);
      return [
        sampleValue(exposition, 'strata_summary_slots_in_use'),
        sampleValue(exposition, 'strata_summary_slots_queued'),
        sampleValue(exposition, 'strata_saga_slots_in_use'),
      ];
    };
    await waitUntil(async () => {
      const [inUse, queued, sagaSlots] = await gauges();
      return inUse === 1 && queued === 1 && sagaSlots === 2;
    }, 'one summary runs and one waits, each session in a saga slot');
    expect(sampleValue(await scrape(engine), 'strata_summary_slots')).toBe(1);

    summarizer.release();
    await waitUntil(async () => {
      const exposition = await scrape(engine);
      return (
        sampleValue(exposition, 'strata_compactions_total', {
          trigger: 'threshold',
          outcome: 'completed',
        }) === 2
      );
    }, 'both automatic compactions completed');
    await waitUntil(
      async () => (await gauges()).every((value) => value === 0),
      'no summary slot in use or queued, no saga slot in use',
    );
  });
});
