// The http suite's load generator: wrk (the Debian package, a C program) in a process of its own,
// driven by wrk-load.lua, so that the client costs next to nothing of the two cores it shares with
// the engine (about 0.05 ms of CPU per request, against 0.3–0.4 ms for a node:http client, whose
// closed loop then held GET /health to a third of wrk's rate on the same engine). wrk runs a closed
// loop: each connection sends its next request once the previous one has answered. It is started
// through `sh`, which reads its own /proc/<pid>/stat after wrk has ended: the CPU time of the
// children it waited for (cutime + cstime) is wrk's own.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { percentile } from '../harness';

const SCRIPT = path.join(__dirname, 'wrk-load.lua');
const CLOCK_TICKS_PER_SECOND = 100;
const JSON_MARK = 'WRK_JSON ';
/** wrk's per-request timeout: far above any latency measured, so a slow answer is a latency, not an error. */
const REQUEST_TIMEOUT = '60s';

export type WrkScenario =
  /** GET `path`, 2 threads sharing the connections; 2xx expected (wrk counts answers above 399). */
  | { readonly kind: 'get'; readonly path: string }
  /** Each connection an agent on its own thread, appending to `<sessionPrefix>-<agent>`; 200 expected. */
  | { readonly kind: 'append'; readonly sessionPrefix: string };

export interface WrkRun {
  readonly connections: number;
  readonly threads: number;
  /** Answers that were complete when the run ended. */
  readonly requests: number;
  readonly durationMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly meanMs: number;
  /** wrk's latency histogram (µs resolution) read at 0.1%, 0.2%, … 99.9%, in milliseconds. */
  readonly tenthsMs: readonly number[];
  /** Answers by status (append runs; wrk reports only a count above 399 for GET runs). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Answers other than expected, socket errors and timeouts. */
  readonly unexpected: number;
  readonly socketErrors: number;
  readonly firstProblem: string | null;
  /** wrk's user + system CPU over its whole run. */
  readonly generatorCpuMs: number;
}

interface WrkJson {
  readonly durationUs: number;
  readonly requests: number;
  readonly errors: Readonly<Record<'connect' | 'read' | 'write' | 'status' | 'timeout', number>>;
  readonly latencyUs: {
    readonly min: number;
    readonly max: number;
    readonly mean: number;
    readonly tenths: number[];
  };
  readonly statuses: Readonly<Record<string, number>>;
  readonly firstProblem: string | null;
}

/** cutime + cstime of the `sh` that ran wrk, from the stat line it printed last on stderr. */
function childrenCpuMs(stderr: string): number {
  const line = stderr.trimEnd().split('\n').pop() ?? '';
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]);
  if (!Number.isFinite(ticks)) throw new Error(`no CPU time of wrk in: ${line}`);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Runs wrk for `seconds` (whole seconds: wrk takes no fractions) against `baseUrl`. */
export async function runWrk(
  baseUrl: string,
  scenario: WrkScenario,
  connections: number,
  seconds: number,
): Promise<WrkRun> {
  const threads = scenario.kind === 'append' ? connections : Math.min(2, connections);
  const scriptArgs = scenario.kind === 'append' ? ['append', scenario.sessionPrefix] : ['get', scenario.path];
  const args = [
    `-t${threads}`,
    `-c${connections}`,
    `-d${Math.max(1, Math.round(seconds))}s`,
    '--timeout',
    REQUEST_TIMEOUT,
    '-s',
    SCRIPT,
    baseUrl,
    '--',
    ...scriptArgs,
  ];
  const child = spawn(
    'sh',
    [
      '-c',
      'wrk "$@"; code=$?; read -r stat < /proc/$$/stat; echo "$stat" >&2; exit $code',
      'wrk-load',
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(JSON_MARK));
  if (code !== 0 || line === undefined) {
    throw new Error(`wrk ${args.join(' ')} ended with ${String(code)}:\n${stdout}\n${stderr}`);
  }
  const figures = JSON.parse(line.slice(JSON_MARK.length)) as WrkJson;
  const socketErrors =
    figures.errors.connect + figures.errors.read + figures.errors.write + figures.errors.timeout;
  const unexpectedAnswers =
    scenario.kind === 'append'
      ? Object.entries(figures.statuses).reduce(
          (sum, [status, count]) => sum + (status === '200' ? 0 : count),
          0,
        )
      : figures.errors.status;
  const ms = (microseconds: number): number => microseconds / 1000;
  return {
    connections,
    threads,
    requests: figures.requests,
    durationMs: ms(figures.durationUs),
    minMs: ms(figures.latencyUs.min),
    maxMs: ms(figures.latencyUs.max),
    meanMs: ms(figures.latencyUs.mean),
    tenthsMs: figures.latencyUs.tenths.map(ms),
    statuses: figures.statuses,
    unexpected: unexpectedAnswers + socketErrors,
    socketErrors,
    firstProblem:
      figures.firstProblem ??
      (unexpectedAnswers > 0 ? `${unexpectedAnswers} answers above 399` : null) ??
      (socketErrors > 0 ? `socket errors ${JSON.stringify(figures.errors)}` : null),
    generatorCpuMs: childrenCpuMs(stderr),
  };
}

/** The latency at `fraction` (0..1) of one run, interpolated in its table (min and max at the ends). */
function runQuantile(run: WrkRun, fraction: number): number {
  const points = [run.minMs, ...run.tenthsMs, run.maxMs];
  return percentile(points, fraction);
}

/**
 * Latencies standing for every request of `runs`: each run's answers spread over its quantile
 * table (request k of n at quantile (k + ½) / n), so that runs of different lengths pool by their
 * number of requests. Exact to wrk's microsecond and to the 0.1% steps of the table.
 */
export function pooledLatenciesMs(runs: readonly WrkRun[]): number[] {
  return runs.flatMap((run) =>
    Array.from({ length: run.requests }, (_, index) => runQuantile(run, (index + 0.5) / run.requests)),
  );
}
