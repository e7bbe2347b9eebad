import fc from 'fast-check';
import {
  MAX_COST_FIGURE,
  MAX_RUNNING_TOTAL,
  MAX_TOKEN_FIGURE,
  type SessionEntry,
  type SessionEvent,
  type Usage,
} from '@strata/session';
import { DocumentProjection } from '../documents/document-projection';
import { DocumentSpecification, projected } from '../testing/document-specification';
import {
  catalogProjectionDefinition,
  emptyUsageTotals,
  evolveCatalogSession,
  storedCatalogSessionSchema,
  type CatalogSession,
} from './catalog-session';
import { InMemoryCatalogStorage } from './in-memory-catalog-storage';

const spec = DocumentSpecification.for(catalogProjectionDefinition);

const started: SessionEvent = {
  type: 'SessionStarted',
  data: {
    header: {
      type: 'session',
      version: 3,
      id: 'session-1',
      timestamp: '2026-01-01T00:00:00.000Z',
      cwd: '/work/app',
      title: 'Fix the date bug',
    },
  },
};

function appended(entry: SessionEntry): SessionEvent {
  return { type: 'EntryAppended', data: { entry } };
}

const userEntry: SessionEntry = {
  type: 'message',
  id: 'e1',
  parentId: null,
  timestamp: '2026-01-01T00:00:05.000Z',
  message: { role: 'user', content: 'Why does the date test fail?', timestamp: 1 },
};

const assistantEntry: SessionEntry = {
  type: 'message',
  id: 'e2',
  parentId: 'e1',
  timestamp: '2026-01-01T00:00:09.000Z',
  message: {
    role: 'assistant',
    content: [{ type: 'text', text: 'Timezones.' }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: { input: 100, output: 20, cacheRead: 5, cacheWrite: 0, totalTokens: 125, cost: { total: 0.5 } },
    stopReason: 'stop',
    timestamp: 2,
  },
};

const untotalledAssistant: SessionEntry = {
  ...assistantEntry,
  id: 'e3',
  parentId: 'e2',
  message: { ...assistantEntry.message, usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 1 } },
};

const compactionEntry: SessionEntry = {
  type: 'compaction',
  id: 'e4',
  parentId: 'e3',
  timestamp: '2026-01-01T00:01:00.000Z',
  summary: 'Summary',
  firstKeptEntryId: 'e2',
  tokensBefore: 1000,
};

const sessionInfo = (id: string, name: string | undefined): SessionEntry => ({
  type: 'session_info',
  id,
  parentId: 'e1',
  timestamp: '2026-01-01T00:02:00.000Z',
  ...(name !== undefined ? { name } : {}),
});

