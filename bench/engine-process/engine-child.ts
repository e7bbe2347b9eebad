// The engine as a child process of the benchmark (`node bin/engine.js`, what `npm start` runs),
// configured by environment like a deployment and listening on a free loopback port, with its
// resident memory read from /proc: VmRSS sampled while it runs, VmHWM (the peak) at the end; its
// CPU time (user + system) from /proc/<pid>/stat; and, when asked for, its event loop watched
// from inside by a preloaded probe (event-loop-probe.ts) that answers over an IPC channel.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freeLoopbackPort } from '@strata/testing';
import type { LoopDelayReport, ProbeAnswer, ProbeRequest } from './event-loop-probe';
import { processCpuMs } from './process-cpu';

const repositoryRoot = path.resolve(__dirname, '..', '..');
const STARTUP_TIMEOUT_MS = 90_000;
const RSS_SAMPLE_INTERVAL_MS = 200;
/** How long the probe may take to answer (it answers once the engine's loop turns again). */
const PROBE_TIMEOUT_MS = 120_000;

export interface EngineChildOptions {
  /** Preload event-loop-probe.ts into the engine, so that `loopDelay` can be asked. */
  readonly eventLoopProbe?: boolean;
}

/** The engine's own event loop, as the preloaded probe sees it. */
export interface LoopDelayProbe {
  /** Empties the probe's histogram (the start of a window). */
  reset(): Promise<void>;
  /** The figures since the last reset. */
  report(): Promise<LoopDelayReport>;
}

export interface ResidentMemory {
  readonly rssBytes: number;
  /** The peak resident set since the process started. */
  readonly peakRssBytes: number;
}

export interface RssSample {
  /** `performance.now()` of the benchmark process when the sample was taken. */
  readonly at: number;
  readonly rssBytes: number;
}

export interface EngineChild {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** What the engine wrote to stderr so far. */
  stderr(): string;
  /** Throws when the engine has ended (it must stay up through every attack). */
  assertRunning(): void;
  memory(): ResidentMemory;
  /** User + system CPU milliseconds the engine has used since it started. */
  cpuMs(): number;
  /** Present when started with `eventLoopProbe`. */
  readonly loopDelay: LoopDelayProbe | undefined;
  /** VmRSS samples taken between `from` and `to` (`performance.now()` times). */
  rssSamples(from: number, to: number): readonly RssSample[];
  stop(): Promise<void>;
}

/**
 * `STRATA_BENCH_ENGINE_PROFILE=<directory>` starts the engine under V8's sampling profiler
 * (`--cpu-prof`, one `.cpuprofile` per thread in that directory) to see where a case spends its
 * time; the figures of such a run are slower and are not for the committed results.
 */
function profilerArguments(): string[] {
  const directory = process.env.STRATA_BENCH_ENGINE_PROFILE;
  if (directory === undefined || directory === '') return [];
  return ['--cpu-prof', `--cpu-prof-dir=${path.resolve(directory)}`];
}

function kilobytesField(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match?.[1] === undefined) throw new Error(`/proc status has no ${field}`);
  return Number(match[1]) * 1024;
}

export function residentMemoryOf(pid: number): ResidentMemory {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssBytes: kilobytesField(status, 'VmRSS'), peakRssBytes: kilobytesField(status, 'VmHWM') };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

async function untilHealthy(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the engine ended while starting:\n${stderr()}`);
    }
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    await sleep(200);
  }
  throw new Error(`the engine did not answer /health within ${STARTUP_TIMEOUT_MS} ms:\n${stderr()}`);
}

function probeClient(child: ChildProcess): LoopDelayProbe {
  let nextId = 0;
  const pending = new Map<number, (answer: ProbeAnswer) => void>();
  child.on('message', (message: ProbeAnswer) => {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const ask = (probe: ProbeRequest['probe']): Promise<ProbeAnswer> =>
    new Promise((resolve, reject) => {
      const id = (nextId += 1);
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(
          new Error(`the engine's event-loop probe did not answer ${probe} within ${PROBE_TIMEOUT_MS} ms`),
        );
      }, PROBE_TIMEOUT_MS);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      const request: ProbeRequest = { probe, id };
      child.send(request);
    });
  return {
    async reset() {
      await ask('reset');
    },
    async report() {
      const answer = await ask('report');
      if (answer.report === undefined) throw new Error('the event-loop probe answered without a report');
      return answer.report;
    },
  };
}

