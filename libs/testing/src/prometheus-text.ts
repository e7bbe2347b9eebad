// Reading the Prometheus text exposition format (0.0.4) in tests: every `# HELP` and `# TYPE`
// line and every sample with its labels (escapes undone) and value. A line that is none of these
// fails the parse, so a test that reads an exposition also checks that it is well formed.

export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusExposition {
  /** The type each metric family declares (`counter`, `gauge`, `histogram`, `summary`, `untyped`). */
  readonly types: ReadonlyMap<string, string>;
  readonly help: ReadonlyMap<string, string>;
  readonly samples: readonly PrometheusSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const COMMENT_LINE = new RegExp(`^# (HELP|TYPE) (${NAME}) ?(.*)$`);
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL_PAIR = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function unescapeLabelValue(text: string): string {
  return text.replace(/\\(.)/g, (_whole, escaped: string) => (escaped === 'n' ? '\n' : escaped));
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const match = LABEL_PAIR.exec(rest);
    if (match === null) throw new Error(`malformed labels in: ${line}`);
    const [whole, name = '', value = ''] = match;
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`);
    labels[name] = unescapeLabelValue(value);
    rest = rest.slice(whole.length);
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  switch (text.toLowerCase()) {
    case '+inf':
      return Infinity;
    case '-inf':
      return -Infinity;
    case 'nan':
      return NaN;
    default: {
      const value = Number(text);
      if (text === '' || Number.isNaN(value)) throw new Error(`malformed value in: ${line}`);
      return value;
    }
  }
}

/** Reads an exposition; throws on the first line that is not well formed. */
export function parsePrometheusText(text: string): PrometheusExposition {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: PrometheusSample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const comment = COMMENT_LINE.exec(line);
    if (comment !== null) {
      const [, kind, name = '', rest = ''] = comment;
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`unknown type in: ${line}`);
        types.set(name, rest);
      } else help.set(name, rest);
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = SAMPLE_LINE.exec(line);
    if (sample === null) throw new Error(`not a sample: ${line}`);
    const [, name = '', labels, value = ''] = sample;
    samples.push({ name, labels: parseLabels(labels ?? '', line), value: parseValue(value, line) });
  }
  return { types, help, samples };
}

/** The samples named `name` whose labels include every one of `labels`. */
export function samplesOf(
  exposition: PrometheusExposition,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): PrometheusSample[] {
  return exposition.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
  );
}

/** The value of the one sample named `name` with exactly `labels`; undefined when there is none. */
export function sampleValue(
  exposition: PrometheusExposition,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  const wanted = Object.keys(labels).length;
  return samplesOf(exposition, name, labels).find((sample) => Object.keys(sample.labels).length === wanted)
    ?.value;
}
