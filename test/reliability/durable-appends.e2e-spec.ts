// Acknowledged appends are durable (issue 22): the engine process (`bin/engine.js`) takes
// appends of three entries from several agents at once, which its writer commits in shared
// batches, and is killed with SIGKILL at a chosen moment. Afterwards every append it answered 200
// is in the store, whole, and no append is stored in part (an append's entries are all there or
// none is), every chain verifies, and the engine starts again and works on. In the torn cases the
// write-ahead log is then cut as a power cut can leave it: bytes past the last commit that had
// been acknowledged (the log's size when the last 200 arrived) are torn off, down to 300 bytes
// below the end; an acknowledged commit was flushed before its answer (synchronous = FULL), so
// only later frames can be torn, and SQLite's recovery drops the torn transaction whole.
import { mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { loadSession } from '@strata/session-files';
import { readWal } from '@strata/testing';
import { CaseCounts } from './support/case-counts';
import { startEngineProcess, storeFileOf, type EngineProcess } from './support/engine-process';
import { storeHealth } from './support/store-checks';

jest.setTimeout(240_000);

const AGENTS = 6;
const ENTRIES_PER_APPEND = 3;
const TEAR_BYTES = 300;
const counts = new CaseCounts('durable appends');

interface Acknowledged {
  /** The entry ids of every append answered 200. */
  readonly appends: string[][];
  /** The WAL file's size when the last 200 arrived. */
  walBytesAtLastAck: number;
}

function entry(id: string, parentId: string | null) {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: 'user', content: `durable entry ${id} ${'x'.repeat(200)}`, timestamp: 1 },
  };
}

function walBytes(storeFile: string): number {
  try {
    return statSync(`${storeFile}-wal`).size;
  } catch {
    return 0;
  }
}

/**
 * Agents appending three entries at a time to sessions of their own until the engine dies; the
 * returned promise resolves once `acks` appends were answered 200 (the loops go on).
 */
async function appendUntilKilled(
  engine: EngineProcess,
  storeFile: string,
  tag: string,
  acks: number,
): Promise<{ acknowledged: Acknowledged; loops: Promise<void> }> {
  const acknowledged: Acknowledged = { appends: [], walBytesAtLastAck: 0 };
  let reached: () => void = () => undefined;
  const enough = new Promise<void>((resolve) => (reached = resolve));
  const agent = async (index: number): Promise<void> => {
    const sessionId = `durable-${tag}-${index}`;
    const started = await engine.request('POST', '/sessions', { sessionId, cwd: '/w' });
    if (started.status !== 201) throw new Error(`start answered ${started.status}`);
    let parentId: string | null = null;
    for (let turn = 0; ; turn += 1) {
      const ids = Array.from(
        { length: ENTRIES_PER_APPEND },
        (_, offset) => `${tag}${index}t${turn}e${offset}`,
      );
      const entries = ids.map((id, offset) => entry(id, offset === 0 ? parentId : ids[offset - 1]!));
      let status: number;
      try {
        status = (await engine.request('POST', `/sessions/${sessionId}/entries`, { entries })).status;
      } catch {
        return; // the engine died with this append in flight
      }
      if (status !== 200) throw new Error(`an append answered ${status}`);
      acknowledged.walBytesAtLastAck = walBytes(storeFile);
      acknowledged.appends.push(ids);
      if (acknowledged.appends.length >= acks) reached();
      parentId = ids[ids.length - 1]!;
    }
  };
  const loops = Promise.all(Array.from({ length: AGENTS }, (_, index) => agent(index))).then(() => undefined);
  await Promise.race([enough, loops]);
  return { acknowledged, loops };
}

/**
 * Resolves true once the log has grown past its size at the last acknowledgement (a batch is
 * being written and not yet answered), false if that did not happen within a few seconds.
 */
async function whileABatchIsWritten(storeFile: string, acknowledged: Acknowledged): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (walBytes(storeFile) > acknowledged.walBytesAtLastAck) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}

async function storedEntryIds(storeFile: string, sessionIds: readonly string[]): Promise<Set<string>> {
  const store = new SqliteEventStore({ filename: storeFile });
  try {
    const ids = new Set<string>();
    for (const sessionId of sessionIds) {
      const { state } = await loadSession(store, sessionId).catch(() => ({ state: undefined }));
      if (state?.status === 'active') for (const stored of state.entries()) ids.add(stored.id);
    }
    return ids;
  } finally {
    await store.close();
  }
}

describe('an engine killed with SIGKILL while agents append together', () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-durable-'));
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  afterAll(() => counts.report());

  it.each([
    ['after 30 acknowledged appends', 30, false],
    ['after 150 acknowledged appends', 150, false],
    ['after 60 acknowledged appends, its write-ahead log then torn', 60, true],
    ['after 200 acknowledged appends, its write-ahead log then torn', 200, true],
  ])('%s: nothing acknowledged is lost, nothing is stored in part', async (_name, acks, tear) => {
    const storeFile = storeFileOf(directory);
    const tag = `k${acks}${tear ? 't' : ''}`;
    const engine = await startEngineProcess({ directory });
    const { acknowledged, loops } = await appendUntilKilled(engine, storeFile, tag, acks);
    const midBatch = await whileABatchIsWritten(storeFile, acknowledged);
    await engine.kill('SIGKILL');
    await loops;

    let torn = 0;
    if (tear) {
      const size = walBytes(storeFile);
      const cutTo = Math.max(acknowledged.walBytesAtLastAck, size - TEAR_BYTES);
      truncateSync(`${storeFile}-wal`, cutTo);
      torn = size - cutTo;
    }
    const walCommits = readWal(`${storeFile}-wal`).commits.length;

    const sessionIds = Array.from({ length: AGENTS }, (_, index) => `durable-${tag}-${index}`);
    const stored = await storedEntryIds(storeFile, sessionIds);
    const missing = acknowledged.appends.flat().filter((id) => !stored.has(id));
    expect(missing).toEqual([]);
    const byAppend = new Map<string, number>();
    for (const id of stored) {
      const append = id.replace(/e\d+$/, '');
      byAppend.set(append, (byAppend.get(append) ?? 0) + 1);
    }
    const partial = [...byAppend].filter(([, count]) => count !== ENTRIES_PER_APPEND);
    expect(partial).toEqual([]);
    const health = await storeHealth(storeFile);
    expect(health.integrity).toBe('ok');
    expect(health.brokenStreams).toBe(0);
    counts.record(tear ? 'killed, log torn' : 'killed', [
      `${midBatch ? 'while a batch was written' : 'between batches'}: ${acknowledged.appends.length} acknowledged, ${byAppend.size} stored, ${torn} bytes torn, ${walCommits} commits left in the log`,
    ]);

    const again = await startEngineProcess({ directory });
    try {
      const detail = await again.request('GET', `/sessions/${sessionIds[0]}`);
      const leafId = (detail.body as { leafId: string | null }).leafId;
      const appended = await again.request('POST', `/sessions/${sessionIds[0]}/entries`, {
        entries: [entry(`${tag}-after-restart`, leafId)],
      });
      expect(appended.status).toBe(200);
    } finally {
      await again.kill('SIGTERM');
    }
  });
});
