// Counters, gauges and histograms of prom-client, each registered in the registry given (never
// prom-client's global one) and typed by its label names: every sample names every label, so a
// call that forgets one does not compile. Labels are rendered in the alphabetical order of their
// names, whatever order a caller writes them in, so the exposition stays the same text.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type LabelSet<Name extends string> = Readonly<Record<Name, string>>;

interface FamilyDefinition<Name extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly Name[];
}

function sortedNames<Name extends string>(names: readonly Name[] | undefined): Name[] {
  return [...(names ?? [])].sort();
}

/** The labels as a new object whose keys follow `names` (prom-client renders them in key order). */
function ordered<Name extends string>(names: readonly Name[], labels: LabelSet<Name>): Record<Name, string> {
  const result = {} as Record<Name, string>;
  for (const name of names) result[name] = labels[name];
  return result;
}

export class CounterFamily<Name extends string = never> {
  private readonly names: Name[];
  private readonly counter: Counter<Name>;

  constructor(registry: Registry, definition: FamilyDefinition<Name>) {
    this.names = sortedNames(definition.labelNames);
    this.counter = new Counter({
      name: definition.name,
      help: definition.help,
      labelNames: this.names,
      registers: [registry],
    });
  }

  increment(labels: LabelSet<Name> = {} as LabelSet<Name>, by = 1): void {
    this.counter.inc(ordered(this.names, labels), by);
  }
}

export class GaugeFamily<Name extends string = never> {
  private readonly names: Name[];
  private readonly gauge: Gauge<Name>;

  constructor(registry: Registry, definition: FamilyDefinition<Name>) {
    this.names = sortedNames(definition.labelNames);
    this.gauge = new Gauge({
      name: definition.name,
      help: definition.help,
      labelNames: this.names,
      registers: [registry],
    });
  }

  set(labels: LabelSet<Name>, value: number): void {
    this.gauge.set(ordered(this.names, labels), value);
  }
}

export class HistogramFamily<Name extends string = never> {
  private readonly names: Name[];
  private readonly histogram: Histogram<Name>;

  constructor(
    registry: Registry,
    definition: FamilyDefinition<Name> & { readonly buckets: readonly number[] },
  ) {
    this.names = sortedNames(definition.labelNames);
    this.histogram = new Histogram({
      name: definition.name,
      help: definition.help,
      labelNames: this.names,
      buckets: [...definition.buckets],
      registers: [registry],
    });
  }

  observe(labels: LabelSet<Name>, value: number): void {
    this.histogram.observe(ordered(this.names, labels), value);
  }
}