describe('the catalog document', () => {
  describe('given no session yet', () => {
    it('opens the document when the session starts, with the tenant of its metadata and the header title', () => {
      spec
        .given()
        .when(projected(started, 0, { tenant: 'globex', recordedAt: '2026-01-01T00:00:01.000Z' }))
        .then({
          sessionId: 'session-1',
          tenant: 'globex',
          title: 'Fix the date bug',
          headerTitle: 'Fix the date bug',
          sessionName: null,
          cwd: '/work/app',
          createdAt: '2026-01-01T00:00:00.000Z',
          parentSession: null,
          entryCount: 0,
          messageCount: 0,
          usage: emptyUsageTotals,
          compactionCount: 0,
          branchSummaryCount: 0,
          leafId: null,
          lastActivityAt: '2026-01-01T00:00:01.000Z',
          lastEntryAt: null,
          position: 1n,
        });
    });

    it('ignores events before the session started, as the decider does', () => {
      spec
        .given()
        .when(projected(appended(userEntry), 0))
        .then(null);
    });
  });

  describe('given a started session', () => {
    it('counts entries and messages and sums the usage of assistant messages', () => {
      spec
        .given([
          projected(started, 0),
          projected(appended(userEntry), 1),
          projected(appended(assistantEntry), 2),
        ])
        .when(projected(appended(untotalledAssistant), 3, { recordedAt: '2026-01-01T00:00:30.000Z' }))
        .thenMatches({
          entryCount: 3,
          messageCount: 3,
          usage: { input: 110, output: 22, cacheRead: 5, cacheWrite: 1, totalTokens: 138, cost: 0.5 },
          leafId: 'e3',
          lastEntryAt: '2026-01-01T00:00:09.000Z',
          lastActivityAt: '2026-01-01T00:00:30.000Z',
          position: 4n,
        });
    });

    it('counts compactions by their entries', () => {
      spec
        .given([projected(started, 0), projected(appended(userEntry), 1)])
        .when(projected(appended(compactionEntry), 2))
        .thenMatches({ compactionCount: 1, entryCount: 2, messageCount: 1 });
    });

    it('takes the title from the latest session_info name, and the header title again once the name is cleared', () => {
      const named = [
        projected(started, 0),
        projected(appended(userEntry), 1),
        projected(appended(sessionInfo('e5', 'Dates')), 2),
      ];
      spec.given(named.slice(0, 2)).when(named[2]!).thenMatches({ title: 'Dates', sessionName: 'Dates' });
      spec
        .given(named)
        .when(projected(appended(sessionInfo('e6', '')), 3))
        .thenMatches({ title: 'Fix the date bug', sessionName: null });
    });

    it('follows the leaf when it moves, as activity', () => {
      spec
        .given([projected(started, 0), projected(appended(userEntry), 1)])
        .when(
          projected({ type: 'LeafMoved', data: { leafId: null, previousLeafId: 'e1' } }, 2, {
            recordedAt: '2026-01-02T00:00:00.000Z',
          }),
        )
        .thenMatches({ leafId: null, lastActivityAt: '2026-01-02T00:00:00.000Z', entryCount: 1 });
    });
  });

  describe('given usage an older engine recorded out of bounds', () => {
    const answering = (id: string, usage: Usage): SessionEntry => ({
      ...assistantEntry,
      id,
      message: { ...assistantEntry.message, usage } as typeof assistantEntry.message,
    });

    it('counts each figure within its bounds: huge ones at the bound, negative ones as 0', () => {
      const huge = { input: 1e308, output: 1e308, cacheRead: 0, cacheWrite: 0, cost: { total: 1e308 } };
      const negative = { input: -1e308, output: -1, cacheRead: 0, cacheWrite: 0, totalTokens: -5 };
      spec
        .given([projected(started, 0), projected(appended(answering('h1', huge)), 1)])
        .when(projected(appended(answering('n1', negative)), 2))
        .thenMatches({
          usage: {
            input: MAX_TOKEN_FIGURE,
            output: MAX_TOKEN_FIGURE,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: MAX_TOKEN_FIGURE,
            cost: MAX_COST_FIGURE,
          },
        });
    });

    it('keeps every total finite, non-negative and storable over any recorded figures', () => {
      const figure = fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, MAX_TOKEN_FIGURE),
      );
      const usage = fc.record({
        input: figure,
        output: figure,
        cacheRead: figure,
        cacheWrite: figure,
        totalTokens: figure,
        cost: fc.record({ total: figure }),
      });
      fc.assert(
        fc.property(fc.array(usage, { minLength: 1, maxLength: 30 }), (usages) => {
          let session = evolveCatalogSession(null, projected(started, 0));
          usages.forEach((recorded, index) => {
            session = evolveCatalogSession(
              session,
              projected(appended(answering(`a${index}`, recorded)), index + 1),
            );
          });
          for (const total of Object.values(session!.usage)) {
            expect(Number.isFinite(total)).toBe(true);
            expect(total).toBeGreaterThanOrEqual(0);
            expect(total).toBeLessThanOrEqual(MAX_RUNNING_TOTAL);
          }
          const { position: _position, ...stored } = session!;
          expect(storedCatalogSessionSchema.parse(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
        }),
      );
    });

    it('reads totals an older engine stored out of bounds within them, null (a sum that had become Infinity) as the saturated one', () => {
      const session = evolveCatalogSession(null, projected(started, 0))!;
      const { position: _position, ...stored } = session;
      const written = JSON.parse(
        JSON.stringify({ ...stored, usage: { ...stored.usage, input: Infinity } }),
      ) as {
        usage: Record<string, unknown>;
      };
      expect(written.usage['input']).toBeNull();
      expect(storedCatalogSessionSchema.parse(written).usage).toEqual({
        ...emptyUsageTotals,
        input: MAX_RUNNING_TOTAL,
      });
    });

    it('saturates a sum at 2^53 - 1 instead of growing past what it can hold exactly', () => {
      const atTheBound = { input: MAX_TOKEN_FIGURE, output: 0, cacheRead: 0, cacheWrite: 0 };
      let session = evolveCatalogSession(null, projected(started, 0));
      session = { ...session!, usage: { ...session!.usage, input: MAX_RUNNING_TOTAL - 1 } };
      session = evolveCatalogSession(session, projected(appended(answering('a1', atTheBound)), 1));
      expect(session!.usage.input).toBe(MAX_RUNNING_TOTAL);
    });
  });

  describe('given an event delivered twice', () => {
    it('applies it once (guarded by position)', async () => {
      const storage = new InMemoryCatalogStorage();
      const projection = new DocumentProjection<CatalogSession>(catalogProjectionDefinition, storage);
      const events = [projected(started, 0), projected(appended(userEntry), 1)];

      for (const event of [...events, ...events]) await projection.apply(event);
      await projection.flush();
      await projection.apply(events[1]!);
      await projection.flush();

      expect(await storage.findSession('acme', 'session-1')).toMatchObject({
        entryCount: 1,
        messageCount: 1,
      });
    });
  });
});
