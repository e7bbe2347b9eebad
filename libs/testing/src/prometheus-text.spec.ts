import { parsePrometheusText, sampleValue, samplesOf } from './prometheus-text';

describe('given an exposition with escaped labels, special values and a histogram', () => {
  const exposition = parsePrometheusText(
    [
      '# HELP things_total Things.\\nDone.',
      '# TYPE things_total counter',
      'things_total{kind="a \\"quoted\\" \\\\ kind",other="x\\ny"} 3',
      'things_total{kind="b"} 1.5 1700000000000',
      '',
      '# TYPE level gauge',
      'level NaN',
      'level_max +Inf',
      '# TYPE seconds histogram',
      'seconds_bucket{le="0.5"} 1',
      'seconds_bucket{le="+Inf"} 2',
    ].join('\n'),
  );

  it('reads types, help, labels with their escapes undone, and values', () => {
    expect(exposition.types.get('things_total')).toBe('counter');
    expect(exposition.help.get('things_total')).toBe('Things.\\nDone.');
    expect(sampleValue(exposition, 'things_total', { kind: 'a "quoted" \\ kind', other: 'x\ny' })).toBe(3);
    expect(sampleValue(exposition, 'things_total', { kind: 'b' })).toBe(1.5);
    expect(sampleValue(exposition, 'level')).toBeNaN();
    expect(sampleValue(exposition, 'level_max')).toBe(Infinity);
    expect(samplesOf(exposition, 'seconds_bucket').map((sample) => sample.labels['le'])).toEqual([
      '0.5',
      '+Inf',
    ]);
  });

  it('finds a sample only with exactly the labels asked for', () => {
    expect(sampleValue(exposition, 'things_total', { other: 'x\ny' })).toBeUndefined();
    expect(samplesOf(exposition, 'things_total', { other: 'x\ny' })).toHaveLength(1);
  });
});

describe('given text that is not an exposition', () => {
  it.each([
    ['a sample without a value', 'things_total{kind="a"}'],
    ['unquoted label values', 'things_total{kind=a} 1'],
    ['a value that is no number', 'things_total 1x'],
    ['an unknown type', '# TYPE things_total countre'],
    ['a label named twice', 'things_total{kind="a",kind="b"} 1'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
