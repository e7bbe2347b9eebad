// The http suite's main table (every row's rate against /health, latencies, the engine's CPU per
// request, wrk's CPU, the longest stall, unexpected answers) and its charts.
import {
  formatMilliseconds,
  formatRate,
  type CaseResult,
  type FigureGroup,
  type SummaryTable,
} from '../harness';
import { detail } from './http-results';
import type { HttpPlan } from './http-scenarios';

export function mainTable(cases: readonly CaseResult[], plan: HttpPlan): SummaryTable {
  const health = cases.find((result) => result.role === 'baseline')!;
  const ms = (value: number): string => formatMilliseconds(value);
  const catchUp = (result: CaseResult): string => {
    const extra =
      detail(result, 'engineCpuMsPerRequestWithCatchUp') - detail(result, 'engineCpuMsPerRequest');
    return extra > 0.0005 ? ms(extra) : '0';
  };
  return {
    title:
      `The engine as its own process, driven by wrk in another process ` +
      `(${plan.rounds} round${plan.rounds === 1 ? '' : 's'} of ${plan.measureSeconds} s per row, each after a warm-up run of ${plan.warmupSeconds} s; latencies over every request of every round)`,
    columns: [
      'scenario',
      'requests',
      'requests/s (slowest – fastest round)',
      'vs /health',
      'p50',
      'p99',
      'p99 / p50',
      'engine CPU per request (+ catch-up after)',
      'engine CPU, % of a core',
      'wrk CPU per request',
      'longest engine stall',
      'unexpected answers',
    ],
    numericColumns: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    rows: cases.map((result) => [
      result.label,
      String(result.details['requests']),
      `${formatRate(result.operationsPerSecond)} (${formatRate(result.operationsPerSecondP90Time)} – ${formatRate(result.operationsPerSecondP10Time)})`,
      result === health
        ? 'baseline'
        : `${((result.operationsPerSecond / health.operationsPerSecond) * 100).toFixed(0)}%`,
      ms(result.medianMs),
      ms(result.p99Ms),
      `×${detail(result, 'p99OverP50').toFixed(1)}`,
      `${ms(detail(result, 'engineCpuMsPerRequest'))} (+${catchUp(result)})`,
      `${detail(result, 'engineCpuPercentOfOneCore').toFixed(0)}%`,
      ms(detail(result, 'generatorCpuMsPerRequest')),
      ms(detail(result, 'longestStallMs')),
      String(result.details['unexpected']),
    ]),
  };
}

/** Charts only (the main table lists the same figures). */
export function chartFigures(cases: readonly CaseResult[]): FigureGroup[] {
  const perRequest = (key: 'p50Ms' | 'p99Ms' | 'engineCpuMsPerRequest', title: string): FigureGroup => ({
    title,
    unit: 'ms',
    lowerIsBetter: true,
    inSummary: false,
    rows: cases.map((result) => ({
      label: result.label,
      role: result.role,
      value: detail(result, key),
      display: formatMilliseconds(detail(result, key)),
    })),
  });
  return [
    perRequest('p50Ms', 'latency per request, p50 (load generator in its own process)'),
    perRequest('p99Ms', 'latency per request, p99 (load generator in its own process)'),
    perRequest(
      'engineCpuMsPerRequest',
      "engine CPU per request (user + system of the engine's process over the window)",
    ),
  ];
}
