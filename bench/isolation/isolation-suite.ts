// Suite `isolation` (issues 11 and 22): one shared engine, two API-key tenants. The engine runs as
// its own process (`bin/engine.js` on a SQLite file, default settings: o200k, the offline
// summariser) with a preloaded probe of its event loop, and this process is its clients on
// loopback. Tenant B runs the same workload four times, each on a fresh session of its own: on a
// quiet engine, then while tenant A (a) imports a ~60 MB session of one-character runs, (b) sends
// 16 appends at once of entries just under the body limit, (c) holds 128 event streams (or its
// share, if smaller) from the start of the log. Reported: B's append and context p50/p99, its
// /health p99 and every answer it did not expect in each phase next to the quiet phase; the
// engine's longest event-loop stall in each window (monitorEventLoopDelay inside the engine, reset
// at the window's start and read at its end, over IPC); and the engine's resident memory (VmRSS
// sampled, VmHWM at the end) next to the configured limits.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadEngineConfig, type EngineConfig } from '../../apps/engine/src/config/engine-config';
import { streamsPerTenant } from '../../apps/engine/src/events-stream/tenant-stream-shares';
import {
  formatMilliseconds,
  percentile,
  type BenchSuite,
  type FigureGroup,
  type FigureRow,
  type SummaryTable,
} from '../harness';
import { startEngineChild, untilCaughtUp, type EngineChild } from '../engine-process/engine-child';
import type { LoopDelayReport } from '../engine-process/event-loop-probe';
import {
  CONCURRENT_LARGE_APPENDS,
  heldStreamCount,
  importAttack,
  importEntryLines,
  largeAppendsAttack,
  streamsAttack,
  type Attack,
  type AttackReport,
  type ImportPlan,
} from './tenant-a-attacks';
import { seedSession, startWorkload, type KindFigures, type WorkloadFigures } from './tenant-b-workload';
import { TenantHttp } from './tenant-http';

const TENANT_A_KEY = 'tenant-a-bench-key-0123456789';
const TENANT_B_KEY = 'tenant-b-bench-key-0123456789';
/** The goals of issue 22: B's append and context p99 under an attack within this factor of quiet… */
const P99_FACTOR_GOAL = 3;
/** …and the engine's event loop never held longer than this in the window. */
const STALL_GOAL_MS = 100;
const MB = 1e6;
const MiB = 2 ** 20;

interface Plan {
  readonly windowMs: number;
  readonly warmupMs: number;
  readonly importFile: ImportPlan;
}

const fullPlan: Plan = {
  windowMs: 20_000,
  warmupMs: 5_000,
  importFile: { messages: 60, runCharacters: 1_000_000 },
};
const quickPlan: Plan = {
  windowMs: 5_000,
  warmupMs: 1_000,
  importFile: { messages: 16, runCharacters: 1_000_000 },
};

type PhaseName = 'quiet' | Attack['name'];

