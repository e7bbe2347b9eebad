// The first context of a long session after a restart (issue 22 item 4): a session of 3,000
// messages (1,000 turns of three small entries: a prompt, a tool call, its result) imported into
// a SQLite file as `strata import` writes it (sealed), then read cold, with the engine's o200k
// counter, by
// - a new store, projection storage and context projection over the same file, in this process
//   (what a restart builds; the JIT is warm here, so this is the work alone), without and with
//   the token counts the projection stores, interleaved round by round;
// - the engine itself: `node bin/engine.js` started on the file, `/ready` awaited, then the first
//   `GET /sessions/{id}/context` timed from this process; the engine is stopped and started again
//   for every read, alternately with the stored counts deleted beforehand (as before they
//   existed) and kept.
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@strata/event-store';
import { ContextProjection, sqliteProjectionStorage, type ProjectionStorage } from '@strata/projections';
import { serializeSessionFile } from '@strata/session';
import { importSessionFile } from '@strata/session-files';
import { SessionBuilder } from '@strata/testing';
import { createPreparedTokenCounter } from '@strata/tokenizer';
import { SeededRandom, TextSource } from '../context/synthetic-text';
import { startEngineChild } from '../engine-process/engine-child';
import { percentile, type BenchCase, type FigureGroup, type Progress } from '../harness';

export const RESTART_SESSION_ID = 'restart-3k';
const TURNS = 1_000;

/** 1,000 turns of three small entries, deterministic. */
function restartSessionText(): string {
  const random = new SeededRandom(22);
  const text = new TextSource(random);
  const builder = new SessionBuilder({ sessionId: RESTART_SESSION_ID });
  for (let turn = 0; turn < TURNS; turn += 1) {
    builder
      .user(text.proseOf(random.integer(20, 100)))
      .assistantToolCalls([{ name: 'edit', arguments: { path: `src/module-${turn}.ts` } }], {
        text: text.proseOf(random.integer(10, 75)),
      })
      .toolResult('edit', text.codeOf(random.integer(50, 300)));
  }
  return serializeSessionFile(builder.header, builder.entries);
}

export interface RestartStore {
  readonly file: string;
  readonly messages: number;
  readonly fileBytes: number;
}

/** Imports the session into a new SQLite file in `directory`. */
export async function writeRestartStore(directory: string): Promise<RestartStore> {
  const file = path.join(directory, 'restart-bench.db');
  const text = restartSessionText();
  const store = new SqliteEventStore({ filename: file });
  try {
    const report = await importSessionFile(store, text, { actor: 'bench' });
    return { file, messages: report.entryCount, fileBytes: Buffer.byteLength(text) };
  } finally {
    await store.close();
  }
}

interface Restarted {
  readonly store: SqliteEventStore;
  readonly storage: ProjectionStorage | undefined;
  readonly projection: ContextProjection;
}

function restart(file: string, storesCounts: boolean): Restarted {
  const store = new SqliteEventStore({ filename: file });
  const storage = storesCounts ? sqliteProjectionStorage(file) : undefined;
  const projection = new ContextProjection({
    store,
    tokenCounter: createPreparedTokenCounter('o200k'),
    ...(storage?.tokenCounts !== undefined ? { tokenCounts: storage.tokenCounts } : {}),
  });
  return { store, storage, projection };
}

async function shutDown(restarted: Restarted): Promise<void> {
  await restarted.projection.close();
  await restarted.storage?.close();
  await restarted.store.close();
}

/** Reads the context once with stored counts, so that they are there for the cases. */
export async function primeStoredCounts(file: string): Promise<void> {
  const restarted = restart(file, true);
  await restarted.projection.contextAt(RESTART_SESSION_ID);
  await shutDown(restarted);
}

