// One phase of the isolation suite: tenant B's workload on a fresh session for one window, on a
// quiet engine or while one attack of tenant A runs, with the engine's event loop (its probe,
// over IPC) and resident memory and this process's own event loop watched over the window.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { untilCaughtUp, type EngineChild } from '../engine-process/engine-child';
import type { LoopDelayReport } from '../engine-process/event-loop-probe';
import type { Attack, AttackReport } from './tenant-a-attacks';
import { seedSession, startWorkload, type WorkloadFigures } from './tenant-b-workload';
import type { TenantHttp } from './tenant-http';

const MiB = 2 ** 20;

export type PhaseName = 'quiet' | Attack['name'];

export interface PhaseResult {
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

export const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** This process's own event loop (the clients of both tenants), watched like the engine's. */
const CLIENT_LOOP_RESOLUTION_MS = 10;
export const clientLoop = monitorEventLoopDelay({ resolution: CLIENT_LOOP_RESOLUTION_MS });

export async function runPhase(
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

/** The letter of each attack in the suite's header comment: (a) import, (b) appends, (c) streams. */
export function letterOf(name: PhaseName): string {
  return name === 'import' ? 'a' : name === 'appends' ? 'b' : name === 'streams' ? 'c' : '-';
}
