// The engine as a child process of the benchmark (`node bin/engine.js`, what `npm start` runs),
// configured by environment like a deployment and listening on a free loopback port, with its
// resident memory read from /proc: VmRSS sampled while it runs, VmHWM (the peak) at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freeLoopbackPort } from '@strata/testing';

const repositoryRoot = path.resolve(__dirname, '..', '..');
const STARTUP_TIMEOUT_MS = 90_000;
const RSS_SAMPLE_INTERVAL_MS = 200;

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
  /** VmRSS samples taken between `from` and `to` (`performance.now()` times). */
  rssSamples(from: number, to: number): readonly RssSample[];
  stop(): Promise<void>;
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

/** Starts `bin/engine.js` with `environment` (plus PORT and STRATA_HOST) and waits for /health. */
export async function startEngineChild(
  directory: string,
  environment: Readonly<Record<string, string>>,
): Promise<EngineChild> {
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [path.join(repositoryRoot, 'bin', 'engine.js')], {
    cwd: directory,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      STRATA_HOST: '127.0.0.1',
      ...environment,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
