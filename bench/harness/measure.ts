// Runs benchmark cases: warm-up iterations, then timed iterations (with
// `process.hrtime.bigint()`) until each case has its count or the time bound is reached.
// Cases measured together are interleaved iteration by iteration, so that a baseline and
// its subject see the same background load on a shared machine.
// Hand-written on purpose: the benchmark libraries (tinybench, mitata, benchmark.js) run one case
// to its end before the next, so a baseline and its subject would see different load.
import { memorySnapshot, type MemorySnapshot } from './memory';
import type { Progress } from './progress';
import { operationsPerSecond, summariseDurations, type TimingSummary } from './statistics';

/** A figure measured on its own (`subject`) or the yardstick it is compared with (`baseline`). */
export type CaseRole = 'baseline' | 'subject';

/**
 * One benchmark case. `setup` and `teardown` run around every iteration (warm-up included)
 * outside the timed region; only `run` is timed.
 */
export interface BenchCase<State = undefined> {
  /** Unique within its suite, e.g. `context/large-session/strata`. */
  readonly name: string;
  /** Cases of one group are drawn and compared together. */
  readonly group: string;
  readonly role: CaseRole;
  /** Short label for tables and charts. */
  readonly label: string;
  /** What one operation is (`context`, `event`, `file`). */
  readonly unit: string;
  /** Operations performed by one call of `run` (events appended, for instance). Default 1. */
  readonly operationsPerIteration?: number;
  /** Facts about the case recorded with its result (data-set size, batch size). */
  readonly details?: Readonly<Record<string, string | number | boolean>>;
  setup?(): State | Promise<State>;
  run(state: State): unknown;
  teardown?(state: State): void | Promise<void>;
}

export interface MeasureSettings {
  readonly warmupIterations: number;
  /** Timed iterations wanted per case. */
  readonly iterations: number;
  /** Once this many seconds of timed work have passed, stop at `minIterations`. */
  readonly maxSeconds: number;
  readonly minIterations: number;
}

export interface CaseResult extends TimingSummary {
  readonly name: string;
  readonly group: string;
  readonly role: CaseRole;
  readonly label: string;
  readonly unit: string;
  readonly operationsPerIteration: number;
  readonly warmupIterations: number;
  /** From the median iteration time. */
  readonly operationsPerSecond: number;
  /** From the p90 iteration time (the slow end). */
  readonly operationsPerSecondP90Time: number;
  /** From the p10 iteration time (the fast end). */
  readonly operationsPerSecondP10Time: number;
  /** `process.memoryUsage()` right after the case's last iteration. */
  readonly memoryAfter: MemorySnapshot;
  readonly details: Readonly<Record<string, string | number | boolean>>;
}

/** Keeps results of timed work reachable so the optimiser cannot drop the work. */
let sink: unknown;

export function lastSinkValue(): unknown {
  return sink;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

async function oneIteration<State>(benchCase: BenchCase<State>): Promise<bigint> {
  const state = benchCase.setup ? await benchCase.setup() : (undefined as State);
  const started = process.hrtime.bigint();
  const outcome = benchCase.run(state);
  sink = isPromiseLike(outcome) ? await outcome : outcome;
  const duration = process.hrtime.bigint() - started;
  if (benchCase.teardown) await benchCase.teardown(state);
  return duration;
}

/**
 * Measures `cases` together: every case warms up, then timed iterations go round-robin over
 * the cases until each has `settings.iterations`, or the time bound has passed and each has
 * at least `settings.minIterations`.
 */
export async function measureCases(
  suite: string,
  cases: readonly BenchCase<unknown>[],
  settings: MeasureSettings,
  progress: Progress,
): Promise<CaseResult[]> {
  const names = cases.map((benchCase) => benchCase.name).join(' | ');
  progress.step(suite, `measuring ${names}`);
  for (let round = 0; round < settings.warmupIterations; round += 1) {
    for (const benchCase of cases) await oneIteration(benchCase);
  }
  const samples = cases.map((): bigint[] => []);
  const memory: MemorySnapshot[] = cases.map(() => memorySnapshot());
  const deadline = process.hrtime.bigint() + BigInt(Math.round(settings.maxSeconds * 1e9));
  for (let round = 0; round < settings.iterations; round += 1) {
    if (round >= settings.minIterations && process.hrtime.bigint() > deadline) break;
    for (const [index, benchCase] of cases.entries()) {
      samples[index]!.push(await oneIteration(benchCase));
      memory[index] = memorySnapshot();
    }
  }
  const results = cases.map((benchCase, index) =>
    caseResult(benchCase, summariseDurations(samples[index]!), settings, memory[index]!),
  );
  for (const result of results) progress.step(suite, describeResult(result));
  return results;
}

function caseResult(
  benchCase: BenchCase<unknown>,
  timing: TimingSummary,
  settings: MeasureSettings,
  memoryAfter: MemorySnapshot,
): CaseResult {
  const operations = benchCase.operationsPerIteration ?? 1;
  return {
    name: benchCase.name,
    group: benchCase.group,
    role: benchCase.role,
    label: benchCase.label,
    unit: benchCase.unit,
    operationsPerIteration: operations,
    warmupIterations: settings.warmupIterations,
    ...timing,
    operationsPerSecond: operationsPerSecond(operations, timing.medianMs),
    operationsPerSecondP90Time: operationsPerSecond(operations, timing.p90Ms),
    operationsPerSecondP10Time: operationsPerSecond(operations, timing.p10Ms),
    memoryAfter,
    details: benchCase.details ?? {},
  };
}

/** One line for the progress log: name, median with spread, throughput. */
export function describeResult(result: CaseResult): string {
  return (
    `${result.name}: median ${formatMilliseconds(result.medianMs)} ` +
    `(p10 ${formatMilliseconds(result.p10Ms)}, p90 ${formatMilliseconds(result.p90Ms)}, n=${result.iterations}), ` +
    `${formatRate(result.operationsPerSecond)} ${result.unit}/s`
  );
}

export function formatMilliseconds(milliseconds: number): string {
  if (milliseconds >= 1000) return `${(milliseconds / 1000).toFixed(2)} s`;
  if (milliseconds >= 10) return `${milliseconds.toFixed(1)} ms`;
  if (milliseconds >= 0.1) return `${milliseconds.toFixed(3)} ms`;
  return `${(milliseconds * 1000).toFixed(1)} µs`;
}

export function formatRate(rate: number): string {
  if (!Number.isFinite(rate)) return '∞';
  if (rate >= 1e6) return `${(rate / 1e6).toFixed(2)}M`;
  if (rate >= 1e4) return `${(rate / 1e3).toFixed(1)}k`;
  if (rate >= 100) return rate.toFixed(0);
  if (rate >= 1) return rate.toFixed(1);
  return rate.toPrecision(2);
}

export function formatPercent(percent: number): string {
  return percent >= 10 ? `${percent.toFixed(0)}%` : `${percent.toPrecision(2)}%`;
}
