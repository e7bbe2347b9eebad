// What a benchmark suite is, what it returns, and the comparisons drawn from its cases.
import type { CaseResult, CaseRole, MeasureSettings } from './measure';
import type { MachineDescription } from './machine';
import type { Progress } from './progress';

export interface SuiteContext {
  /** Smaller data sets and fewer iterations, for a smoke run. */
  readonly quick: boolean;
  readonly progress: Progress;
  /** Default iteration settings (a case may use its own). */
  readonly settings: MeasureSettings;
  /** Where temporary files (databases) may be written; removed after the suite. */
  readonly scratchDirectory: string;
}

/** One bar of a figure group: a value that is not a timing (bytes held, a latency percentile). */
export interface FigureRow {
  readonly label: string;
  readonly role: CaseRole;
  readonly value: number;
  /** How the value is shown (for instance `2.5 kB/entry (252 MB)`); the bare value otherwise. */
  readonly display?: string;
}

/**
 * Figures measured next to a baseline that are not iteration times: drawn in the suite's chart
 * after the timed groups and listed in SUMMARY.md. Compared with the group's first baseline.
 */
export interface FigureGroup {
  readonly title: string;
  /** The unit of `value` (`bytes/entry`, `ms`). */
  readonly unit: string;
  /** Whether a smaller value is the better one (memory, latency). */
  readonly lowerIsBetter: boolean;
  readonly rows: readonly FigureRow[];
  /** False when a table of the suite already lists these figures (chart only). Default true. */
  readonly inSummary?: boolean;
}

/** A table for SUMMARY.md only (cells already formatted). */
export interface SummaryTable {
  readonly title: string;
  readonly columns: readonly string[];
  /** Columns whose cells are right-aligned (numbers). */
  readonly numericColumns?: readonly number[];
  readonly rows: readonly (readonly string[])[];
}

export interface SuiteOutcome {
  readonly cases: readonly CaseResult[];
  /** Cases skipped and why, caveats seen during the run. */
  readonly notices: readonly string[];
  /** Facts about the data sets (sizes, message counts, retained memory). */
  readonly facts: Readonly<Record<string, unknown>>;
  readonly figures?: readonly FigureGroup[];
  readonly tables?: readonly SummaryTable[];
}

export interface BenchSuite {
  readonly name: string;
  readonly title: string;
  run(context: SuiteContext): Promise<SuiteOutcome>;
}

/** A subject next to a baseline of its group. */
export interface Comparison {
  readonly group: string;
  readonly baseline: string;
  readonly subject: string;
  /** True for the group's first baseline, the one charts and tables show. */
  readonly primary: boolean;
  /** Subject throughput as a percentage of the baseline's (100 = as fast). */
  readonly percentOfBaseline: number;
  /** Baseline median time divided by the subject's (above 1 = the subject is faster). */
  readonly speedup: number;
}

export interface SuiteResult {
  readonly suite: string;
  readonly title: string;
  readonly quick: boolean;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationSeconds: number;
  readonly settings: MeasureSettings;
  readonly machine: MachineDescription;
  /** Load averages when the suite finished (the machine's are from when it started). */
  readonly loadAverageAtEnd: readonly number[];
  readonly cases: readonly CaseResult[];
  readonly comparisons: readonly Comparison[];
  readonly notices: readonly string[];
  readonly facts: Readonly<Record<string, unknown>>;
  /** Absent in result files written before figures existed. */
  readonly figures?: readonly FigureGroup[];
  readonly tables?: readonly SummaryTable[];
}

/** What one `npm run bench` invocation did as a whole (`run.json`, next to the suite results). */
export interface RunRecord {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly quick: boolean;
  readonly suites: readonly string[];
  readonly failedSuites: readonly string[];
  /** Wall-clock time of the whole run. */
  readonly wallSeconds: number;
  /** CPU time of the process (user + system) over the run. */
  readonly cpuSeconds: number;
  readonly secondsPerSuite: Readonly<Record<string, number>>;
  readonly loadAverageAtStart: readonly number[];
  readonly loadAverageAtEnd: readonly number[];
  readonly cpuCount: number;
}

/** The ratio of a figure to its group's first baseline (value / baseline value), if there is one. */
export function figureRatio(group: FigureGroup, row: FigureRow): number | undefined {
  const baseline = group.rows.find((candidate) => candidate.role === 'baseline');
  if (baseline === undefined || row === baseline || baseline.value === 0) return undefined;
  return row.value / baseline.value;
}

/** Each subject compared with every baseline of its group (the first one is the primary). */
export function compareWithBaselines(cases: readonly CaseResult[]): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const subject of cases) {
    if (subject.role !== 'subject') continue;
    const baselines = cases.filter(
      (candidate) => candidate.group === subject.group && candidate.role === 'baseline',
    );
    baselines.forEach((baseline, index) => {
      comparisons.push({
        group: subject.group,
        baseline: baseline.name,
        subject: subject.name,
        primary: index === 0,
        percentOfBaseline: roundPercent((subject.operationsPerSecond / baseline.operationsPerSecond) * 100),
        speedup: round(baseline.medianMs / subject.medianMs, 3),
      });
    });
  }
  return comparisons;
}

/** The comparison of a subject with its group's primary baseline. */
export function primaryComparison(
  comparisons: readonly Comparison[],
  subject: string,
): Comparison | undefined {
  return comparisons.find((comparison) => comparison.subject === subject && comparison.primary);
}

function roundPercent(percent: number): number {
  return round(percent, percent < 10 ? 3 : 1);
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
