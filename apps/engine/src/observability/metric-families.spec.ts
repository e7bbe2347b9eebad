import { Registry } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily } from './metric-families';

describe('given a registry with a counter, a gauge and a histogram', () => {
  const registry = new Registry();
  const counter = new CounterFamily<'kind' | 'colour'>(registry, {
    name: 'strata_things_total',
    help: 'Things done.\nBy kind.',
    labelNames: ['kind', 'colour'],
  });
  const gauge = new GaugeFamily(registry, { name: 'strata_level', help: 'A level.' });
  const histogram = new HistogramFamily<'outcome'>(registry, {
    name: 'strata_seconds',
    help: 'Durations.',
    labelNames: ['outcome'],
    buckets: [0.1, 0.5, 1],
  });
  counter.increment({ kind: 'a "quoted" \\ kind', colour: 'red' });
  counter.increment({ colour: 'red', kind: 'b' }, 2);
  counter.increment({ kind: 'b', colour: 'red' });
  gauge.set({}, 7);
  histogram.observe({ outcome: 'ok' }, 0.05);
  histogram.observe({ outcome: 'ok' }, 0.7);
  histogram.observe({ outcome: 'ok' }, 3);

  it('renders the text format with escaped help and labels in the order of their names', async () => {
    expect(await registry.metrics()).toBe(
      [
        '# HELP strata_things_total Things done.\\nBy kind.',
        '# TYPE strata_things_total counter',
        'strata_things_total{colour="red",kind="a \\"quoted\\" \\\\ kind"} 1',
        'strata_things_total{colour="red",kind="b"} 3',
        '',
        '# HELP strata_level A level.',
        '# TYPE strata_level gauge',
        'strata_level 7',
        '',
        '# HELP strata_seconds Durations.',
        '# TYPE strata_seconds histogram',
        'strata_seconds_bucket{le="0.1",outcome="ok"} 1',
        'strata_seconds_bucket{le="0.5",outcome="ok"} 1',
        'strata_seconds_bucket{le="1",outcome="ok"} 2',
        'strata_seconds_bucket{le="+Inf",outcome="ok"} 3',
        'strata_seconds_sum{outcome="ok"} 3.75',
        'strata_seconds_count{outcome="ok"} 3',
        '',
      ].join('\n'),
    );
  });

  it('refuses a counter going down, a name used twice and an observation that is no number', () => {
    expect(() => counter.increment({ kind: 'b', colour: 'red' }, -1)).toThrow(/not possible to decrease/);
    expect(() => new GaugeFamily(registry, { name: 'strata_level', help: 'again' })).toThrow(
      /already been registered/,
    );
    expect(() => histogram.observe({ outcome: 'ok' }, NaN)).toThrow(/not a valid number/);
  });
});