export function restartCases(restartStore: RestartStore): BenchCase<unknown>[] {
  const group = `first context after a restart · ${restartStore.messages.toLocaleString('en-US')} messages, o200k`;
  const details = { messages: restartStore.messages, fileBytes: restartStore.fileBytes };
  const cold = (storesCounts: boolean): BenchCase<Restarted> => ({
    name: `projection/restart-${restartStore.messages}/${storesCounts ? 'stored-counts' : 'counting'}`,
    group,
    role: storesCounts ? 'subject' : 'baseline',
    label: storesCounts
      ? 'new store and projection, token counts stored'
      : 'new store and projection, counting every message (before)',
    unit: 'context',
    details,
    setup: () => restart(restartStore.file, storesCounts),
    run: (restarted) => restarted.projection.contextAt(RESTART_SESSION_ID),
    teardown: shutDown,
  });
  return [cold(false), cold(true)] as BenchCase<unknown>[];
}

function deleteStoredCounts(file: string): void {
  const database = new Database(file);
  try {
    database
      .prepare('DELETE FROM projection_context_token_counts WHERE session_id = ?')
      .run(RESTART_SESSION_ID);
  } finally {
    database.close();
  }
}

async function untilReady(url: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${url}/ready`);
    await response.arrayBuffer();
    if (response.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function timedGet(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return performance.now() - started;
}

export interface EngineRestartTimings {
  /** First context after a start with the session's counts deleted, ms, in run order. */
  readonly counting: readonly number[];
  readonly storedCounts: readonly number[];
  /** The same read again right after each first one (the session held). */
  readonly warm: readonly number[];
}

/** `restarts` starts of the engine per condition, alternating; each times its first context. */
export async function engineRestartTimings(
  restartStore: RestartStore,
  directory: string,
  restarts: number,
  progress: Progress,
): Promise<EngineRestartTimings> {
  const timings = { counting: [] as number[], storedCounts: [] as number[], warm: [] as number[] };
  for (let round = 0; round < restarts * 2; round += 1) {
    const storesCounts = round % 2 === 1;
    if (!storesCounts) deleteStoredCounts(restartStore.file);
    const engine = await startEngineChild(directory, {
      STRATA_STORE: `sqlite:${restartStore.file}`,
      STRATA_ANCHORS: 'off',
    });
    try {
      await untilReady(engine.url);
      const url = `${engine.url}/sessions/${RESTART_SESSION_ID}/context`;
      (storesCounts ? timings.storedCounts : timings.counting).push(await timedGet(url));
      timings.warm.push(await timedGet(url));
    } finally {
      await engine.stop();
    }
    progress.step('projection', `engine restart ${round + 1} of ${restarts * 2} timed`);
  }
  return timings;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((left, right) => left - right),
    0.5,
  );
}

export function engineRestartFigures(timings: EngineRestartTimings, messages: number): FigureGroup {
  const row = (label: string, role: 'baseline' | 'subject', values: readonly number[]) => ({
    label,
    role,
    value: median(values),
    display: `${median(values).toFixed(1)} ms (median of ${values.length}; ${values.map((value) => value.toFixed(0)).join(', ')})`,
  });
  return {
    title: `engine: first GET /sessions/{id}/context after a restart · ${messages.toLocaleString('en-US')} messages`,
    unit: 'ms',
    lowerIsBetter: true,
    rows: [
      row('counts not stored (before): counts every message', 'baseline', timings.counting),
      row('token counts stored', 'subject', timings.storedCounts),
      row('the same read again (the session held)', 'subject', timings.warm),
    ],
  };
}

/** Throws unless a restart with stored counts answers exactly what one that counts answers. */
export async function assertRestartAgreement(file: string): Promise<void> {
  const counting = restart(file, false);
  const stored = restart(file, true);
  try {
    const expected = await counting.projection.contextAt(RESTART_SESSION_ID);
    const actual = await stored.projection.contextAt(RESTART_SESSION_ID);
    const text = (context: typeof expected) =>
      JSON.stringify({ ...context, revision: String(context.revision), position: String(context.position) });
    if (text(actual) !== text(expected)) {
      throw new Error('the context after a restart with stored counts differs from the one that counts');
    }
  } finally {
    await shutDown(counting);
    await shutDown(stored);
  }
}
