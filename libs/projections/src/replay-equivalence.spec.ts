import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@strata/event-store';
import { importSessionFile } from '@strata/session-files';
import { charsPerFourCounter } from '@strata/session';
import { describeWithFixture, piFixtureExists, readPiFixture } from '@strata/testing';
import { createProjectionSet, type ProjectionSet, type ProjectionSetOptions } from './projection-set';
import { decodeSessionEvent } from './runner/read-model-runner';
import { sqliteProjectionStorage } from './storage/projection-storage';

/**
 * Every row of every read-model table in a stable order: documents parsed (a document read back
 * and evolved again keeps its keys in another order), the search index per session in the order
 * it was written (sessions are applied concurrently, so their rows interleave differently).
 */
function readModelRows(
  filename: string,
): Record<'catalog' | 'audit' | 'searchEntries' | 'searchRowsPerSession' | 'searchSessions', unknown[]> {
  const database = new Database(filename, { readonly: true });
  try {
    const all = (sql: string): unknown[] => database.prepare(sql).raw().all();
    const documents = (sql: string): unknown[] =>
      database
        .prepare<[], { readonly document: string }>(sql)
        .all()
        .map((row) => ({ ...row, document: JSON.parse(row.document) as unknown }));
    return {
      catalog: documents('SELECT * FROM projection_catalog_sessions ORDER BY session_id'),
      audit: documents('SELECT * FROM projection_audit_attempts ORDER BY document_id'),
      searchEntries: all(
        'SELECT session_id, entry_id, tenant, scope, body FROM projection_search_entries ORDER BY session_id, rowid',
      ),
      searchRowsPerSession: all(
        'SELECT session_id, count(*) FROM projection_search_rows GROUP BY session_id ORDER BY session_id',
      ),
      searchSessions: all('SELECT * FROM projection_search_sessions ORDER BY session_id'),
    };
  } finally {
    database.close();
  }
}

async function writeStore(filename: string, fixtures: readonly string[]): Promise<void> {
  const store = new SqliteEventStore({ filename });
  try {
    for (const [index, fixture] of fixtures.entries()) {
      await importSessionFile(store, readPiFixture(fixture), {
        actor: 'tester',
        tenant: index % 2 === 0 ? 'acme' : 'globex',
      });
    }
  } finally {
    await store.close();
  }
}

/** Opens the store and a projection storage, runs `work` with the three durable projections, closes both. */
async function withProjections<Result>(
  storeFile: string,
  projectionsFile: string,
  settings: Pick<ProjectionSetOptions, 'search' | 'runner'>,
  work: (set: ProjectionSet, store: SqliteEventStore) => Promise<Result>,
): Promise<Result> {
  const store = new SqliteEventStore({ filename: storeFile });
  const storage = sqliteProjectionStorage(projectionsFile);
  try {
    const set = createProjectionSet({
      ...settings,
      store,
      storage,
      tokenCounter: charsPerFourCounter,
      include: ['catalog', 'audit', 'search'],
    });
    return await work(set, store);
  } finally {
    await storage.close();
    await store.close();
  }
}

/** What the live engine does: each event read, applied by every projection, and flushed at once. */
function applyOneByOne(storeFile: string, projectionsFile: string): Promise<number> {
  return withProjections(storeFile, projectionsFile, {}, async (set, store) => {
    const projections = [set.catalog, set.audit, set.search];
    let applied = 0;
    for await (const recorded of store.readAll()) {
      const decoded = decodeSessionEvent(recorded);
      if (decoded.kind !== 'message') continue;
      for (const projection of projections) {
        if (!projection.eventTypes.includes(decoded.message.event.type)) continue;
        await projection.apply(decoded.message);
        await projection.flush();
      }
      applied += 1;
    }
    return applied;
  });
}

/** A replay as `strata replay` runs it, with write-behind batches small enough to cut it many times. */
function replay(storeFile: string, projectionsFile: string): Promise<number> {
  const settings = {
    search: { batchRows: 7, batchCharacters: 20_000 },
    runner: { checkpointInterval: 20_000 },
  };
  return withProjections(storeFile, projectionsFile, settings, async (set) => {
    const report = await set.runner.rebuild();
    return report.eventsRead;
  });
}

/**
 * Two fixtures (about 2,000 entries) imported, applied one by one and replayed twice: a few
 * seconds on a quiet machine, and more than the default 30 s with a dozen processes on two cores.
 */
const REPLAY_EQUIVALENCE_TIMEOUT_MS = 180_000;

describeWithFixture('large-session.jsonl', 'a replay of the pi fixtures', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-replay-equivalence-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it(
    'writes exactly the read models that applying each event in turn writes, twice in a row',
    async () => {
      const fixtures = ['large-session.jsonl', 'before-compaction.jsonl'].filter(piFixtureExists);
      const storeFile = join(directory, 'store.db');
      await writeStore(storeFile, fixtures);
      const store = new SqliteEventStore({ filename: storeFile });
      try {
        // an attempt for the audit, after both sessions
        let streamId = '';
        for await (const recorded of store.readAll({ maxCount: 1 })) streamId = recorded.streamId;
        await store.appendToStream(streamId, [
          {
            id: '0190a8f0-0000-7000-8000-0000000000b1',
            type: 'CompactionStarted',
            data: {
              attemptId: 'b1',
              trigger: 'manual',
              preparedAtLeafId: null,
              tokensBefore: 900,
              startedAt: 5,
            },
            metadata: { tenant: 'acme' },
          },
          {
            id: '0190a8f0-0000-7000-8000-0000000000b2',
            type: 'CompactionSkipped',
            data: { attemptId: 'b1', reason: 'nothing to compact' },
            metadata: { tenant: 'acme' },
          },
        ]);
      } finally {
        await store.close();
      }
      const oneByOne = join(directory, 'one-by-one.db');
      const replayed = join(directory, 'replayed.db');

      const applied = await applyOneByOne(storeFile, oneByOne);
      const firstReplay = await replay(storeFile, replayed);
      const afterFirst = readModelRows(replayed);
      const secondReplay = await replay(storeFile, replayed);

      const expected = readModelRows(oneByOne);
      expect(applied).toBeGreaterThan(2_000);
      expect(firstReplay).toBe(applied);
      expect(secondReplay).toBe(applied);
      expect(expected.searchEntries.length).toBeGreaterThan(1_000);
      expect(expected.audit).toHaveLength(1);
      expect(afterFirst).toEqual(expected);
      expect(readModelRows(replayed)).toEqual(expected);
    },
    REPLAY_EQUIVALENCE_TIMEOUT_MS,
  );
});
