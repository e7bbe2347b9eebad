// End to end over real HTTP on EventStoreDB (through the protocol test server): the engine counts
// its projection lag in bytes of the node's transaction log, which is what a commit position
// measures, under a name that says so (`strata_projection_lag_bytes`), and reports no lag in
// events; its build info names the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parsePrometheusText,
  sampleValue,
  samplesOf,
  session,
  startEsdbTestServer,
  type EsdbTestServer,
} from '@strata/testing';
import { startHttpEngine, waitUntil, type HttpHarness } from './http-harness';

async function scrape(engine: HttpHarness) {
  const response = await engine.request('GET', '/metrics');
  expect(response.status).toBe(200);
  return parsePrometheusText(response.text);
}

describe('given an engine on EventStoreDB', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-metrics-esdb-'));
  let server: EsdbTestServer;
  let engine: HttpHarness;

  beforeAll(async () => {
    server = await startEsdbTestServer();
    engine = await startHttpEngine({
      directory,
      environment: {
        STRATA_STORE: server.connectionString,
        STRATA_PROJECTIONS_DB: join(directory, 'projections.db'),
      },
    });
    const builder = session({ sessionId: 'esdb-scraped' }).editTurns(2);
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(async () => {
    await engine.close();
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('counts the projection lag in log bytes, has no lag in events, and names the store in the build', async () => {
    let exposition = await scrape(engine);
    await waitUntil(async () => {
      exposition = await scrape(engine);
      return sampleValue(exposition, 'strata_projection_lag_bytes') === 0;
    }, 'the projections have caught up');
    expect(samplesOf(exposition, 'strata_projection_lag_events')).toEqual([]);
    expect(exposition.types.get('strata_projection_lag_bytes')).toBe('gauge');
    expect(sampleValue(exposition, 'strata_projection_applied_position')).toBeGreaterThan(0);
    expect(samplesOf(exposition, 'strata_build_info', { store: 'esdb' })).toHaveLength(1);
  });
});
