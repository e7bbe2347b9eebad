import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import {
  holdProjectionsForEngine,
  holdProjectionsForRebuild,
  ProjectionsBeingRebuiltError,
  sqliteProjectionStorage,
} from '@strata/projections';
import { serializeSessionFile, sessionStreamName } from '@strata/session';
import { session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo, type RecordingIo } from '../testing-io';
import { commands } from '.';

let directory: string;
let filename: string;
let storeUrl: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-replay-'));
  filename = join(directory, 'strata.db');
  storeUrl = `sqlite:${filename}`;
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function strata(...args: string[]): Promise<RecordingIo & { code: number }> {
  const io = recordingIo({}, directory);
  const code = await runCli(args, io, commands);
  return Object.assign(io, { code });
}

async function importSession(sessionId: string): Promise<void> {
  const built = session({ sessionId })
    .user('Find the slow query')
    .assistant('It is the report join.')
    .user('Fix it');
  const file = join(directory, `${sessionId}.jsonl`);
  writeFileSync(file, serializeSessionFile(built.header, built.entries));
  expect((await strata('import', file, '--store', storeUrl)).code).toBe(0);
}

async function recordSkippedCompaction(sessionId: string): Promise<void> {
  const store = new SqliteEventStore({ filename });
  try {
    await store.appendToStream(sessionStreamName(sessionId), [
      {
        id: '0190a8f0-0000-7000-8000-0000000000a1',
        type: 'CompactionStarted',
        data: {
          attemptId: 'a1',
          trigger: 'manual',
          preparedAtLeafId: null,
          tokensBefore: 300,
          startedAt: 1_000,
        },
      },
      {
        id: '0190a8f0-0000-7000-8000-0000000000a2',
        type: 'CompactionSkipped',
        data: { attemptId: 'a1', reason: 'nothing to compact' },
      },
    ]);
  } finally {
    await store.close();
  }
}

describe('strata replay', () => {
  describe('given sessions in a SQLite store', () => {
    it('rebuilds the catalog and the audit into the store file and reports totals and throughput', async () => {
      await importSession('replay-1');
      await recordSkippedCompaction('replay-1');

      const result = await strata('replay', '--store', storeUrl);

      expect(result.code).toBe(0);
      expect(result.err()).toContain(`replay: rebuilding catalog, audit, search from ${storeUrl}`);
      expect(result.out()).toMatch(/^rebuilt catalog, audit, search up to position \d+\n/);
      expect(result.out()).toMatch(
        /events read: \d+; applied: catalog \d+, audit 2, search \d+; sessions set aside: 0\n/,
      );
      expect(result.out()).toMatch(/throughput: [\d,∞]+ events\/s\n$/);
      const storage = sqliteProjectionStorage(filename);
      try {
        expect(await storage.catalog.findSession('default', 'replay-1')).toMatchObject({
          entryCount: 3,
          messageCount: 3,
        });
        const audit = await storage.audit.listAttempts({ tenant: 'default', sessionId: 'replay-1' });
        expect(audit.items).toMatchObject([
          { attemptId: 'a1', outcome: 'skipped', reason: 'nothing to compact' },
        ]);
      } finally {
        await storage.close();
      }
    });

    it("deletes the context projection's session snapshots, whatever it rebuilds", async () => {
      await importSession('replay-3');
      const before = sqliteProjectionStorage(filename);
      await before.contextSnapshots?.save({ sessionId: 'replay-3', format: 1, position: 3n, body: '{}' });
      expect(await before.contextSnapshots?.load('replay-3')).toBeDefined();
      await before.close();

      expect((await strata('replay', '--projection', 'audit', '--store', storeUrl)).code).toBe(0);

      const after = sqliteProjectionStorage(filename);
      try {
        expect(await after.contextSnapshots?.load('replay-3')).toBeUndefined();
      } finally {
        await after.close();
      }
    });

    it('rebuilds only the projection named', async () => {
      await importSession('replay-2');

      const result = await strata('replay', '--projection', 'audit', '--store', storeUrl);

      expect(result.code).toBe(0);
      expect(result.out()).toMatch(/^rebuilt audit up to position \d+\n/);
    });
  });

  describe('given an engine running on the store', () => {
    it('refuses in one line naming the database, exit 1, and replays once the engine has stopped', async () => {
      await importSession('replay-3');
      const engine = holdProjectionsForEngine(filename);
      let released = false;
      try {
        const refused = await strata('replay', '--store', storeUrl);
        expect(refused.code).toBe(1);
        expect(refused.out()).toBe('');
        expect(refused.err()).toBe(
          `strata replay: an engine is running on ${filename} (or another replay is rebuilding it); stop it, then replay: nothing was changed\n`,
        );
        engine.release();
        released = true;
        expect((await strata('replay', '--store', storeUrl)).code).toBe(0);
      } finally {
        if (!released) engine.release();
      }
    });

    it('is refused by an engine that starts while a replay holds the projections', () => {
      const rebuild = holdProjectionsForRebuild(filename);
      try {
        expect(rebuild).toBeDefined();
        expect(() => holdProjectionsForEngine(filename)).toThrow(ProjectionsBeingRebuiltError);
      } finally {
        rebuild?.release();
      }
      holdProjectionsForEngine(filename).release();
    });

    it('lets several engines hold the projections together', () => {
      const first = holdProjectionsForEngine(filename);
      const second = holdProjectionsForEngine(filename);
      expect(holdProjectionsForRebuild(filename)).toBeUndefined();
      first.release();
      expect(holdProjectionsForRebuild(filename)).toBeUndefined();
      second.release();
      const rebuild = holdProjectionsForRebuild(filename);
      expect(rebuild).toBeDefined();
      rebuild?.release();
    });
  });

  describe('with --json', () => {
    it('prints the report as one JSON object', async () => {
      await importSession('replay-4');
      const result = await strata('replay', '--store', storeUrl, '--json');
      expect(result.code).toBe(0);
      const report = JSON.parse(result.out()) as Record<string, unknown>;
      expect(report).toMatchObject({
        rebuilt: ['catalog', 'audit', 'search'],
        setAside: 0,
        applied: { catalog: expect.any(Number), audit: 0, search: expect.any(Number) },
      });
      expect(report['eventsRead']).toBeGreaterThan(0);
      expect(typeof report['seconds']).toBe('number');
    });
  });

  describe('given a projection it cannot replay', () => {
    it('refuses the in-memory context projection and unknown names as usage errors', async () => {
      const context = await strata('replay', '--projection', 'context', '--store', storeUrl);
      const unknown = await strata('replay', '--projection', 'sessions', '--store', storeUrl);

      expect(context.code).toBe(2);
      expect(context.err()).toContain('rebuilt on demand');
      expect(unknown.code).toBe(2);
      expect(unknown.err()).toContain("--projection must be catalog, audit or search, not 'sessions'");
    });
  });
});
