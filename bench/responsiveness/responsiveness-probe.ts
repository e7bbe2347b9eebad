// How long the engine stops answering while it takes in a large session: an engine process
// (`bin/engine.js`, SQLite store in a temporary directory, default o200k tokenizer) imports
// each pi fixture under a fresh session id, then answers its first context read, while a client
// asks `GET /health` every 20 ms. Reported per run: the import's answer time, the first context
// read, and the longest and median /health answer from just before the import until 3 s after
// the context read. Results go to bench/results/responsiveness/ (not a suite: `npm run bench` skips them).
//   node bin/run-ts.js bench/responsiveness/responsiveness-probe.ts [--runs N] [--engine <bin/engine.js>] [--out <file.json>]
// `--engine` points at another checkout's engine to compare commits (the results name it).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { freeLoopbackPort } from '@strata/testing';
import { describeMachine } from '../harness';

const repositoryRoot = path.resolve(__dirname, '..', '..');
const fixturesDirectory = path.resolve(repositoryRoot, '..', 'shared', 'fixtures', 'pi');
const fixtures = ['before-compaction.jsonl', 'large-session.jsonl'];
const HEALTH_INTERVAL_MS = 20;
const SETTLE_MS = 3_000;

interface ProbeRun {
  readonly fixture: string;
  readonly importAnswerMs: number;
  readonly firstContextMs: number;
  readonly longestHealthMs: number;
  readonly medianHealthMs: number;
  readonly healthRequests: number;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const rounded = (milliseconds: number) => Math.round(milliseconds);

async function startEngine(enginePath: string, port: number, directory: string): Promise<ChildProcess> {
  const engine = spawn(process.execPath, [enginePath], {
    cwd: directory,
    env: { ...process.env, PORT: String(port), STRATA_STORE: `sqlite:${path.join(directory, 'events.db')}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (engine.exitCode !== null) throw new Error(`the engine exited with ${engine.exitCode} while starting`);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return engine;
    await sleep(200);
  }
  engine.kill('SIGKILL');
  throw new Error('the engine was not ready within 60 s');
}

/** The fixture's lines with a fresh session id in its header (entry lines byte for byte). */
function freshCopy(fixture: string): { sessionId: string; body: string } {
  const lines = fs.readFileSync(path.join(fixturesDirectory, fixture), 'utf8').split('\n');
  const header = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
  const sessionId = randomUUID();
  lines[0] = JSON.stringify({ ...header, id: sessionId });
  return { sessionId, body: lines.join('\n') };
}

async function probe(base: string, fixture: string): Promise<ProbeRun> {
  const { sessionId, body } = freshCopy(fixture);
  const latencies: number[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const started = performance.now();
      await (await fetch(`${base}/health`)).text();
      latencies.push(performance.now() - started);
      await sleep(HEALTH_INTERVAL_MS);
    }
  })();
  await sleep(300);
  const importStarted = performance.now();
  const imported = await fetch(`${base}/sessions/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body,
  });
  const importAnswerMs = performance.now() - importStarted;
  await imported.text();
  if (imported.status !== 201) throw new Error(`import answered ${imported.status}`);
  const contextStarted = performance.now();
  const context = await fetch(`${base}/sessions/${sessionId}/context`);
  await context.text();
  const firstContextMs = performance.now() - contextStarted;
  if (!context.ok) throw new Error(`the context read answered ${context.status}`);
  await sleep(SETTLE_MS);
  polling = false;
  await poller;
  const sorted = [...latencies].sort((left, right) => left - right);
  return {
    fixture,
    importAnswerMs: rounded(importAnswerMs),
    firstContextMs: rounded(firstContextMs),
    longestHealthMs: rounded(sorted[sorted.length - 1] ?? 0),
    medianHealthMs: rounded(sorted[Math.floor(sorted.length / 2)] ?? 0),
    healthRequests: sorted.length,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      engine: { type: 'string', default: path.join(repositoryRoot, 'bin', 'engine.js') },
      out: {
        type: 'string',
        default: path.join(repositoryRoot, 'bench', 'results', 'responsiveness', 'current.json'),
      },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, not ${values.runs}`);
  const enginePath = path.resolve(values.engine);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-responsiveness-'));
  const port = await freeLoopbackPort();
  const engine = await startEngine(enginePath, port, directory);
  const results: ProbeRun[] = [];
  try {
    for (let run = 1; run <= runs; run += 1) {
      for (const fixture of fixtures) {
        const result = await probe(`http://127.0.0.1:${port}`, fixture);
        process.stderr.write(`run ${run}/${runs} ${JSON.stringify(result)}\n`);
        results.push(result);
      }
    }
  } finally {
    engine.kill('SIGTERM');
    fs.rmSync(directory, { recursive: true, force: true });
  }
  const record = {
    method:
      'one engine process per probe; each run imports the fixture under a fresh id, then reads its context, ' +
      `while GET /health is asked every ${HEALTH_INTERVAL_MS} ms until ${SETTLE_MS} ms after the read`,
    engine: path.relative(repositoryRoot, enginePath) || enginePath,
    engineCommit: describeMachine(path.resolve(path.dirname(enginePath), '..')).gitCommit,
    machine: describeMachine(repositoryRoot),
    recordedAt: new Date().toISOString(),
    runs: results,
  };
  fs.mkdirSync(path.dirname(values.out), { recursive: true });
  fs.writeFileSync(values.out, `${JSON.stringify(record, null, 2)}\n`);
  process.stderr.write(`written to ${values.out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
