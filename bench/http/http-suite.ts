// Suite `http` (issues 6 and 22): the engine's HTTP API measured from outside. The engine runs as
// its own process (`node bin/engine.js`, what `npm start` runs, default settings) on a SQLite file
// in the scratch directory; the load comes from another process, wrk with wrk-load.lua (a closed
// loop over kept-alive connections), one wrk process per run, which reports its figures as JSON.
// Measured: appends/s and p50/p99 for 1, 4, 16 and 64 agents, each appending one small user
// message at a time to its own chained session; GET context of a 1,000-entry session and GET one
// session; next to the baseline, GET /health of the same engine with 16 connections, in the same
// run. Beside each run: the engine's CPU time per request (/proc/<pid>/stat, read just before wrk
// starts and just after it ends), the catch-up after the run (until /ready has 0 positions
// behind) and its CPU, the engine's longest event-loop stall (a preloaded probe), wrk's own CPU.
import * as path from 'node:path';
import {
  formatMilliseconds,
  formatRate,
  memorySnapshot,
  summariseDurations,
  type BenchSuite,
  type CaseResult,
  type CaseRole,
  type FigureGroup,
  type Progress,
  type SummaryTable,
} from '../harness';
import { generateSession } from '../context/generate-session';
import { startEngineChild, untilCaughtUp, type EngineChild } from '../engine-process/engine-child';
import type { LoopDelayReport } from '../engine-process/event-loop-probe';
import { pooledLatenciesMs, runWrk, type WrkRun, type WrkScenario } from './wrk-load';

const READ_SESSION_ENTRIES = 1_000;
const READ_SESSION_ID = 'http-read';
const SEED_CHUNK = 250;
const AGENT_COUNTS = [1, 4, 16, 64] as const;
const READ_CONNECTIONS = 16;
/** Goals of issue 22. */
const GOAL_APPEND_SHARE_OF_HEALTH = 0.5;
const GOAL_P99_OVER_P50 = 5;
/** "Grows" from 1 to 4 to 16 agents: each step at least this factor, above round-to-round noise. */
const GOAL_GROWTH_STEP = 1.1;

interface HttpPlan {
  readonly rounds: number;
  /** Whole seconds (wrk takes no fractions): a warm-up run, then the measured run, per row and round. */
  readonly warmupSeconds: number;
  readonly measureSeconds: number;
}

const fullPlan: HttpPlan = { rounds: 3, warmupSeconds: 1, measureSeconds: 3 };
const quickPlan: HttpPlan = { rounds: 1, warmupSeconds: 1, measureSeconds: 2 };

interface RunSpec {
  readonly name: string;
  readonly role: CaseRole;
  readonly label: string;
  readonly connections: number;
  /** Agents appending (0 for a read). */
  readonly agents: number;
  /** `prefix` tells the warm-up run's sessions from the measured run's. */
  scenario(round: number, prefix: string): WrkScenario;
}

const specs: readonly RunSpec[] = [
  {
    name: 'http/health',
    role: 'baseline',
    label: `GET /health, ${READ_CONNECTIONS} connections`,
    connections: READ_CONNECTIONS,
    agents: 0,
    scenario: () => ({ kind: 'get', path: '/health' }),
  },
  ...AGENT_COUNTS.map((agents): RunSpec => ({
    name: `http/append-${agents}`,
    role: 'subject',
    label: `POST /sessions/:id/entries, ${agents} agent${agents === 1 ? '' : 's'}`,
    connections: agents,
    agents,
    scenario: (round, prefix) => ({
      kind: 'append',
      sessionPrefix: `${prefix}-agents${agents}-round${round}`,
    }),
  })),
  {
    name: 'http/context',
    role: 'subject',
    label: `GET /sessions/:id/context (${READ_SESSION_ENTRIES.toLocaleString('en-US')} entries), ${READ_CONNECTIONS} connections`,
    connections: READ_CONNECTIONS,
    agents: 0,
    scenario: () => ({ kind: 'get', path: `/sessions/${READ_SESSION_ID}/context` }),
  },
  {
    name: 'http/session',
    role: 'subject',
    label: `GET /sessions/:id, ${READ_CONNECTIONS} connections`,
    connections: READ_CONNECTIONS,
    agents: 0,
    scenario: () => ({ kind: 'get', path: `/sessions/${READ_SESSION_ID}` }),
  },
];

/** One measured run of one spec, and what the bench saw around it. */
interface RunRecord {
  readonly run: WrkRun;
  /** The engine's user + system CPU from just before wrk started until it had ended. */
  readonly engineCpuMs: number;
  /** The engine's event loop over the same time. */
  readonly loop: LoopDelayReport;
  /** After the run: until /ready had 0 positions behind, and the engine's CPU meanwhile. */
  readonly catchUpMs: number;
  readonly catchUpCpuMs: number;
  /** Starting the agents' sessions (untimed, before the warm-up). */
  readonly setupMs: number;
}

