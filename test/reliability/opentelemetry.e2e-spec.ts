// Issue 26, item 1, end to end: the engine process configured by the standard OTEL_* variables
// exports, to an OTLP/HTTP receiver on loopback, a server span per request that continues the
// caller's W3C trace, spans for the import, the append and the compaction and branch-summary
// attempts, a GenAI client span per call to a provider speaking Anthropic's API over real HTTP
// (a rate-limited try among them), and the GenAI metrics. Without an endpoint (or with
// OTEL_SDK_DISABLED=true) no OpenTelemetry package is loaded (not even the API, which the build
// requires lazily) and nothing is sent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { session, waitUntil } from '@strata/testing';
import { ProviderServer, anthropicMessage } from '../engine/provider-server';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';

jest.setTimeout(180_000);

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;
const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
const STATUS_ERROR = 2;

let directory: string;
let receiver: OtlpReceiver;
let engine: EngineProcess | undefined;

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'strata-otel-'));
  receiver = await OtlpReceiver.start();
});

afterEach(async () => {
  await engine?.kill('SIGKILL');
  engine = undefined;
  await receiver.close();
  rmSync(directory, { recursive: true, force: true });
});

async function send(path: string, body: string, contentType = 'application/json') {
  const response = await fetch(`${engine?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, traceparent: TRACEPARENT },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function only(spans: readonly ReceivedSpan[], what: string): ReceivedSpan {
  expect({ what, count: spans.length }).toEqual({ what, count: 1 });
  return spans[0]!;
}

describe('an engine with an OTLP endpoint, compacting through an Anthropic-speaking provider', () => {
  let provider: ProviderServer;

  beforeEach(async () => {
    provider = await ProviderServer.start();
    provider.script(
      '/v1/messages',
      {
        status: 429,
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
        headers: { 'retry-after': '0' },
      },
      anthropicMessage('Anthropic summary of the secret refactoring', 'claude-test-2026'),
    );
  });

  afterEach(() => provider.close());

  it('exports the caller-continued request spans, the attempt spans, the GenAI spans and metrics', async () => {
    engine = await startEngineProcess({
      directory,
      settings: {
        compaction: { keepRecentTokens: 250 },
        branchSummary: { enabled: true },
        summarizer: {
          candidates: [
            { provider: 'anthropic', model: 'claude-test', baseUrl: provider.origin, apiKeyEnv: 'TEST_KEY' },
          ],
          retry: { maxRetries: 1, baseDelayMs: 1 },
        },
      },
      environment: {
        TEST_KEY: 'test-key',
        STRATA_LOG_FORMAT: 'json',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'strata-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRIC_EXPORT_INTERVAL: '300',
      },
    });
    const imported = session({ sessionId: 'imported' }).editTurns(2);
    const file = [imported.header, ...imported.entries].map((line) => JSON.stringify(line)).join('\n');
    expect((await send('/sessions/import', file, 'application/x-ndjson')).status).toBe(201);
    const builder = session({ sessionId: 'traced' }).editTurns(6);
    expect((await send('/sessions', JSON.stringify({ sessionId: 'traced', cwd: '/work' }))).status).toBe(201);
    const appended = await send('/sessions/traced/entries', JSON.stringify({ entries: builder.entries }));
    expect(appended.status).toBe(200);
    const compacted = await send('/sessions/traced/compact', '{}');
    expect(compacted.body).toMatchObject({ outcome: 'completed', model: 'claude-test-2026' });
    const navigated = await send(
      '/sessions/traced/navigate',
      JSON.stringify({ targetId: builder.entries[5]!.id, summarize: true }),
    );
    expect(navigated.body).toMatchObject({ outcome: 'navigated' });

    const spanNamed = (name: string) => receiver.spans.filter((span) => span.name === name);
    await waitUntil(
      () =>
        spanNamed('POST /sessions/:sessionId/navigate').length > 0 &&
        spanNamed('branch summary attempt').length > 0,
      'the spans of the navigation reach the receiver',
      { timeoutMs: 30_000, detail: () => receiver.spans.map((span) => span.name).join(', ') },
    );

    // every request continues the caller's trace, as a SERVER span named by its route
    for (const route of [
      'POST /sessions/import',
      'POST /sessions',
      'POST /sessions/:sessionId/entries',
      'POST /sessions/:sessionId/compact',
    ]) {
      const server = only(spanNamed(route), route);
      expect(server).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID, kind: SPAN_KIND.server });
      expect(server.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': route.slice(5),
      });
    }
    const compactRequest = only(spanNamed('POST /sessions/:sessionId/compact'), 'compact request');
    expect(compactRequest.attributes).toMatchObject({
      'url.path': '/sessions/traced/compact',
      'http.response.status_code': 200,
    });
    expect(compactRequest.resource).toMatchObject({ 'service.name': 'strata-under-test' });

    const importSpan = only(spanNamed('import session'), 'import span');
    expect(importSpan).toMatchObject({ traceId: TRACE_ID, kind: SPAN_KIND.internal });
    expect(importSpan.parentSpanId).toBe(only(spanNamed('POST /sessions/import'), 'import request').spanId);
    expect(importSpan.attributes).toMatchObject({
      'strata.session.id': 'imported',
      'strata.import.outcome': 'imported',
    });
    const appendSpan = only(spanNamed('append entries'), 'append span');
    expect(appendSpan.attributes).toMatchObject({
      'strata.session.id': 'traced',
      'strata.entries.count': builder.entries.length,
    });

    // the compaction attempt is a child of its request; each summary call a GenAI CLIENT span in it
    const attempt = only(spanNamed('compaction attempt'), 'compaction attempt');
    expect(attempt).toMatchObject({ traceId: TRACE_ID, parentSpanId: compactRequest.spanId });
    expect(attempt.attributes).toMatchObject({
      'strata.session.id': 'traced',
      'strata.attempt.kind': 'compaction',
    });
    const calls = receiver.spans.filter((span) => span.parentSpanId === attempt.spanId);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call).toMatchObject({ name: 'chat claude-test', kind: SPAN_KIND.client, traceId: TRACE_ID });
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'server.address': '127.0.0.1',
      });
    }
    const [failed, ...others] = calls.filter((call) => call.status.code === STATUS_ERROR);
    expect(others).toHaveLength(0);
    expect(failed?.attributes['error.type']).toBe('rate_limited');
    expect(failed?.attributes['gen_ai.response.model']).toBeUndefined();
    const answered = calls.filter((call) => call.status.code !== STATUS_ERROR);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const call of answered) {
      expect(call.attributes).toMatchObject({
        'gen_ai.response.model': 'claude-test-2026',
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 30,
        'gen_ai.response.finish_reasons': ['stop'],
      });
    }
    // no prompt or summary text without the opt-in
    const everything = JSON.stringify(receiver.spans);
    expect(everything).not.toContain('secret refactoring');
    expect(everything).not.toContain('<conversation>');

    const branchAttempt = only(spanNamed('branch summary attempt'), 'branch summary attempt');
    expect(branchAttempt.parentSpanId).toBe(
      only(spanNamed('POST /sessions/:sessionId/navigate'), 'navigate').spanId,
    );
    expect(receiver.spans.filter((span) => span.parentSpanId === branchAttempt.spanId)).toContainEqual(
      expect.objectContaining({
        name: 'chat claude-test',
        attributes: expect.objectContaining({ 'strata.summary.purpose': 'branch' }),
      }),
    );

    // the retry's warning is logged with the trace and the attempt's span
    const warning = engine
      .stdout()
      .split('\n')
      .filter((line) => line.includes('failed (attempt 1'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warning[0]).toMatchObject({ level: 'warn', traceId: TRACE_ID, spanId: attempt.spanId });

    // the GenAI metrics, by token type
    await waitUntil(
      () => receiver.dataPoints.some((point) => point.metric === 'gen_ai.client.token.usage'),
      'the GenAI metrics reach the receiver',
      { timeoutMs: 30_000 },
    );
    const tokens = receiver.dataPoints.filter((point) => point.metric === 'gen_ai.client.token.usage');
    expect(tokens.every((point) => point.unit === '{token}')).toBe(true);
    const input = tokens.find((point) => point.attributes['gen_ai.token.type'] === 'input');
    expect(input?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.response.model': 'claude-test-2026',
    });
    expect(input?.sum).toBe(120 * (input?.count ?? 0));
    const durations = receiver.dataPoints.filter(
      (point) => point.metric === 'gen_ai.client.operation.duration',
    );
    expect(durations.every((point) => point.unit === 's')).toBe(true);
    expect(durations.map((point) => point.attributes['error.type'])).toContain('rate_limited');

    engine.child.kill('SIGTERM');
    expect(await engine.exited).toBe(0);
    engine = undefined;
  });
});

describe('an engine without an OTLP endpoint, or with the SDK disabled', () => {
  it.each([
    ['no endpoint', { OTEL_SERVICE_NAME: 'strata-quiet' }],
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: '' }],
  ])('loads nothing of the SDK and sends nothing (%s)', async (_case, otel) => {
    const probe = join(directory, 'loaded-modules.js');
    const loaded = join(directory, 'loaded-modules.json');
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const environment: Record<string, string> = { NODE_OPTIONS: `--require ${probe}`, ...otel };
    if (environment['OTEL_EXPORTER_OTLP_ENDPOINT'] === '')
      environment['OTEL_EXPORTER_OTLP_ENDPOINT'] = receiver.origin;
    engine = await startEngineProcess({ directory, environment });
    const response = await fetch(`${engine.url}/sessions`, { headers: { traceparent: TRACEPARENT } });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    engine.child.kill('SIGTERM');
    expect(await engine.exited).toBe(0);
    engine = undefined;

    const modules = JSON.parse(readFileSync(loaded, 'utf8')) as string[];
    expect(modules.some((module) => module.includes('/dist/apps/engine/src/main.js'))).toBe(true);
    // prom-client's process CPU counter requires the OpenTelemetry API (a no-op without an SDK) for
    // its exemplars; nothing else of OpenTelemetry may load: no SDK, exporter or instrumentation
    const loadedOtel = modules.filter((module) => module.includes('/node_modules/@opentelemetry/'));
    expect(loadedOtel.filter((module) => !module.includes('/node_modules/@opentelemetry/api/'))).toEqual([]);
    expect(receiver.requests).toEqual([]);
  });
});
