// The first context of a long session after a restart (issue 22 item 4): a session of 3,000
// messages (1,000 turns of three small entries: a prompt, a tool call, its result) imported into
// a SQLite file as `strata import` writes it (sealed), then read cold, with the engine's o200k
// counter, by
// - a new store, projection storage and context projection over the same file, in this process
//   (what a restart builds; the JIT is warm here, so this is the work alone), without the token
//   counts the projection stores, with them, and with them and the session's snapshot,
//   interleaved round by round;
// - the engine itself: `node bin/engine.js` started on the file, `/ready` awaited, then the first
//   `GET /sessions/{id}/context` timed from this process; the engine is stopped and started again
//   for every read, alternately with the session's snapshot deleted beforehand (as before
//   snapshots existed: the stored counts only) and kept (an engine stopping snapshots the
//   sessions it holds, so each start after one without finds one again).
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

/** What a restart keeps of the projection: nothing, the token counts, the counts and snapshots. */
type Kept = 'nothing' | 'counts' | 'snapshots';

interface Restarted {
  readonly store: SqliteEventStore;
  readonly storage: ProjectionStorage | undefined;
  readonly projection: ContextProjection;
}

function restart(file: string, kept: Kept): Restarted {
  const store = new SqliteEventStore({ filename: file });
  const storage = kept === 'nothing' ? undefined : sqliteProjectionStorage(file);
  const snapshots = kept === 'snapshots' ? storage?.contextSnapshots : undefined;
  const projection = new ContextProjection({
    store,
    tokenCounter: createPreparedTokenCounter('o200k'),
    ...(storage?.tokenCounts !== undefined ? { tokenCounts: storage.tokenCounts } : {}),
    ...(snapshots !== undefined ? { snapshots } : {}),
  });
  return { store, storage, projection };
}

async function shutDown(restarted: Restarted): Promise<void> {
  await restarted.projection.close();
  await restarted.storage?.close();
  await restarted.store.close();
}

/**
 * Reads the context once with stored counts and snapshots, so that both are there for the cases
 * (closing the projection snapshots the session it holds).
 */
export async function primeStoredCounts(file: string): Promise<void> {
  const restarted = restart(file, 'snapshots');
  await restarted.projection.contextAt(RESTART_SESSION_ID);
  await shutDown(restarted);
}

export function restartCases(restartStore: RestartStore): BenchCase<unknown>[] {
  const group = `first context after a restart · ${restartStore.messages.toLocaleString('en-US')} messages, o200k`;
  const details = { messages: restartStore.messages, fileBytes: restartStore.fileBytes };
  const labels: Record<Kept, string> = {
    nothing: 'new store and projection, counting every message (before stored counts)',
    counts: 'new store and projection, token counts stored (before snapshots)',
    snapshots: 'new store and projection, token counts and the session snapshot stored',
  };
  const slugs: Record<Kept, string> = { nothing: 'counting', counts: 'stored-counts', snapshots: 'snapshot' };
  const cold = (kept: Kept): BenchCase<Restarted> => ({
    name: `projection/restart-${restartStore.messages}/${slugs[kept]}`,
    group,
    role: kept === 'snapshots' ? 'subject' : 'baseline',
    label: labels[kept],
    unit: 'context',
    details,
    setup: () => restart(restartStore.file, kept),
    run: (restarted) => restarted.projection.contextAt(RESTART_SESSION_ID),
    teardown: shutDown,
  });
  // The first baseline is the primary comparison: the state just before snapshots.
  return [cold('counts'), cold('nothing'), cold('snapshots')] as BenchCase<unknown>[];
}

function deleteSnapshot(file: string): void {
  const database = new Database(file);
  try {
    database.prepare('DELETE FROM projection_context_snapshots WHERE session_id = ?').run(RESTART_SESSION_ID);
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
  /** First context after a start with the session's snapshot deleted (stored counts only), ms, in run order. */
  readonly storedCounts: readonly number[];
  /** First context after a start with the session's snapshot kept. */
  readonly snapshot: readonly number[];
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
  const timings = { storedCounts: [] as number[], snapshot: [] as number[], warm: [] as number[] };
  for (let round = 0; round < restarts * 2; round += 1) {
    const keepsSnapshot = round % 2 === 1;
    if (!keepsSnapshot) deleteSnapshot(restartStore.file);
    const engine = await startEngineChild(directory, {
      STRATA_STORE: `sqlite:${restartStore.file}`,
      STRATA_ANCHORS: 'off',
    });
    try {
      await untilReady(engine.url);
      const url = `${engine.url}/sessions/${RESTART_SESSION_ID}/context`;
      (keepsSnapshot ? timings.snapshot : timings.storedCounts).push(await timedGet(url));
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
      row('token counts stored, no snapshot (before)', 'baseline', timings.storedCounts),
      row('token counts and the session snapshot stored', 'subject', timings.snapshot),
      row('the same read again (the session held)', 'subject', timings.warm),
    ],
  };
}

/**
 * Throws unless restarts with stored counts and with the session's snapshot answer exactly what
 * one that counts every message from the events answers (and the snapshot was used).
 */
export async function assertRestartAgreement(file: string): Promise<void> {
  const counting = restart(file, 'nothing');
  const stored = restart(file, 'counts');
  const snapshot = restart(file, 'snapshots');
  try {
    const text = (context: Awaited<ReturnType<ContextProjection['contextAt']>>) =>
      JSON.stringify({ ...context, revision: String(context.revision), position: String(context.position) });
    const expected = text(await counting.projection.contextAt(RESTART_SESSION_ID));
    if (text(await stored.projection.contextAt(RESTART_SESSION_ID)) !== expected) {
      throw new Error('the context after a restart with stored counts differs from the one that counts');
    }
    if (text(await snapshot.projection.contextAt(RESTART_SESSION_ID)) !== expected) {
      throw new Error('the context after a restart from the snapshot differs from the one that counts');
    }
    if (snapshot.projection.stats().snapshots?.used !== 1) {
      throw new Error('the restart with a stored snapshot did not use it');
    }
  } finally {
    await shutDown(counting);
    await shutDown(stored);
    await shutDown(snapshot);
  }
}
