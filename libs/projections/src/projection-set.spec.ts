import * as fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, type EventStore } from '@strata/event-store';
import { buildSessionContext, charsPerFourCounter, type SessionEvent } from '@strata/session';
import { generatedSessionArbitrary } from '@strata/testing';
import type { AuditAttempt } from './audit/audit-attempt';
import type { CatalogSession } from './catalog/catalog-session';
import { createProjectionSet, type ProjectionSet } from './projection-set';
import { projectionCheckpointId as checkpointIdOf } from './runner/read-model-runner';
import {
  inMemoryProjectionStorage,
  openProjectionStorage,
  sqliteProjectionStorage,
  type ProjectionStorage,
} from './storage/projection-storage';
import { appendEvents, foldedSession, sessionEventsOf } from './testing/session-events';

function generatedEvents(sessionId: string, seed: number): SessionEvent[] {
  const [session] = fc.sample(generatedSessionArbitrary({ sessionId, maxEntries: 25, compactions: true }), {
    numRuns: 1,
    seed,
  });
  return sessionEventsOf(session!);
}

function attemptEvents(round: number): SessionEvent[] {
  const startedAt = Date.UTC(2026, 1, 1, round);
  return [
    {
      type: 'CompactionStarted',
      data: {
        attemptId: `c${round}`,
        trigger: 'threshold',
        preparedAtLeafId: null,
        tokensBefore: 5000 + round,
        startedAt,
      },
    },
    {
      type: 'CompactionCompleted',
      data: {
        attemptId: `c${round}`,
        entryId: `compaction-${round}`,
        trigger: 'threshold',
        durationMs: 120,
        tokensBefore: 5000 + round,
        estimatedTokensAfter: 900,
      },
    },
    { type: 'ContinuationRequested', data: { reason: 'auto_continue', causationAttemptId: `c${round}` } },
    {
      type: 'BranchSummaryStarted',
      data: { attemptId: `b${round}`, targetId: 'e0001', oldLeafId: null, startedAt },
    },
    {
      type: 'BranchSummaryFailed',
      data: { attemptId: `b${round}`, error: { message: 'model unavailable' } },
    },
  ];
}

async function allSessions(set: ProjectionSet, tenant: string): Promise<readonly CatalogSession[]> {
  return (await set.catalog.listSessions({ tenant, limit: 500 })).items;
}

async function allAttempts(set: ProjectionSet, tenant: string): Promise<readonly AuditAttempt[]> {
  return (await set.audit.listAttempts({ tenant, limit: 500 })).items;
}

async function rebuiltInMemory(store: EventStore): Promise<ProjectionSet> {
  const set = createProjectionSet({
    store,
    storage: inMemoryProjectionStorage(),
    tokenCounter: charsPerFourCounter,
  });
  await set.runner.rebuild();
  return set;
}

describe('projections over a SQLite store', () => {
  let directory: string;
  let filename: string;
  const opened: { close(): Promise<void> }[] = [];

  function open(): { store: SqliteEventStore; storage: ProjectionStorage; set: ProjectionSet } {
    const store = new SqliteEventStore({ filename, pollIntervalMs: 20 });
    const storage = sqliteProjectionStorage(filename);
    opened.push(storage, store);
    return {
      store,
      storage,
      set: createProjectionSet({ store, storage, tokenCounter: charsPerFourCounter }),
    };
  }

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-projections-'));
    filename = join(directory, 'strata.db');
  });

  afterEach(async () => {
    for (const resource of opened.splice(0).reverse()) await resource.close();
    rmSync(directory, { recursive: true, force: true });
  });

  describe('given a runner restarted over the same database file', () => {
    it('resumes every durable projection from its checkpoint and equals a full rebuild', async () => {
      const first = open();
      const alpha = generatedEvents('alpha', 1);
      const beta = generatedEvents('beta', 2);
      await appendEvents(first.store, 'alpha', [...alpha, ...attemptEvents(1)], { tenant: 'acme' });
      await appendEvents(first.store, 'beta', beta, { tenant: 'globex' });
      await first.set.runner.start();
      await first.set.runner.whenCaughtUp();
      await first.set.runner.stop();
      const checkpointBefore = await first.storage.checkpoints.load(checkpointIdOf('catalog'));

      const gamma = generatedEvents('gamma', 3);
      const laterBeta = attemptEvents(2);
      await appendEvents(first.store, 'gamma', gamma, { tenant: 'acme' });
      await appendEvents(first.store, 'beta', laterBeta, { tenant: 'globex' });

      const second = open();
      expect(await second.storage.checkpoints.load(checkpointIdOf('catalog'))).toBe(checkpointBefore);
      await second.set.runner.start();
      await second.set.runner.whenCaughtUp();

      const applied = Object.fromEntries(
        second.set.runner.status().processors.map((processor) => [processor.name, processor.eventsHandled]),
      );
      expect(applied['catalog']).toBe(gamma.length + laterBeta.length);
      expect(applied['audit']).toBe(laterBeta.length);

      const rebuilt = await rebuiltInMemory(second.store);
      for (const tenant of ['acme', 'globex']) {
        expect(await allSessions(second.set, tenant)).toEqual(await allSessions(rebuilt, tenant));
        expect(await allAttempts(second.set, tenant)).toEqual(await allAttempts(rebuilt, tenant));
      }
      expect((await allSessions(second.set, 'acme')).map((session) => session.sessionId).sort()).toEqual([
        'alpha',
        'gamma',
      ]);
      expect(await allAttempts(second.set, 'globex')).toHaveLength(2);

      const betaState = foldedSession([...beta, ...laterBeta]);
      expect((await second.set.context.contextAt('beta')).context).toEqual(
        buildSessionContext(betaState.entries(), betaState.leafId, {
          prunedResults: betaState.prunedResults(),
        }),
      );
      await second.set.runner.stop();
    });
  });

  describe('given a rebuild of the stored projections', () => {
    it('answers the same documents as before it', async () => {
      const { store, set } = open();
      await appendEvents(store, 'alpha', [...generatedEvents('alpha', 4), ...attemptEvents(1)], {
        tenant: 'acme',
      });
      await set.runner.start();
      await set.runner.whenCaughtUp();
      const sessionsBefore = await allSessions(set, 'acme');
      const attemptsBefore = await allAttempts(set, 'acme');

      const report = await set.runner.rebuild(['catalog', 'audit']);

      expect(report.processors).toEqual(['catalog', 'audit']);
      expect(await allSessions(set, 'acme')).toEqual(sessionsBefore);
      expect(await allAttempts(set, 'acme')).toEqual(attemptsBefore);
      await set.runner.stop();
    });
  });

  describe('given store URLs', () => {
    it('keeps projections in the SQLite store file, in memory for memory stores, and in a local file for EventStoreDB', () => {
      const sqlite = openProjectionStorage(`sqlite:${filename}`);
      const memory = openProjectionStorage('memory:');
      const esdb = openProjectionStorage('esdb://localhost:2113?tls=false', { cwd: directory });
      opened.push(sqlite, memory, esdb);

      expect(sqlite.location).toBe(filename);
      expect(memory.location).toBe('memory');
      expect(esdb.location).toBe(join(directory, 'data', 'projections.db'));
    });
  });
});