async function send(url: string, method: string, body: unknown): Promise<number> {
  const response = await fetch(url, {
    method,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  await response.arrayBuffer();
  return response.status;
}

/** The read cases' session: 1,000 generated entries through the API (untimed). */
async function seedReadSession(baseUrl: string): Promise<{ entries: number; compactions: number }> {
  const session = generateSession({ entryCount: READ_SESSION_ENTRIES, seed: 6 });
  const started = await send(`${baseUrl}/sessions`, 'POST', {
    sessionId: READ_SESSION_ID,
    cwd: '/work/bench',
  });
  if (started !== 201) throw new Error(`starting ${READ_SESSION_ID} answered ${started}`);
  for (let offset = 0; offset < session.entries.length; offset += SEED_CHUNK) {
    const status = await send(`${baseUrl}/sessions/${READ_SESSION_ID}/entries`, 'POST', {
      entries: session.entries.slice(offset, offset + SEED_CHUNK),
    });
    if (status !== 200) throw new Error(`seeding ${READ_SESSION_ID} answered ${status}`);
  }
  return { entries: session.entries.length, compactions: session.compactionCount };
}

/** Starts the sessions `<sessionPrefix>-0` … `-<agents - 1>` of an append scenario (untimed). */
async function startAgentSessions(baseUrl: string, scenario: WrkScenario, agents: number): Promise<void> {
  if (scenario.kind !== 'append') return;
  await Promise.all(
    Array.from({ length: agents }, async (_, agent) => {
      const sessionId = `${scenario.sessionPrefix}-${agent}`;
      const status = await send(`${baseUrl}/sessions`, 'POST', { sessionId, cwd: '/work/bench' });
      if (status !== 201) throw new Error(`starting ${sessionId} answered ${status}`);
    }),
  );
}

async function runOnce(
  engine: EngineChild,
  spec: RunSpec,
  round: number,
  plan: HttpPlan,
  progress: Progress,
): Promise<RunRecord> {
  const probe = engine.loopDelay;
  if (probe === undefined) throw new Error('the http suite starts the engine with its event-loop probe');
  const warmup = spec.scenario(round, 'warm');
  const measured = spec.scenario(round, 'run');
  const setupStarted = performance.now();
  await startAgentSessions(engine.url, warmup, spec.agents);
  await startAgentSessions(engine.url, measured, spec.agents);
  const setupMs = performance.now() - setupStarted;
  await runWrk(engine.url, warmup, spec.connections, plan.warmupSeconds);
  await untilCaughtUp(engine);
  await probe.reset();
  const cpuBefore = engine.cpuMs();
  const run = await runWrk(engine.url, measured, spec.connections, plan.measureSeconds);
  const cpuAfter = engine.cpuMs();
  const loop = await probe.report();
  const catchUpMs = await untilCaughtUp(engine);
  const catchUpCpuMs = engine.cpuMs() - cpuAfter;
  const engineCpuMs = cpuAfter - cpuBefore;
  const ascending = [run.minMs, ...run.tenthsMs, run.maxMs];
  progress.step(
    'http',
    `${spec.name} round ${round + 1}: ${run.requests} requests, ` +
      `${formatRate(run.requests / (run.durationMs / 1000))}/s, p50 ${formatMilliseconds(ascending[500]!)}, ` +
      `p99 ${formatMilliseconds(ascending[990]!)}, engine CPU ${(engineCpuMs / Math.max(1, run.requests)).toFixed(2)} ms/request, ` +
      `wrk CPU ${run.generatorCpuMs} ms, longest stall ${formatMilliseconds(loop.longestStallMs)}, caught up ${catchUpMs.toFixed(0)} ms after` +
      (run.unexpected > 0 ? `, ${run.unexpected} unexpected (${run.firstProblem ?? ''})` : ''),
  );
  return { run, engineCpuMs, loop, catchUpMs, catchUpCpuMs, setupMs };
}

const round1 = (value: number): number => Math.round(value * 10) / 10;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

function caseResult(spec: RunSpec, records: readonly RunRecord[]): CaseResult {
  const runs = records.map((record) => record.run);
  const timing = summariseDurations(pooledLatenciesMs(runs).map((value) => BigInt(Math.round(value * 1e6))));
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const durationMs = runs.reduce((sum, run) => sum + run.durationMs, 0);
  const engineCpuMs = records.reduce((sum, record) => sum + record.engineCpuMs, 0);
  const catchUpCpuMs = records.reduce((sum, record) => sum + record.catchUpCpuMs, 0);
  const generatorCpuMs = runs.reduce((sum, run) => sum + run.generatorCpuMs, 0);
  const rates = runs.map((run) => run.requests / (run.durationMs / 1000));
  const statuses: Record<string, number> = {};
  for (const run of runs)
    for (const [status, count] of Object.entries(run.statuses))
      statuses[status] = (statuses[status] ?? 0) + count;
  return {
    name: spec.name,
    group: 'HTTP API on loopback, load generator (wrk) in its own process',
    role: spec.role,
    label: spec.label,
    unit: 'request',
    operationsPerIteration: 1,
    warmupIterations: 0,
    ...timing,
    operationsPerSecond: round1(requests / (durationMs / 1000)),
    operationsPerSecondP90Time: round1(Math.min(...rates)),
    operationsPerSecondP10Time: round1(Math.max(...rates)),
    memoryAfter: memorySnapshot(),
    details: {
      connections: spec.connections,
      agents: spec.agents,
      wrkThreads: runs[0]!.threads,
      rounds: runs.length,
      requests,
      requestsPerSecond: round1(requests / (durationMs / 1000)),
      p50Ms: round3(timing.medianMs),
      p90Ms: round3(timing.p90Ms),
      p99Ms: round3(timing.p99Ms),
      maxMs: round3(timing.maxMs),
      p99OverP50: Math.round((timing.p99Ms / timing.medianMs) * 100) / 100,
      engineCpuMsPerRequest: round3(engineCpuMs / requests),
      engineCpuMsPerRequestWithCatchUp: round3((engineCpuMs + catchUpCpuMs) / requests),
      engineCpuPercentOfOneCore: round1((engineCpuMs / durationMs) * 100),
      generatorCpuMsPerRequest: round3(generatorCpuMs / requests),
      generatorCpuPercentOfOneCore: round1((generatorCpuMs / durationMs) * 100),
      longestStallMs: Math.max(...records.map((record) => record.loop.longestStallMs)),
      catchUpMsMax: round1(Math.max(...records.map((record) => record.catchUpMs))),
      unexpected: runs.reduce((sum, run) => sum + run.unexpected, 0),
      firstProblem: runs.find((run) => run.firstProblem !== null)?.firstProblem ?? '',
      statuses: JSON.stringify(statuses),
    },
  };
}

const detail = (result: CaseResult, key: string): number => Number(result.details[key]);

function mainTable(cases: readonly CaseResult[], plan: HttpPlan): SummaryTable {
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

interface GoalCheck {
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean;
}

function goalChecks(cases: readonly CaseResult[]): GoalCheck[] {
  const health = cases.find((result) => result.name === 'http/health')!;
  const appends = (agents: number): CaseResult =>
    cases.find((result) => result.name === `http/append-${agents}`)!;
  const [one, four, sixteen] = [appends(1), appends(4), appends(16)];
  const share = sixteen.operationsPerSecond / health.operationsPerSecond;
  const steps = [
    four.operationsPerSecond / one.operationsPerSecond,
    sixteen.operationsPerSecond / four.operationsPerSecond,
  ];
  const spread = detail(sixteen, 'p99OverP50');
  return [
    {
      goal: `appends/s at 16 agents ≥ ${GOAL_APPEND_SHARE_OF_HEALTH} × the /health rate`,
      measured: `${formatRate(sixteen.operationsPerSecond)} against ${formatRate(health.operationsPerSecond)}/s: ×${share.toFixed(2)}`,
      met: share >= GOAL_APPEND_SHARE_OF_HEALTH,
    },
    {
      goal: `throughput grows from 1 to 4 to 16 agents (each step ≥ ×${GOAL_GROWTH_STEP})`,
      measured:
        `${formatRate(one.operationsPerSecond)} → ${formatRate(four.operationsPerSecond)} → ${formatRate(sixteen.operationsPerSecond)}/s ` +
        `(×${steps[0]!.toFixed(2)}, ×${steps[1]!.toFixed(2)})`,
      met: steps.every((step) => step >= GOAL_GROWTH_STEP),
    },
    {
      goal: `p99 at 16 agents ≤ ${GOAL_P99_OVER_P50} × p50`,
      measured: `${formatMilliseconds(sixteen.p99Ms)} / ${formatMilliseconds(sixteen.medianMs)} = ×${spread.toFixed(1)}`,
      met: spread <= GOAL_P99_OVER_P50,
    },
  ];
}

function goalTable(checks: readonly GoalCheck[]): SummaryTable {
  return {
    title: 'Goals of issue 22 for the http suite',
    columns: ['goal', 'measured', 'verdict'],
    rows: checks.map((check) => [check.goal, check.measured, check.met ? 'met' : '**missed**']),
  };
}

/** Charts only (the main table lists the same figures). */
function chartFigures(cases: readonly CaseResult[]): FigureGroup[] {
  const latency = (key: 'p50Ms' | 'p99Ms', title: string): FigureGroup => ({
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
    latency('p50Ms', 'latency per request, p50 (load generator in its own process)'),
    latency('p99Ms', 'latency per request, p99 (load generator in its own process)'),
    {
      title: "engine CPU per request (user + system of the engine's process over the window)",
      unit: 'ms',
      lowerIsBetter: true,
      inSummary: false,
      rows: cases.map((result) => ({
        label: result.label,
        role: result.role,
        value: detail(result, 'engineCpuMsPerRequest'),
        display: formatMilliseconds(detail(result, 'engineCpuMsPerRequest')),
      })),
    },
  ];
}

export const httpSuite: BenchSuite = {
  name: 'http',
  title:
    "HTTP API from outside: the engine's own process under a load generator in another, against GET /health of the same engine",
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const plan = quick ? quickPlan : fullPlan;
    const engine = await startEngineChild(
      scratchDirectory,
      { STRATA_STORE: `sqlite:${path.join(scratchDirectory, 'http.db')}` },
      { eventLoopProbe: true },
    );
    try {
      progress.step('http', `engine pid ${engine.pid} at ${engine.url}; seeding the read session`);
      const readSession = await seedReadSession(engine.url);
      const contextResponse = await fetch(`${engine.url}/sessions/${READ_SESSION_ID}/context`);
      const contextBytes = (await contextResponse.arrayBuffer()).byteLength;
      await untilCaughtUp(engine);
      const runs = specs.map((): RunRecord[] => []);
      for (let round = 0; round < plan.rounds; round += 1) {
        for (const [index, spec] of specs.entries()) {
          runs[index]!.push(await runOnce(engine, spec, round, plan, progress));
        }
      }
      engine.assertRunning();
      const memory = engine.memory();
      const cases = specs.map((spec, index) => caseResult(spec, runs[index]!));
      const checks = goalChecks(cases);
      const notices = checks.map(
        (check) => `${check.met ? 'goal met' : 'goal MISSED'}: ${check.goal}: ${check.measured}`,
      );
      for (const result of cases) {
        if (result.details['unexpected'] !== 0) {
          notices.push(
            `${result.name}: ${String(result.details['unexpected'])} unexpected answers (${String(result.details['firstProblem'])})`,
          );
        }
      }
      notices.push(
        'The engine (`node bin/engine.js`, default settings, SQLite) and the load generator (wrk, kept-alive connections, closed loop) are separate processes on the same two cores: ' +
          "wrk's own CPU is in the table. Engine CPU is user + system from /proc/<pid>/stat (10 ms ticks) from just before wrk started until it ended; " +
          'the catch-up after it is the work still owed to the read models once wrk had stopped (until /ready had 0 positions behind). ' +
          'The longest stall is the largest delay of a 10 ms timer in the engine less its 10 ms (monitorEventLoopDelay, preloaded); on a loaded machine it includes time the engine was not scheduled.',
      );
      return {
        cases,
        notices,
        figures: chartFigures(cases),
        tables: [mainTable(cases, plan), goalTable(checks)],
        facts: {
          plan,
          agentCounts: AGENT_COUNTS,
          readSession: { ...readSession, contextResponseBytes: contextBytes },
          engine: {
            pid: engine.pid,
            settings: 'defaults (tokenizer o200k, anchors on, one tenant without API keys)',
            peakRssBytes: memory.peakRssBytes,
            endRssBytes: memory.rssBytes,
          },
          goals: checks,
          runs: specs.map((spec, index) => ({
            name: spec.name,
            rounds: runs[index]!.map((record) => ({
              requests: record.run.requests,
              durationMs: record.run.durationMs,
              connections: record.run.connections,
              wrkThreads: record.run.threads,
              statuses: record.run.statuses,
              unexpected: record.run.unexpected,
              latencyMs: {
                min: record.run.minMs,
                p50: record.run.tenthsMs[499],
                p99: record.run.tenthsMs[989],
                max: record.run.maxMs,
                mean: record.run.meanMs,
              },
              setupMs: Math.round(record.setupMs),
              engineCpuMs: record.engineCpuMs,
              wrkCpuMs: record.run.generatorCpuMs,
              catchUpMs: Math.round(record.catchUpMs),
              catchUpCpuMs: record.catchUpCpuMs,
              loop: record.loop,
            })),
          })),
        },
      };
    } finally {
      await engine.stop();
    }
  },
};
