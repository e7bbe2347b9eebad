// The isolation suite's report in words: a progress line per phase, and the tables of tenant B's
// figures against the goals, of the event loops per phase and of the engine's memory next to its
// configured limits.
import { formatMilliseconds, percentile, type SummaryTable } from '../harness';
import type { Limits } from './engine-limits';
import type { GoalCheck } from './isolation-goals';
import { letterOf, type PhaseResult } from './isolation-phase';
import type { AttackReport } from './tenant-a-attacks';
import type { KindFigures } from './tenant-b-workload';

const MB = 1e6;
const MiB = 2 ** 20;

export function describePhase(phase: PhaseResult): string {
  const b = phase.tenantB;
  const problems = (figures: KindFigures): number =>
    figures.serverErrors + figures.otherStatuses + figures.errors;
  const a =
    phase.attack === null
      ? ''
      : `; A: ${Object.entries(phase.attack.statuses)
          .map(([status, count]) => `${count} × ${status}`)
          .join(', ')}`;
  return (
    `${phase.name}: B append p50 ${b.append.p50Ms} / p99 ${b.append.p99Ms} ms, context ${b.context.p50Ms} / ${b.context.p99Ms} ms, ` +
    `health p99 ${b.health.p99Ms} ms (${b.append.requests} + ${b.context.requests} + ${b.health.requests} requests, ` +
    `${problems(b.append) + problems(b.context) + problems(b.health)} unexpected); ` +
    `engine's longest stall ${formatMilliseconds(phase.engineLoop.longestStallMs)} ` +
    `(${formatMilliseconds(phase.engineLoopWithCatchUp.longestStallMs)} with the catch-up), clients' ${formatMilliseconds(phase.clientStallMs)}; ` +
    `VmRSS ${(phase.startRssBytes / MiB).toFixed(0)} → largest ${(phase.peakRssBytes / MiB).toFixed(0)} → ` +
    `${(phase.settledRssBytes / MiB).toFixed(0)} MiB caught up${a}`
  );
}

function attackSummary(report: AttackReport | null): string {
  if (report === null) return '—';
  const statuses = Object.entries(report.statuses)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ');
  if (report.name === 'streams') {
    return `${statuses}; over the share: ${report.facts['streamOverShareStatus']}; B's stream: ${report.facts['tenantBStreamStatus']}`;
  }
  const ascending = [...report.requestMs].sort((left, right) => left - right);
  return `${statuses}; ${formatMilliseconds(percentile(ascending, 0.5))} each (median)`;
}

export function phaseTable(phases: readonly PhaseResult[], checks: readonly GoalCheck[]): SummaryTable {
  const cell = (figures: KindFigures): string =>
    `${formatMilliseconds(figures.p50Ms)} / ${formatMilliseconds(figures.p99Ms)}`;
  const ratios = (phase: PhaseResult): string => {
    const check = checks.find((candidate) => candidate.phase === phase.name);
    if (check === undefined) return 'baseline';
    const { append, context, health } = check.p99Ratios;
    return `×${append} / ×${context} / ×${health}`;
  };
  const goal = (phase: PhaseResult): string => {
    const check = checks.find((candidate) => candidate.phase === phase.name);
    if (check === undefined) return '—';
    if (check.met) return 'met';
    const missed = [
      ...(check.p99WithinGoal ? [] : ['p99']),
      ...(check.tenantBServerErrors + check.tenantBErrors + check.tenantBOtherStatuses === 0
        ? []
        : ['errors']),
      ...(check.stallWithinGoal ? [] : ['stall']),
    ];
    return `**missed** (${missed.join(', ')})`;
  };
  return {
    title: `Tenant B on a quiet engine and during each attack of tenant A (windows of ${(phases[0]!.measuredMs / 1000).toFixed(0)} s or more)`,
    columns: [
      'phase',
      'B requests (append + context + health)',
      'append p50 / p99',
      'context p50 / p99',
      'health p99',
      'p99 vs quiet (append / context / health)',
      'B 5xx / other statuses / socket errors',
      "engine's longest loop stall (window; with the catch-up)",
      'engine peak RSS',
      "A's requests",
      'goal',
    ],
    numericColumns: [1, 2, 3, 4, 5, 6, 7, 8],
    rows: phases.map((phase) => {
      const b = phase.tenantB;
      const serverErrors = b.append.serverErrors + b.context.serverErrors + b.health.serverErrors;
      const otherStatuses = b.append.otherStatuses + b.context.otherStatuses + b.health.otherStatuses;
      const errors = b.append.errors + b.context.errors + b.health.errors;
      return [
        phase.name === 'quiet' ? 'quiet engine' : `(${letterOf(phase.name)}) ${phase.label}`,
        `${b.append.requests} + ${b.context.requests} + ${b.health.requests}`,
        cell(b.append),
        cell(b.context),
        formatMilliseconds(b.health.p99Ms),
        ratios(phase),
        `${serverErrors} / ${otherStatuses} / ${errors}`,
        `${formatMilliseconds(phase.engineLoop.longestStallMs)}; ${formatMilliseconds(phase.engineLoopWithCatchUp.longestStallMs)}`,
        `${(phase.peakRssBytes / MiB).toFixed(0)} MiB`,
        attackSummary(phase.attack),
        goal(phase),
      ];
    }),
  };
}

