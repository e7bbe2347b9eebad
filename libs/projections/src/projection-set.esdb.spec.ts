import * as fc from 'fast-check';
import { EsdbEventStore } from '@strata/event-store';
import { buildSessionContext, charsPerFourCounter, type SessionEvent } from '@strata/session';
import { generatedSessionArbitrary, startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { createProjectionSet } from './projection-set';
import { inMemoryProjectionStorage } from './storage/projection-storage';
import { appendEvents, foldedSession, sessionEventsOf } from './testing/session-events';

describe('projections over EventStoreDB (the protocol test server)', () => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;

  beforeEach(async () => {
    server = await startEsdbTestServer();
    store = EsdbEventStore.fromConnectionString(server.connectionString);
  });

  afterEach(async () => {
    await store.close();
    await server.stop();
  });

  describe('given sessions of two tenants and a live append', () => {
    it('catches up, follows live events, reports no lag, and answers the context', async () => {
      const [session] = fc.sample(generatedSessionArbitrary({ sessionId: 'esdb-1', maxEntries: 15 }), {
        numRuns: 1,
        seed: 21,
      });
      const events = sessionEventsOf(session!);
      await appendEvents(store, 'esdb-1', events, { tenant: 'acme' });
      await appendEvents(store, 'esdb-2', events.slice(0, 1), { tenant: 'globex' });
      const set = createProjectionSet({
        store,
        storage: inMemoryProjectionStorage(),
        tokenCounter: charsPerFourCounter,
      });
      await set.runner.start();
      await set.runner.whenCaughtUp();

      const skipped: SessionEvent[] = [
        {
          type: 'CompactionStarted',
          data: {
            attemptId: 'a1',
            trigger: 'manual',
            preparedAtLeafId: null,
            tokensBefore: 10,
            startedAt: 1,
          },
        },
        { type: 'CompactionSkipped', data: { attemptId: 'a1', reason: 'nothing to compact' } },
      ];
      const positions = await appendEvents(store, 'esdb-1', skipped, { tenant: 'acme' });
      await set.runner.waitForPosition(positions[positions.length - 1]!);

      expect(
        (await set.catalog.listSessions({ tenant: 'acme' })).items.map((item) => item.sessionId),
      ).toEqual(['esdb-1']);
      expect(
        (await set.catalog.listSessions({ tenant: 'globex' })).items.map((item) => item.sessionId),
      ).toEqual(['esdb-2']);
      expect((await set.audit.listAttempts({ tenant: 'acme' })).items).toMatchObject([
        { outcome: 'skipped' },
      ]);
      expect((await set.runner.lag()).positionsBehind).toBe(0n);
      const state = foldedSession(events);
      expect((await set.context.contextAt('esdb-1')).context).toEqual(
        buildSessionContext(state.entries(), state.leafId, { prunedResults: state.prunedResults() }),
      );
      await set.runner.stop();
    });
  });
});
