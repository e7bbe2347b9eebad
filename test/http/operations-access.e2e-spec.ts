// End to end over real HTTP: what health, readiness and metrics tell callers without a valid API
// key when keys are configured (aggregate health only: nothing that counts the store's events),
// and the details a valid key gets. Status codes are those a load balancer reads either way.
import { session } from '@strata/testing';
import { ReadModels } from '../../apps/engine/src/read-side/read-models.service';
import { ALPHA_KEY, AUDITOR_KEY, TWO_TENANT_KEYS, startHttpEngine, type HttpHarness } from './http-harness';

const METRICS_TOKEN = 'prometheus-scrape-token-0123';

describe('given an engine with API keys, a metrics token and a session of tenant alpha', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS, STRATA_METRICS_TOKEN: METRICS_TOKEN },
    });
    const builder = session({ sessionId: 'counted' }).editTurns(3);
    await engine.seed(builder.header, builder.entries, ALPHA_KEY);
    await engine.request('GET', '/sessions/counted/context', { key: ALPHA_KEY });
    // Every read model (not only the context the read above waited for) holds every event.
    const readModels = engine.app.get(ReadModels);
    const head = await readModels.storeHead();
    if (head !== null) await readModels.runner.waitForPosition(head);
  });

  afterAll(() => engine.close());

  const anonymous: readonly { readonly name: string; readonly headers: Record<string, string> }[] = [
    { name: 'no key', headers: {} },
    { name: 'an unknown key', headers: { authorization: 'Bearer not-a-key-of-this-engine' } },
    { name: 'the metrics token as an API key header', headers: { 'x-api-key': METRICS_TOKEN } },
  ];

  for (const caller of anonymous) {
    it(`answers /ready with aggregate health only to a caller with ${caller.name}`, async () => {
      const ready = await engine.request('GET', '/ready', { headers: caller.headers });
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'ready',
        checks: { store: { ok: true }, projections: { ok: true, state: 'live', positionsBehind: '0' } },
      });
    });

    it(`answers /metrics with the health gauges only to a caller with ${caller.name}`, async () => {
      const metrics = await engine.request('GET', '/metrics', { headers: caller.headers });
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/^strata_projections_live 1$/m);
      expect(metrics.text).toMatch(/^strata_projection_lag_events 0$/m);
      for (const counted of [
        'strata_projection_applied_position',
        'strata_session_events_total',
        'strata_appended_events_total',
        'strata_appends_total',
        'strata_http_responses_total',
      ]) {
        expect(metrics.text).not.toContain(counted);
      }
    });
  }

  it('gives a valid key, read-only too, the positions in /ready and every metric', async () => {
    const ready = await engine.request('GET', '/ready', { key: AUDITOR_KEY });
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      checks: {
        store: { ok: true, detail: 'reachable' },
        projections: {
          ok: true,
          state: 'live',
          appliedPosition: expect.stringMatching(/^[1-9]\d*$/) as unknown,
          headPosition: expect.stringMatching(/^[1-9]\d*$/) as unknown,
          positionsBehind: '0',
        },
      },
    });
    const metrics = await engine.request('GET', '/metrics', { key: AUDITOR_KEY });
    expect(metrics.text).toMatch(/^strata_projection_applied_position [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^strata_appends_total\{result="ok"\} [1-9]\d*$/m);
  });

  it('gives the metrics token every metric, and nothing else of the API', async () => {
    const metrics = await engine.request('GET', '/metrics', { key: METRICS_TOKEN });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^strata_appends_total\{result="ok"\} [1-9]\d*$/m);
    expect((await engine.request('GET', '/sessions', { key: METRICS_TOKEN })).status).toBe(401);
    expect((await engine.request('GET', '/sessions/counted', { key: METRICS_TOKEN })).status).toBe(401);
    const ready = await engine.request('GET', '/ready', { key: METRICS_TOKEN });
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { store: { ok: true }, projections: { ok: true, state: 'live', positionsBehind: '0' } },
    });
  });
});