export function memoryTables(
  phases: readonly PhaseResult[],
  peakRssBytes: number,
  limits: Limits,
): SummaryTable[] {
  const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;
  return [
    {
      title: 'Engine resident memory per phase (VmRSS of the engine process, sampled every 200 ms)',
      columns: [
        'phase',
        'VmRSS at the start',
        'largest VmRSS during',
        'VmRSS once caught up after',
        "A's bytes sent",
      ],
      numericColumns: [1, 2, 3, 4],
      rows: phases.map((phase) => [
        phase.name === 'quiet' ? 'quiet engine' : `(${letterOf(phase.name)}) ${phase.name}`,
        mib(phase.startRssBytes),
        mib(phase.peakRssBytes),
        mib(phase.settledRssBytes),
        phase.attack === null ? '—' : `${(phase.attack.bytesSent / MB).toFixed(0)} MB`,
      ]),
    },
    {
      title: "The engine's peak resident memory next to the configured limits",
      columns: ['what', 'value'],
      numericColumns: [1],
      rows: [
        ['VmHWM of the engine at the end of the run (its peak RSS)', mib(peakRssBytes)],
        ['STRATA_BODY_LIMIT (one JSON body)', mib(limits.bodyLimitBytes)],
        ['STRATA_IMPORT_BODY_LIMIT (one session file)', mib(limits.importBodyLimitBytes)],
        [
          'STRATA_MAX_EVENT_STREAMS (the share of each of the 2 tenants)',
          `${limits.maxEventStreams} (${limits.streamsPerTenant})`,
        ],
        ['STRATA_EVENT_STREAM_BUFFER_PER_TENANT', mib(limits.streamBufferPerTenantBytes)],
        ['STRATA_FOLD_CACHE_ENTRIES (entries, not bytes)', limits.foldCacheEntries.toLocaleString('en-US')],
      ],
    },
  ];
}

/** How the stall and the clients were measured in each window (the figures behind the goal). */
export function loopTable(phases: readonly PhaseResult[]): SummaryTable {
  const ms = formatMilliseconds;
  return {
    title:
      "Event loops per phase: the engine's (monitorEventLoopDelay at 10 ms, preloaded into the engine, reset at the window's start, " +
      "read at its end and again once caught up; stall = largest delay less the 10 ms) and this process's (the clients of both tenants)",
    columns: [
      'phase',
      "engine's longest stall in the window",
      'engine loop delay p99 in the window',
      "engine's longest stall, window + catch-up",
      'catch-up after the window',
      "clients' longest stall (bench process)",
    ],
    numericColumns: [1, 2, 3, 4, 5],
    rows: phases.map((phase) => [
      phase.name === 'quiet' ? 'quiet engine' : `(${letterOf(phase.name)}) ${phase.name}`,
      ms(phase.engineLoop.longestStallMs),
      ms(phase.engineLoop.p99Ms),
      ms(phase.engineLoopWithCatchUp.longestStallMs),
      ms(phase.settleMs),
      ms(phase.clientStallMs),
    ]),
  };
}
