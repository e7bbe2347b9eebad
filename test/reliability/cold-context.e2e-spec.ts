// The first context of a session after the engine is stopped and started again on the same
// SQLite store (issue 22 item 4): the engine stores the token counts of what it counted and a
// snapshot of the sessions it holds when it stops, answers exactly the context it answered
// before the restart from the snapshot (or, without one, from the stored counts), ignores
// counts that do not match their entries (counting again, and mending them) and snapshots it
// cannot read (reading the events, and writing a new one).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { session } from '@strata/testing';
import { startEngineProcess, storeFileOf, type EngineProcess } from './support/engine-process';

jest.setTimeout(180_000);

const SESSION_ID = 'cold-context';
let directory: string;
let engine: EngineProcess | undefined;

function start(): Promise<EngineProcess> {
  return startEngineProcess({ directory, settings: { tokenizer: 'o200k' } });
}

async function stop(running: EngineProcess): Promise<void> {
  expect(await running.kill('SIGTERM')).toBe(0);
  engine = undefined;
}

function storedCounts(): { rows: number; tokens: number } {
  const database = new Database(storeFileOf(directory), { readonly: true });
  try {
    return (
      database
        .prepare<[string], { rows: number; tokens: number }>(
          `SELECT count(*) AS rows, coalesce(sum(tokens), 0) AS tokens FROM projection_context_token_counts
         WHERE session_id = ?`,
        )
        .get(SESSION_ID) ?? { rows: 0, tokens: 0 }
    );
  } finally {
    database.close();
  }
}

function storedSnapshot(): { format: number; body: string } | undefined {
  const database = new Database(storeFileOf(directory), { readonly: true });
  try {
    return database
      .prepare<[string], { format: number; body: string }>(
        'SELECT format, body FROM projection_context_snapshots WHERE session_id = ?',
      )
      .get(SESSION_ID);
  } finally {
    database.close();
  }
}

const deleteSnapshot = `DELETE FROM projection_context_snapshots WHERE session_id = '${SESSION_ID}'`;

function changeStoredCounts(sql: string): void {
  const database = new Database(storeFileOf(directory));
  try {
    database.exec(sql);
  } finally {
    database.close();
  }
}

async function context(running: EngineProcess): Promise<unknown> {
  const answered = await running.request('GET', `/sessions/${SESSION_ID}/context`);
  expect(answered.status).toBe(200);
  return answered.body;
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-cold-context-'));
});

afterEach(async () => {
  await engine?.kill('SIGKILL');
  engine = undefined;
  rmSync(directory, { recursive: true, force: true });
});

it('answers the same context after a restart, from the snapshot and the counts stored before it', async () => {
  engine = await start();
  const builder = session({ sessionId: SESSION_ID }).editTurns(250);
  expect((await engine.request('POST', '/sessions', { sessionId: SESSION_ID, cwd: '/w' })).status).toBe(201);
  expect(
    (await engine.request('POST', `/sessions/${SESSION_ID}/entries`, { entries: builder.entries })).status,
  ).toBe(200);
  const before = await context(engine);
  await stop(engine);
  const stored = storedCounts();
  expect(stored.rows).toBe(1_000);
  const snapshot = storedSnapshot();
  expect(snapshot?.format).toBe(1);

  engine = await start();
  expect(await context(engine)).toEqual(before);
  await stop(engine);
  expect(storedCounts()).toEqual(stored);
  expect(storedSnapshot()).toEqual(snapshot);

  // The restarted engine starts from the snapshot rather than the events: a count changed in it
  // shows in the answer.
  changeStoredCounts(
    `UPDATE projection_context_snapshots SET body = json_set(body, '$.counts[0]', json_extract(body, '$.counts[0]') + 1)
     WHERE session_id = '${SESSION_ID}'`,
  );
  engine = await start();
  expect(((await context(engine)) as { tokens: number }).tokens).toBe(
    (before as { tokens: number }).tokens + 1,
  );
  await stop(engine);

  // A snapshot that does not read is ignored: the answer comes from the events, and a new
  // snapshot is written when the engine stops.
  changeStoredCounts(
    `UPDATE projection_context_snapshots SET body = substr(body, 1, 1000) WHERE session_id = '${SESSION_ID}'`,
  );
  engine = await start();
  expect(await context(engine)).toEqual(before);
  await stop(engine);
  expect(storedSnapshot()).toEqual(snapshot);

  // Without a snapshot, the restarted engine takes the stored counts rather than counting: a
  // count changed with its characters kept (which no check can tell from a real one) shows in
  // the answer.
  changeStoredCounts(deleteSnapshot);
  changeStoredCounts(
    `UPDATE projection_context_token_counts SET tokens = tokens + 1
     WHERE session_id = '${SESSION_ID}' AND event_hash = (
       SELECT min(event_hash) FROM projection_context_token_counts WHERE session_id = '${SESSION_ID}')`,
  );
  engine = await start();
  const taken = (await context(engine)) as { tokens: number };
  expect(taken.tokens).toBe((before as { tokens: number }).tokens + 1);
  await stop(engine);

  // Counts whose characters no longer match are ignored: the entries are counted again, the
  // answer is the same, and the rows are mended when the engine stops.
  changeStoredCounts(deleteSnapshot);
  changeStoredCounts(
    `UPDATE projection_context_token_counts SET characters = characters + 1, tokens = tokens + 1000
     WHERE session_id = '${SESSION_ID}'`,
  );
  engine = await start();
  expect(await context(engine)).toEqual(before);
  await stop(engine);
  expect(storedCounts()).toEqual(stored);
});
