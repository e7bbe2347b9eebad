// End to end over real HTTP: the documentation (self-contained page and OpenAPI document,
// every documented operation served), readiness and the Prometheus metrics.
import { session } from '@strata/testing';
import { startHttpEngine, waitUntil, type HttpHarness } from './http-harness';

describe('given a running engine', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings: { compaction: { keepRecentTokens: 250 } } });
  });

  afterAll(() => engine.close());

  it('serves a self-contained documentation page with the OpenAPI document embedded', async () => {
    const page = await engine.request('GET', '/docs');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('"openapi":"3.1.0"');
    expect(page.text).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
    expect(page.text).toContain('id="problem-payload_too_large"');
    expect(page.text).toContain('<code>auto_compaction_end</code>');
  });

  it('serves every operation the OpenAPI document describes', async () => {
    const document = (await engine.request('GET', '/docs/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const paths = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map(
        (method) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'undocumented-id')] as const,
      ),
    );
    expect(paths.length).toBeGreaterThan(20);
    for (const [method, path] of paths) {
      if (path === '/events') continue;
      const response = await engine.request(method, path, method === 'POST' ? { body: {} } : {});
      expect({
        method,
        path,
        detail: (response.body as { detail?: string } | undefined)?.detail,
      }).not.toEqual({
        method,
        path,
        detail: 'no such resource',
      });
    }
  });

  it('is ready once the projections follow the store, and reports how far behind they are', async () => {
    const ready = await engine.request('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      checks: { store: { ok: true }, projections: { ok: true, state: 'live', positionsBehind: '0' } },
    });
  });

  it('counts appends and compactions by outcome in the Prometheus metrics', async () => {
    const builder = session({ sessionId: 'metrics-1' }).editTurns(4);
    await engine.seed(builder.header, builder.entries);
    await engine.request('POST', '/sessions/metrics-1/compact', { body: {} });
    await engine.request('POST', '/sessions/metrics-1/compact', { body: { trigger: 'threshold' } });
    await engine.request('GET', '/sessions/metrics-1/context');

    // The compaction counters and the lag follow the store's subscription: wait until it has
    // delivered both outcomes and every read model has written what it applied.
    const settled = (text: string): boolean =>
      text.includes('trigger="threshold"} 1') && /^strata_projection_lag_events 0$/m.test(text);
    let metrics = await engine.request('GET', '/metrics');
    await waitUntil(async () => {
      metrics = await engine.request('GET', '/metrics');
      return settled(metrics.text);
    }, 'the metrics count the threshold compaction and show no projection lag');
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metrics.text).toMatch(/^strata_appends_total\{result="ok"\} [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^strata_session_events_total\{type="EntryAppended"\} \d+$/m);
    expect(metrics.text).toContain('strata_compactions_total{outcome="completed",trigger="manual"} 1');
    expect(metrics.text).toContain('strata_compactions_total{outcome="skipped",trigger="threshold"} 1');
    expect(metrics.text).toMatch(
      /^strata_compaction_duration_seconds_count\{outcome="completed",trigger="manual"\} 1$/m,
    );
    expect(metrics.text).toMatch(/^strata_projection_lag_events 0$/m);
    expect(metrics.text).toMatch(/^strata_projections_live 1$/m);
    expect(metrics.text).toMatch(/^strata_http_responses_total\{method="POST",status="200"\} \d+$/m);
  });
});
