import { MetricsRegistry } from './metrics-registry';

describe('given a registry with a counter, a gauge and a histogram', () => {
  const registry = new MetricsRegistry();
  const counter = registry.counter('strata_things_total', 'Things done.\nBy kind.', ['kind']);
  const gauge = registry.gauge('strata_level', 'A level.');
  const histogram = registry.histogram('strata_seconds', 'Durations.', ['outcome'], [0.5, 0.1, 1]);
  counter.increment({ kind: 'a "quoted" \\ kind' });
  counter.increment({ kind: 'b' }, 2);
  counter.increment({ kind: 'b' });
  gauge.set({}, 7);
  histogram.observe({ outcome: 'ok' }, 0.05);
  histogram.observe({ outcome: 'ok' }, 0.7);
  histogram.observe({ outcome: 'ok' }, 3);

  it('renders the Prometheus text format with escaped help and label values', () => {
    expect(registry.render()).toBe(
      [
        '# HELP strata_things_total Things done.\\nBy kind.',
        '# TYPE strata_things_total counter',
        'strata_things_total{kind="a \\"quoted\\" \\\\ kind"} 1',
        'strata_things_total{kind="b"} 3',
        '# HELP strata_level A level.',
        '# TYPE strata_level gauge',
        'strata_level 7',
        '# HELP strata_seconds Durations.',
        '# TYPE strata_seconds histogram',
        'strata_seconds_bucket{outcome="ok",le="0.1"} 1',
        'strata_seconds_bucket{outcome="ok",le="0.5"} 1',
        'strata_seconds_bucket{outcome="ok",le="1"} 2',
        'strata_seconds_bucket{outcome="ok",le="+Inf"} 3',
        'strata_seconds_sum{outcome="ok"} 3.75',
        'strata_seconds_count{outcome="ok"} 3',
        '',
      ].join('\n'),
    );
  });

  it('refuses wrong labels, a counter going down and a name used twice', () => {
    expect(() => counter.increment({ colour: 'red' })).toThrow(/takes the labels kind/);
    expect(() => counter.increment({ kind: 'b' }, -1)).toThrow(/only go up/);
    expect(() => registry.gauge('strata_level', 'again')).toThrow(/registered twice/);
    expect(() => registry.histogram('strata_bad', 'le', ['le'], [1])).toThrow(/invalid label name le/);
  });
});
