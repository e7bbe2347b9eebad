import { parsePrometheusText, sampleValue } from '@strata/testing';
import { EngineMetrics } from './engine-metrics.service';
import { ENGINE_VERSION } from '../shared/engine-version';

describe('given two engines in one process, on SQLite and on EventStoreDB', () => {
  const sqlite = new EngineMetrics({ store: 'sqlite' });
  const esdb = new EngineMetrics({ store: 'esdb' });
  sqlite.appends.increment({ result: 'ok' });
  sqlite.projectionLag.set(3n, 40n);
  esdb.projectionLag.set(512n, 1024n);

  it('keeps the counts of each in its own registry', async () => {
    const sqliteText = parsePrometheusText(await sqlite.render());
    const esdbText = parsePrometheusText(await esdb.render());
    expect(sampleValue(sqliteText, 'strata_appends_total', { result: 'ok' })).toBe(1);
    expect(sampleValue(esdbText, 'strata_appends_total', { result: 'ok' })).toBeUndefined();
    expect(esdbText.types.get('strata_appends_total')).toBe('counter');
  });

  it('reports the build with the kind of store', async () => {
    const build = { version: ENGINE_VERSION, node_version: process.version };
    const sqliteText = parsePrometheusText(await sqlite.render());
    const esdbText = parsePrometheusText(await esdb.render());
    expect(sampleValue(sqliteText, 'strata_build_info', { ...build, store: 'sqlite' })).toBe(1);
    expect(sampleValue(esdbText, 'strata_build_info', { ...build, store: 'esdb' })).toBe(1);
  });

  it('shows the same process metrics in both, under the names prom-client gives them', async () => {
    for (const engine of [sqlite, esdb]) {
      const exposition = parsePrometheusText(await engine.render());
      expect(exposition.types.get('process_cpu_seconds_total')).toBe('counter');
      expect(exposition.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
      expect(exposition.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
      expect(sampleValue(exposition, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(sampleValue(exposition, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    }
  });

  it('counts the lag in events on SQLite, and in log bytes on EventStoreDB', async () => {
    const sqliteText = parsePrometheusText(await sqlite.render());
    const esdbText = parsePrometheusText(await esdb.render());
    expect(sampleValue(sqliteText, 'strata_projection_lag_events')).toBe(3);
    expect(sampleValue(sqliteText, 'strata_projection_lag_bytes')).toBeUndefined();
    expect(sampleValue(esdbText, 'strata_projection_lag_bytes')).toBe(512);
    expect(sampleValue(esdbText, 'strata_projection_lag_events')).toBeUndefined();
    expect(sampleValue(esdbText, 'strata_projection_applied_position')).toBe(1024);
  });

  it('renders only the metrics a filter accepts', async () => {
    const shown = parsePrometheusText(await esdb.render((name) => name === esdb.projectionLag.lagName));
    expect(shown.samples.map((sample) => sample.name)).toEqual(['strata_projection_lag_bytes']);
  });

  it('reads an unknown lag as NaN', async () => {
    const other = new EngineMetrics({ store: 'other' });
    other.projectionLag.unknown();
    expect(
      sampleValue(parsePrometheusText(await other.render()), 'strata_projection_lag_positions'),
    ).toBeNaN();
  });
});
