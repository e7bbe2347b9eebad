// The watch suite (issue 15): `strata watch` as its own process follows 100 pi session files in
// one folder into a SQLite store while this process appends 10 lines per second in all, each to
// a file picked at random. Measured: the CPU of the watch process (user + system ticks from
// /proc/<pid>/stat, read by this process) and the delay from a line written to its event stored
// (the store's createdAt minus the time of the write). Baselines in the same run: the same watch
// process with nothing written (its idle CPU), and the delay of a bare fs.watch in this process
// (when the kernel told it of each write). Goals: p99 under 1 s, CPU under 10% of one core.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { serializeSessionFile, type SessionEntry } from '@strata/session';
import { session } from '@strata/testing';
import { percentile, type BenchSuite, type SuiteContext } from '../harness';

const FILES = 100;
const LINES_PER_SECOND = 10;
const CLOCK_TICKS_PER_SECOND = 100;
const repositoryRoot = join(__dirname, '..', '..');

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command name (which may hold spaces) start after its closing parenthesis
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

async function storedCount(storePath: string): Promise<number> {
  const store = new SqliteEventStore({ filename: storePath });
  let count = 0;
  for await (const event of store.readAll()) if (event.type === 'EntryAppended') count += 1;
  await store.close();
  return count;
}

async function waitForCount(storePath: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await storedCount(storePath)) < count) {
    if (Date.now() > deadline) throw new Error(`the watch process stored fewer than ${count} entries`);
    await sleep(200);
  }
}

function lineFor(fileIndex: number, lineIndex: number, parentId: string): SessionEntry {
  return {
    type: 'message',
    id: `w${fileIndex}-${lineIndex}`,
    parentId,
    timestamp: new Date().toISOString(),
    message: {
      role: 'user',
      content: `line ${lineIndex} of file ${fileIndex} ${'x'.repeat(200)}`,
      timestamp: Date.now(),
    },
  };
}

interface Run {
  readonly cpuPercent: number;
  readonly delaysMs: readonly number[];
  readonly watchDelaysMs: readonly number[];
  readonly linesWritten: number;
}

