// One measured run of the http suite: the sessions a row needs (the read session, the agents'
// sessions, untimed), then wrk's warm-up run and measured run against the engine's process, with
// the engine's CPU time, its event loop and the catch-up after the run read around it.
import { formatMilliseconds, formatRate, type Progress } from '../harness';
import { generateSession } from '../context/generate-session';
import { untilCaughtUp, type EngineChild } from '../engine-process/engine-child';
import type { LoopDelayReport } from '../engine-process/event-loop-probe';
import { READ_SESSION_ENTRIES, READ_SESSION_ID, type HttpPlan, type RunSpec } from './http-scenarios';
import { runWrk, type WrkRun, type WrkScenario } from './wrk-load';

const SEED_CHUNK = 250;

/** One measured run of one spec, and what the bench saw around it. */
export interface RunRecord {
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
export async function seedReadSession(baseUrl: string): Promise<{ entries: number; compactions: number }> {
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

export async function runOnce(
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