/** Starts `bin/engine.js` with `environment` (plus PORT and STRATA_HOST) and waits for /health. */
export async function startEngineChild(
  directory: string,
  environment: Readonly<Record<string, string>>,
  options: EngineChildOptions = {},
): Promise<EngineChild> {
  const port = await freeLoopbackPort();
  const preload = options.eventLoopProbe
    ? [
        '--require',
        path.join(repositoryRoot, 'scripts', 'register.js'),
        '--require',
        path.join(__dirname, 'event-loop-probe.ts'),
      ]
    : [];
  const child = spawn(
    process.execPath,
    [...profilerArguments(), ...preload, path.join(repositoryRoot, 'bin', 'engine.js')],
    {
      cwd: directory,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        STRATA_HOST: '127.0.0.1',
        ...environment,
      },
      stdio: options.eventLoopProbe ? ['ignore', 'ignore', 'pipe', 'ipc'] : ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid;
  if (pid === undefined) throw new Error('the engine process did not start');
  const url = `http://127.0.0.1:${port}`;
  try {
    await untilHealthy(url, child, () => stderr);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const samples: RssSample[] = [];
  const sampler = setInterval(() => {
    try {
      samples.push({ at: performance.now(), rssBytes: residentMemoryOf(pid).rssBytes });
    } catch {
      // the process has ended; assertRunning reports it
    }
  }, RSS_SAMPLE_INTERVAL_MS);
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    url,
    pid,
    child,
    stderr: () => stderr,
    assertRunning() {
      if (!running()) {
        throw new Error(
          `the engine ended (${String(child.signalCode ?? child.exitCode)}); its stderr:\n${stderr}`,
        );
      }
    },
    memory: () => residentMemoryOf(pid),
    cpuMs: () => processCpuMs(pid),
    loopDelay: options.eventLoopProbe ? probeClient(child) : undefined,
    rssSamples: (from, to) => samples.filter((sample) => sample.at >= from && sample.at <= to),
    async stop() {
      clearInterval(sampler);
      if (running()) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

const CATCH_UP_TIMEOUT_MS = 180_000;

/**
 * Waits until the engine's /ready answers 200 with its projections at the head of the log (0
 * positions behind); the milliseconds it took. With API keys configured, `authorization` must
 * carry a tenant's key (without one /ready tells no positions).
 */
export async function untilCaughtUp(engine: EngineChild, authorization?: string): Promise<number> {
  const started = performance.now();
  const deadline = started + CATCH_UP_TIMEOUT_MS;
  // what /ready said last, for the error when it never says caught up
  let lastAnswer = 'no answer yet';
  while (performance.now() < deadline) {
    engine.assertRunning();
    const response = await fetch(`${engine.url}/ready`, {
      headers: authorization === undefined ? {} : { authorization },
    }).catch((error: unknown) => {
      lastAnswer = `fetch failed: ${error instanceof Error ? error.message : String(error)}`;
      return undefined;
    });
    if (response !== undefined) {
      const text = await response.text();
      lastAnswer = `${response.status} ${text.slice(0, 600)}`;
      if (response.status === 200) {
        const body = JSON.parse(text) as { checks?: { projections?: { positionsBehind?: string | null } } };
        if (body.checks?.projections?.positionsBehind === '0') return performance.now() - started;
      }
    }
    await sleep(100);
  }
  throw new Error(
    `the engine did not catch up within ${CATCH_UP_TIMEOUT_MS / 1000} s; /ready last answered ${lastAnswer}\n${engine.stderr()}`,
  );
}
