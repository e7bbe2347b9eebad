// A small metrics registry rendering the Prometheus text exposition format (version 0.0.4):
// counters, gauges and histograms with labels. Written here rather than pulled in as a
// dependency; it covers what the engine reports and nothing more.

export type Labels = Readonly<Record<string, string>>;

const METRIC_NAME_PATTERN = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  return String(value);
}

function labelText(labels: Labels, extra?: readonly [string, string]): string {
  const pairs = Object.entries(labels).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  if (extra !== undefined) pairs.push([extra[0], extra[1]]);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

abstract class Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (!METRIC_NAME_PATTERN.test(name)) throw new Error(`invalid metric name ${name}`);
    for (const label of labelNames) {
      if (!LABEL_NAME_PATTERN.test(label) || label === 'le') throw new Error(`invalid label name ${label}`);
    }
  }

  abstract readonly type: 'counter' | 'gauge' | 'histogram';

  protected keyOf(labels: Labels): string {
    const given = Object.keys(labels).sort();
    const expected = [...this.labelNames].sort();
    if (given.length !== expected.length || given.some((name, index) => name !== expected[index])) {
      throw new Error(
        `metric ${this.name} takes the labels ${expected.join(', ') || '(none)'}, not ${given.join(', ')}`,
      );
    }
    return JSON.stringify(expected.map((name) => labels[name]));
  }

  render(): string {
    const header = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${this.type}\n`;
    return (
      header +
      this.samples()
        .map((line) => `${line}\n`)
        .join('')
    );
  }

  protected abstract samples(): string[];
}

export class Counter extends Metric {
  readonly type = 'counter';
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  increment(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`counter ${this.name} can only go up`);
    const key = this.keyOf(labels);
    const current = this.values.get(key);
    if (current === undefined) this.values.set(key, { labels: { ...labels }, value: by });
    else current.value += by;
  }

  value(labels: Labels = {}): number {
    return this.values.get(this.keyOf(labels))?.value ?? 0;
  }

  protected samples(): string[] {
    return [...this.values.values()].map(
      ({ labels, value }) => `${this.name}${labelText(labels)} ${formatNumber(value)}`,
    );
  }
}

export class Gauge extends Metric {
  readonly type = 'gauge';
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  set(labels: Labels, value: number): void {
    this.values.set(this.keyOf(labels), { labels: { ...labels }, value });
  }

  value(labels: Labels = {}): number | undefined {
    return this.values.get(this.keyOf(labels))?.value;
  }

  protected samples(): string[] {
    return [...this.values.values()].map(
      ({ labels, value }) => `${this.name}${labelText(labels)} ${formatNumber(value)}`,
    );
  }
}

interface HistogramSeries {
  readonly labels: Labels;
  readonly counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Metric {
  readonly type = 'histogram';
  private readonly series = new Map<string, HistogramSeries>();
  readonly buckets: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.buckets = [...buckets].sort((left, right) => left - right);
  }

  observe(labels: Labels, value: number): void {
    const key = this.keyOf(labels);
    let series = this.series.get(key);
    if (series === undefined) {
      series = { labels: { ...labels }, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    this.buckets.forEach((bound, index) => {
      if (value <= bound) series.counts[index] = (series.counts[index] ?? 0) + 1;
    });
    series.sum += value;
    series.count += 1;
  }

  protected samples(): string[] {
    const lines: string[] = [];
    for (const series of this.series.values()) {
      this.buckets.forEach((bound, index) => {
        lines.push(
          `${this.name}_bucket${labelText(series.labels, ['le', formatNumber(bound)])} ${series.counts[index] ?? 0}`,
        );
      });
      lines.push(`${this.name}_bucket${labelText(series.labels, ['le', '+Inf'])} ${series.count}`);
      lines.push(`${this.name}_sum${labelText(series.labels)} ${formatNumber(series.sum)}`);
      lines.push(`${this.name}_count${labelText(series.labels)} ${series.count}`);
    }
    return lines;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.add(new Gauge(name, help, labelNames));
  }

  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ): Histogram {
    return this.add(new Histogram(name, help, labelNames, buckets));
  }

  /** Every metric (or those whose name `shown` accepts) in the exposition format, in registration order. */
  render(shown: (name: string) => boolean = () => true): string {
    return [...this.metrics.values()]
      .filter((metric) => shown(metric.name))
      .map((metric) => metric.render())
      .join('');
  }

  private add<Kind extends Metric>(metric: Kind): Kind {
    if (this.metrics.has(metric.name)) throw new Error(`metric ${metric.name} is registered twice`);
    this.metrics.set(metric.name, metric);
    return metric;
  }
}
