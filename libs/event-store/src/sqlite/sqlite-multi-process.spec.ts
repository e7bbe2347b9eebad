import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { collect, idsOf, SubscriptionReader } from '../contract';
import { SqliteEventStore } from './sqlite-event-store';

const repositoryRoot = resolve(__dirname, '../../../..');
const workerScript = 'libs/event-store/src/sqlite/multi-process-append.worker.ts';
const workerCount = 4;
const eventsPerWorker = 30;

interface RunningWorker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly finished: Promise<{ worker: string; conflicts: number }>;
}

function startWorker(filename: string, worker: string): RunningWorker {
  const child = spawn(
    process.execPath,
    ['bin/run-ts.js', workerScript, filename, worker, String(eventsPerWorker)],
    {
      cwd: repositoryRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let errors = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const finished = new Promise<{ worker: string; conflicts: number }>((resolveFinished, reject) => {
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`worker ${worker} exited with ${code}: ${errors}`));
      const last = output.trim().split('\n').pop() ?? '{}';
      resolveFinished(JSON.parse(last) as { worker: string; conflicts: number });
    });
  });
  return { child, ready, finished };
}

describe('SqliteEventStore shared by several processes', () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-multi-'));
  });

  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('loses and duplicates nothing when processes append to the same file at once, and a subscriber in another process sees every event once', async () => {
    const filename = join(directory, 'shared.db');
    const store = new SqliteEventStore({ filename, pollIntervalMs: 20 });
    const reader = new SubscriptionReader(store.subscribe(), 20_000);
    const workers: RunningWorker[] = [];
    try {
      await reader.untilCaughtUp();
      workers.push(...Array.from({ length: workerCount }, (_, index) => startWorker(filename, `w${index}`)));
      await Promise.all(workers.map((worker) => worker.ready));
      for (const worker of workers) worker.child.stdin!.end('go\n');
      const reports = await Promise.all(workers.map((worker) => worker.finished));

      const total = workerCount * eventsPerWorker * 2;
      const delivered = await reader.events(total);
      const shared = await collect(store.readStream('shared'));
      const everything = await collect(store.readAll());

      expect(shared.map((event) => event.revision)).toEqual(
        Array.from({ length: workerCount * eventsPerWorker }, (_, index) => BigInt(index)),
      );
      const expectedSharedIds = reports.flatMap(({ worker }) =>
        Array.from({ length: eventsPerWorker }, (_, index) => `${worker}-shared-${index}`),
      );
      expect(new Set(idsOf(shared))).toEqual(new Set(expectedSharedIds));
      for (const { worker } of reports) {
        const own = await collect(store.readStream(`own-${worker}`));
        expect(idsOf(own)).toEqual(
          Array.from({ length: eventsPerWorker }, (_, index) => `${worker}-own-${index}`),
        );
      }
      expect(everything).toHaveLength(total);
      expect(new Set(idsOf(everything)).size).toBe(total);
      everything
        .slice(1)
        .forEach((event, index) => expect(event.position > everything[index]!.position).toBe(true));
      expect(idsOf(delivered)).toEqual(idsOf(everything));
      process.stdout.write(
        `multi-process conflicts met and retried: ${reports.map((report) => report.conflicts).join(', ')}\n`,
      );
    } finally {
      for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill();
      await reader.close();
      await store.close();
    }
  });
});