async function measure(context: SuiteContext, seconds: number, write: boolean, name: string): Promise<Run> {
  const directory = join(context.scratchDirectory, name);
  const folder = join(directory, 'sessions');
  mkdirSync(folder, { recursive: true });
  const storePath = join(directory, 'strata.db');
  const parents: string[] = [];
  for (let index = 0; index < FILES; index += 1) {
    const builder = session({ sessionId: `watch-bench-${index}`, idPrefix: `f${index}-` }).user('start');
    writeFileSync(join(folder, `${index}.jsonl`), serializeSessionFile(builder.header, builder.entries));
    parents.push(builder.lastId);
  }
  const child: ChildProcess = spawn(
    process.execPath,
    [join(repositoryRoot, 'bin', 'strata.js'), 'watch', folder, '--store', `sqlite:${storePath}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitForCount(storePath, FILES, 60_000);
    await sleep(1_000);
    const written = new Map<string, number>();
    const watchSeen: number[] = [];
    const bare = watch(folder, () => watchSeen.push(Date.now()));
    const writeTimes: number[] = [];
    const ticksBefore = cpuTicks(child.pid!);
    const startedAt = Date.now();
    let lines = 0;
    const total = write ? seconds * LINES_PER_SECOND : 0;
    let random = 12345;
    for (let slot = 0; Date.now() - startedAt < seconds * 1_000; slot += 1) {
      const due = startedAt + (slot * 1_000) / LINES_PER_SECOND;
      await sleep(Math.max(0, due - Date.now()));
      if (lines >= total) continue;
      random = (random * 1103515245 + 12345) % 2147483648;
      const fileIndex = random % FILES;
      const entry = lineFor(fileIndex, lines, parents[fileIndex]!);
      parents[fileIndex] = entry.id;
      const now = Date.now();
      appendFileSync(join(folder, `${fileIndex}.jsonl`), `${JSON.stringify(entry)}\n`);
      written.set(entry.id, now);
      writeTimes.push(now);
      lines += 1;
    }
    const elapsedSeconds = (Date.now() - startedAt) / 1_000;
    const ticks = cpuTicks(child.pid!) - ticksBefore;
    bare.close();
    await waitForCount(storePath, FILES + lines, 30_000);
    const store = new SqliteEventStore({ filename: storePath });
    const delaysMs: number[] = [];
    for await (const event of store.readAll()) {
      if (event.type !== 'EntryAppended') continue;
      const id = (event.data as { entry: { id: string } }).entry.id;
      const writtenAt = written.get(id);
      if (writtenAt !== undefined) delaysMs.push(Date.parse(event.createdAt) - writtenAt);
    }
    await store.close();
    // the first fs.watch event at or after each write
    const watchDelaysMs = writeTimes.flatMap((time) => {
      const seen = watchSeen.find((at) => at >= time);
      return seen === undefined ? [] : [seen - time];
    });
    return {
      cpuPercent: (ticks / CLOCK_TICKS_PER_SECOND / elapsedSeconds) * 100,
      delaysMs: delaysMs.sort((a, b) => a - b),
      watchDelaysMs: watchDelaysMs.sort((a, b) => a - b),
      linesWritten: lines,
    };
  } catch (error) {
    throw new Error(`${String(error)}; watch wrote:\n${log}`, { cause: error });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export const watchSuite: BenchSuite = {
  name: 'watch',
  title: 'strata watch following 100 files (issue 15)',
  async run(context) {
    const seconds = context.quick ? 10 : 60;
    context.progress.step('watch', `idle watch of ${FILES} files for ${seconds} s`);
    const idle = await measure(context, seconds, false, 'idle');
    context.progress.step('watch', `${LINES_PER_SECOND} lines/s into ${FILES} files for ${seconds} s`);
    const busy = await measure(context, seconds, true, 'busy');
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    const percent = (value: number) => `${value.toFixed(2)} %`;
    const p = (values: readonly number[], fraction: number) =>
      values.length > 0 ? percentile(values, fraction) : 0;
    return {
      cases: [],
      notices: [],
      facts: {
        files: FILES,
        linesPerSecond: LINES_PER_SECOND,
        seconds,
        linesWritten: busy.linesWritten,
        linesStoredWithDelay: busy.delaysMs.length,
        maxDelayMs: busy.delaysMs[busy.delaysMs.length - 1] ?? 0,
        goals: { p99DelayMs: 1_000, cpuPercentOfOneCore: 10 },
      },
      figures: [
        {
          title: 'CPU of the watch process (% of one core)',
          unit: '%',
          lowerIsBetter: true,
          rows: [
            {
              label: 'idle watch, nothing written',
              role: 'baseline',
              value: idle.cpuPercent,
              display: percent(idle.cpuPercent),
            },
            {
              label: `${LINES_PER_SECOND} lines/s into ${FILES} files`,
              role: 'subject',
              value: busy.cpuPercent,
              display: percent(busy.cpuPercent),
            },
          ],
        },
        {
          title: 'delay from a line written to its event stored (ms)',
          unit: 'ms',
          lowerIsBetter: true,
          rows: [
            {
              label: 'bare fs.watch event, p99',
              role: 'baseline',
              value: p(busy.watchDelaysMs, 0.99),
              display: ms(p(busy.watchDelaysMs, 0.99)),
            },
            {
              label: 'stored, p50',
              role: 'subject',
              value: p(busy.delaysMs, 0.5),
              display: ms(p(busy.delaysMs, 0.5)),
            },
            {
              label: 'stored, p99',
              role: 'subject',
              value: p(busy.delaysMs, 0.99),
              display: ms(p(busy.delaysMs, 0.99)),
            },
          ],
        },
      ],
    };
  },
};