interface PhaseResult {
  readonly name: PhaseName;
  readonly label: string;
  readonly measuredMs: number;
  readonly tenantB: WorkloadFigures;
  readonly attack: AttackReport | null;
  /** VmRSS when the phase started, the largest sampled during it, and once the engine had caught up after it. */
  readonly startRssBytes: number;
  readonly peakRssBytes: number;
  readonly settledRssBytes: number;
  /** The largest VmRSS of each second of the phase, in MiB. */
  readonly rssTraceMiB: readonly number[];
  /** Time until the engine was ready and caught up again after the phase. */
  readonly settleMs: number;
  /** The engine's event loop in the window (until A's last request had answered and B stopped). */
  readonly engineLoop: LoopDelayReport;
  /** The same from the window's start until the engine had caught up after it. */
  readonly engineLoopWithCatchUp: LoopDelayReport;
  /** The longest stall of this (the clients') process in the window: what B's timings may owe to it. */
  readonly clientStallMs: number;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** This process's own event loop (the clients of both tenants), watched like the engine's. */
const CLIENT_LOOP_RESOLUTION_MS = 10;
const clientLoop = monitorEventLoopDelay({ resolution: CLIENT_LOOP_RESOLUTION_MS });

async function runPhase(
  name: PhaseName,
  label: string,
  attack: Attack | null,
  clients: { readonly a: TenantHttp; readonly b: TenantHttp },
  engine: EngineChild,
  windowMs: number,
): Promise<PhaseResult> {
  const probe = engine.loopDelay;
  if (probe === undefined) throw new Error('the isolation suite starts the engine with its event-loop probe');
  const leaf = await seedSession(clients.b, `b-${name}`);
  await attack?.prepare();
  await untilCaughtUp(engine, clients.b.authorization);
  const startRssBytes = engine.memory().rssBytes;
  await probe.reset();
  clientLoop.reset();
  const started = performance.now();
  const workload = startWorkload(clients.b, `b-${name}`, leaf);
  const report = attack === null ? (await sleep(windowMs), null) : await attack.run(started + windowMs);
  const tenantB = await workload.stop();
  const ended = performance.now();
  const clientStallMs = Math.max(0, clientLoop.max / 1e6 - CLIENT_LOOP_RESOLUTION_MS);
  const engineLoop = await probe.report();
  engine.assertRunning();
  const samples = engine.rssSamples(started, ended);
  const settleMs = await untilCaughtUp(engine, clients.b.authorization);
  const engineLoopWithCatchUp = await probe.report();
  const rssTraceMiB: number[] = [];
  for (const sample of samples) {
    const second = Math.floor((sample.at - started) / 1000);
    rssTraceMiB[second] = Math.max(rssTraceMiB[second] ?? 0, Math.round(sample.rssBytes / MiB));
  }
  return {
    name,
    label,
    measuredMs: ended - started,
    tenantB,
    attack: report,
    startRssBytes,
    peakRssBytes: Math.max(...samples.map((sample) => sample.rssBytes)),
    settledRssBytes: engine.memory().rssBytes,
    rssTraceMiB,
    settleMs,
    engineLoop,
    engineLoopWithCatchUp,
    clientStallMs: Math.round(clientStallMs * 10) / 10,
  };
}

function describePhase(phase: PhaseResult): string {
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

type Percentile = 'p50Ms' | 'p99Ms';

const figureSpecs: readonly {
  kind: 'append' | 'context' | 'health';
  percentile: Percentile;
  title: string;
}[] = [
  { kind: 'append', percentile: 'p99Ms', title: "B's POST /sessions/:id/entries (one small entry), p99" },
  { kind: 'context', percentile: 'p99Ms', title: "B's GET /sessions/:id/context, p99" },
  { kind: 'health', percentile: 'p99Ms', title: 'GET /health, p99' },
  { kind: 'append', percentile: 'p50Ms', title: "B's POST /sessions/:id/entries (one small entry), p50" },
  { kind: 'context', percentile: 'p50Ms', title: "B's GET /sessions/:id/context, p50" },
];

function phaseRow(phase: PhaseResult, value: number, display: string): FigureRow {
  return {
    label: phase.name === 'quiet' ? 'quiet engine' : `during (${letterOf(phase.name)}) ${phase.name}`,
    role: phase.name === 'quiet' ? 'baseline' : 'subject',
    value,
    display,
  };
}

function letterOf(name: PhaseName): string {
  return name === 'import' ? 'a' : name === 'appends' ? 'b' : name === 'streams' ? 'c' : '-';
}

function figures(phases: readonly PhaseResult[]): FigureGroup[] {
  const latencyGroups = figureSpecs.map((spec): FigureGroup => ({
    title: `${spec.title}, quiet against each attack of tenant A`,
    unit: 'ms',
    lowerIsBetter: true,
    rows: phases.map((phase) => {
      const value = phase.tenantB[spec.kind][spec.percentile];
      return phaseRow(phase, value, formatMilliseconds(value));
    }),
  }));
  const memory: FigureGroup = {
    title: 'engine resident memory: largest VmRSS sampled during the phase',
    unit: 'MiB',
    lowerIsBetter: true,
    rows: phases.map((phase) => {
      const value = Math.round(phase.peakRssBytes / MiB);
      return phaseRow(phase, value, `${value} MiB`);
    }),
  };
  const stall: FigureGroup = {
    title:
      "engine's longest event-loop stall in the window (monitorEventLoopDelay inside the engine, less its 10 ms)",
    unit: 'ms',
    lowerIsBetter: true,
    rows: phases.map((phase) => {
      const value = phase.engineLoop.longestStallMs;
      return phaseRow(phase, value, formatMilliseconds(value));
    }),
  };
  return [...latencyGroups, stall, memory];
}

interface GoalCheck {
  readonly phase: PhaseName;
  readonly p99Ratios: Readonly<Record<'append' | 'context' | 'health', number>>;
  /** B's append and context p99 within ×3 of quiet (/health's ratio is shown, not judged). */
  readonly p99WithinGoal: boolean;
  readonly tenantBServerErrors: number;
  readonly tenantBErrors: number;
  readonly tenantBOtherStatuses: number;
  readonly longestStallMs: number;
  readonly stallWithinGoal: boolean;
  readonly met: boolean;
}

function goalChecks(phases: readonly PhaseResult[]): GoalCheck[] {
  const quiet = phases.find((phase) => phase.name === 'quiet');
  if (quiet === undefined) throw new Error('the quiet phase is missing');
  return phases
    .filter((phase) => phase !== quiet)
    .map((phase) => {
      const ratio = (kind: 'append' | 'context' | 'health'): number =>
        Math.round((phase.tenantB[kind].p99Ms / quiet.tenantB[kind].p99Ms) * 100) / 100;
      const p99Ratios = { append: ratio('append'), context: ratio('context'), health: ratio('health') };
      const all = [phase.tenantB.append, phase.tenantB.context, phase.tenantB.health];
      const sum = (pick: (figures: KindFigures) => number): number =>
        all.reduce((total, figures) => total + pick(figures), 0);
      const p99WithinGoal = p99Ratios.append <= P99_FACTOR_GOAL && p99Ratios.context <= P99_FACTOR_GOAL;
      const tenantBServerErrors = sum((figures) => figures.serverErrors);
      const tenantBErrors = sum((figures) => figures.errors);
      const tenantBOtherStatuses = sum((figures) => figures.otherStatuses);
      const longestStallMs = phase.engineLoop.longestStallMs;
      const stallWithinGoal = longestStallMs <= STALL_GOAL_MS;
      return {
        phase: phase.name,
        p99Ratios,
        p99WithinGoal,
        tenantBServerErrors,
        tenantBErrors,
        tenantBOtherStatuses,
        longestStallMs,
        stallWithinGoal,
        met:
          p99WithinGoal &&
          stallWithinGoal &&
          tenantBServerErrors + tenantBErrors + tenantBOtherStatuses === 0,
      };
    });
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

function phaseTable(phases: readonly PhaseResult[], checks: readonly GoalCheck[]): SummaryTable {
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

interface Limits {
  readonly bodyLimitBytes: number;
  readonly importBodyLimitBytes: number;
  readonly maxEventStreams: number;
  readonly streamsPerTenant: number;
  readonly streamBufferPerTenantBytes: number;
  readonly foldCacheEntries: number;
}

function limitsOf(config: EngineConfig): Limits {
  const tenants = new Set(config.apiKeys.map((record) => record.tenant)).size;
  return {
    bodyLimitBytes: config.jsonBodyLimitBytes,
    importBodyLimitBytes: config.importBodyLimitBytes,
    maxEventStreams: config.maxEventStreams,
    streamsPerTenant: streamsPerTenant(config.maxEventStreams, tenants, config.maxEventStreamsPerTenant),
    streamBufferPerTenantBytes: config.eventStreamBufferBytes,
    foldCacheEntries: config.foldCache.maxEntries,
  };
}

function memoryTables(phases: readonly PhaseResult[], peakRssBytes: number, limits: Limits): SummaryTable[] {
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
function loopTable(phases: readonly PhaseResult[]): SummaryTable {
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

export const isolationSuite: BenchSuite = {
  name: 'isolation',
  title: "Tenant B's latency on a shared engine process while tenant A attacks it, against a quiet engine",
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const plan = quick ? quickPlan : fullPlan;
    const step = (message: string): void => progress.step('isolation', message);
    const environment = {
      STRATA_STORE: `sqlite:${path.join(scratchDirectory, 'strata.db')}`,
      STRATA_API_KEYS: `a:${TENANT_A_KEY},b:${TENANT_B_KEY}`,
    };
    const limits = limitsOf(loadEngineConfig(environment, scratchDirectory));
    const entryLines = importEntryLines(plan.importFile);
    step(`session file for attack (a): ${(entryLines.length / MB).toFixed(1)} MB of entry lines`);
    if (entryLines.length + 1_024 > limits.importBodyLimitBytes) {
      throw new Error('the session file of attack (a) would not fit STRATA_IMPORT_BODY_LIMIT');
    }
    const engine = await startEngineChild(scratchDirectory, environment, { eventLoopProbe: true });
    const clients = {
      // A needs a socket for each of its concurrent large appends
      a: new TenantHttp(engine.url, 'a', TENANT_A_KEY, CONCURRENT_LARGE_APPENDS),
      b: new TenantHttp(engine.url, 'b', TENANT_B_KEY),
    };
    clientLoop.enable();
    step(`engine pid ${engine.pid} at ${engine.url}; warming up for ${plan.warmupMs / 1000} s`);
    const phases: PhaseResult[] = [];
    try {
      const warmupLeaf = await seedSession(clients.b, 'b-warmup');
      const warmup = startWorkload(clients.b, 'b-warmup', warmupLeaf);
      await sleep(plan.warmupMs);
      await warmup.stop();
      const attacks: Attack[] = [
        importAttack(clients.a, entryLines),
        largeAppendsAttack(clients.a, limits.bodyLimitBytes),
        streamsAttack(clients.a, clients.b, limits.streamsPerTenant),
      ];
      phases.push(await runPhase('quiet', 'quiet engine', null, clients, engine, plan.windowMs));
      step(describePhase(phases[0]!));
      for (const attack of attacks) {
        phases.push(await runPhase(attack.name, attack.label, attack, clients, engine, plan.windowMs));
        step(describePhase(phases[phases.length - 1]!));
      }
      const memory = engine.memory();
      const storeBytes = fs.statSync(path.join(scratchDirectory, 'strata.db')).size;
      const checks = goalChecks(phases);
      const peakGrowth =
        (phases.reduce((max, phase) => Math.max(max, phase.peakRssBytes), 0) - phases[0]!.peakRssBytes) / MiB;
      const notices = checks.map(
        (check) =>
          `(${letterOf(check.phase)}) ${check.phase}: goal ${check.met ? 'met' : 'MISSED'} — B's p99 ×${check.p99Ratios.append} / ×${check.p99Ratios.context} of quiet ` +
          `for append / context (goal ×${P99_FACTOR_GOAL}; /health ×${check.p99Ratios.health}), ` +
          `${check.tenantBServerErrors} 5xx, ${check.tenantBOtherStatuses} other statuses and ${check.tenantBErrors} socket errors for B (goal none), ` +
          `engine's longest event-loop stall ${formatMilliseconds(check.longestStallMs)} (goal ≤ ${STALL_GOAL_MS} ms)`,
      );
      const streams = heldStreamCount(limits.streamsPerTenant);
      notices.push(
        `Attack (c) holds ${streams.why}.`,
        `Engine peak RSS (VmHWM) ${(memory.peakRssBytes / MiB).toFixed(0)} MiB, ${peakGrowth.toFixed(0)} MiB above the quiet phase's largest sample.`,
        "The engine is its own process; tenant B and tenant A are clients in the benchmark process, on the same two cores. This process's own longest stall per window is in the event-loop table: B's timings cannot be shorter than it.",
      );
      return {
        cases: [],
        notices,
        figures: figures(phases),
        tables: [
          phaseTable(phases, checks),
          loopTable(phases),
          ...memoryTables(phases, memory.peakRssBytes, limits),
        ],
        facts: {
          plan,
          limits,
          engine: { pid: engine.pid, peakRssBytes: memory.peakRssBytes, endRssBytes: memory.rssBytes },
          storeBytesAtEnd: storeBytes,
          importFileBytes: entryLines.length,
          goalFactor: P99_FACTOR_GOAL,
          stallGoalMs: STALL_GOAL_MS,
          heldStreams: streams,
          concurrentLargeAppends: CONCURRENT_LARGE_APPENDS,
          goals: checks,
          phases,
        },
      };
    } finally {
      clientLoop.disable();
      clients.a.close();
      clients.b.close();
      await engine.stop();
    }
  },
};
