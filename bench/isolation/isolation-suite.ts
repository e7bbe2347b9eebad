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
import { loadEngineConfig } from '../../apps/engine/src/config/engine-config';
import type { BenchSuite } from '../harness';
import { startEngineChild } from '../engine-process/engine-child';
import { limitsOf } from './engine-limits';
import { phaseFigures } from './isolation-figures';
import { goalChecks, goalNotice, P99_FACTOR_GOAL, STALL_GOAL_MS } from './isolation-goals';
import { clientLoop, runPhase, sleep, type PhaseResult } from './isolation-phase';
import { describePhase, loopTable, memoryTables, phaseTable } from './isolation-report';
import {
  CONCURRENT_LARGE_APPENDS,
  heldStreamCount,
  importAttack,
  importEntryLines,
  largeAppendsAttack,
  streamsAttack,
  type Attack,
  type ImportPlan,
} from './tenant-a-attacks';
import { seedSession, startWorkload } from './tenant-b-workload';
import { TenantHttp } from './tenant-http';

const TENANT_A_KEY = 'tenant-a-bench-key-0123456789';
const TENANT_B_KEY = 'tenant-b-bench-key-0123456789';
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

/**
 * `STRATA_BENCH_ISOLATION_ATTACKS=a,b` runs only the attacks named (to profile one of them); every
 * attack otherwise. A run of some attacks is not one for the committed results.
 */
function chosenAttacks(attacks: readonly Attack[]): Attack[] {
  const names = process.env.STRATA_BENCH_ISOLATION_ATTACKS?.split(',').map((name) => name.trim());
  if (names === undefined || names.join('') === '') return [...attacks];
  const chosen = attacks.filter((attack) => names.includes(attack.name));
  if (chosen.length === 0)
    throw new Error(
      `STRATA_BENCH_ISOLATION_ATTACKS names no attack of ${attacks.map((attack) => attack.name).join(', ')}`,
    );
  return chosen;
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
      const attacks: Attack[] = chosenAttacks([
        importAttack(clients.a, entryLines),
        largeAppendsAttack(clients.a, limits.bodyLimitBytes),
        streamsAttack(clients.a, clients.b, limits.streamsPerTenant),
      ]);
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
      const notices = checks.map(goalNotice);
      const streams = heldStreamCount(limits.streamsPerTenant);
      notices.push(
        `Attack (c) holds ${streams.why}.`,
        `Engine peak RSS (VmHWM) ${(memory.peakRssBytes / MiB).toFixed(0)} MiB, ${peakGrowth.toFixed(0)} MiB above the quiet phase's largest sample.`,
        "The engine is its own process; tenant B and tenant A are clients in the benchmark process, on the same two cores. This process's own longest stall per window is in the event-loop table: B's timings cannot be shorter than it.",
      );
      return {
        cases: [],
        notices,
        figures: phaseFigures(phases),
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
