import { InMemoryEventStore, SqliteEventStore, type EventStore } from '@strata/event-store';
import { charsPerFourCounter } from '@strata/session';
import { session } from '@strata/testing';
import { createProjectionSet } from '../projection-set';
import {
  inMemoryProjectionStorage,
  sqliteProjectionStorage,
  type ProjectionStorage,
} from '../storage/projection-storage';
import { appendEvents } from '../testing/session-events';
import { InMemorySearchStorage } from './in-memory-search-storage';
import type { SearchRow, SearchStorage } from './search-storage';
import { searchTerms, type SearchTerms } from './search-text';
import { ftsQuery } from './sqlite-search-storage';

function row(sessionId: string, position: bigint, text: string, tenant = 'acme'): SearchRow {
  return { sessionId, tenant, entryId: `${sessionId}-e${position}`, position, text };
}

function terms(query: string): SearchTerms {
  const found = searchTerms(query);
  if (found === undefined) throw new Error(`no terms in ${query}`);
  return found;
}

const storages: readonly [string, () => SearchStorage][] = [
  ['in memory', () => new InMemorySearchStorage()],
  ['in SQLite (FTS5)', () => sqliteProjectionStorage(':memory:').search],
];

describe('search queries', () => {
  it('are words only: markup, quotes and FTS5 operators never reach the index as syntax', () => {
    expect(searchTerms('  ')).toBeUndefined();
    expect(searchTerms('"NEAR(a b)" OR body:* -x ^y')).toEqual({
      words: ['near', 'a', 'b', 'or', 'body', 'x', 'y'],
      lastIsPrefix: false,
    });
    expect(searchTerms('Café  REFACTOR')).toEqual({ words: ['cafe', 'refactor'], lastIsPrefix: true });
    expect(searchTerms('one two three four five six seven eight nine ten')?.words).toHaveLength(8);
    expect(ftsQuery('acme', terms('agent sess'))).toMatch(
      /^scope : "t[0-9a-f]{24}" AND body : \("agent" AND "sess"\*\)$/,
    );
  });
});

describe.each(storages)('search storage %s', (_name, create) => {
  let storage: SearchStorage;

  beforeEach(async () => {
    storage = create();
    await storage.save(
      [
        row('s1', 1n, 'Refactor the AgentSession into three run modes'),
        row('s1', 2n, 'The café test fails on Windows'),
        row('s2', 3n, 'agentsession again, and a flaky test'),
        row('s3', 4n, 'AgentSession of another tenant', 'globex'),
      ],
      new Map([
        ['s1', 2n],
        ['s2', 3n],
        ['s3', 4n],
      ]),
    );
  });

  it("finds a tenant's sessions whose entries hold every word, newest match first, never another tenant's", async () => {
    const result = await storage.search({
      tenant: 'acme',
      terms: terms('agentsession'),
      maxEntries: 100,
      maxSessions: 100,
    });
    expect(result).toEqual({
      hits: [
        { sessionId: 's2', entryId: 's2-e3', rowId: expect.any(BigInt) as bigint, matchingEntries: 1 },
        { sessionId: 's1', entryId: 's1-e1', rowId: expect.any(BigInt) as bigint, matchingEntries: 1 },
      ],
      truncated: false,
    });
    const both = await storage.search({
      tenant: 'acme',
      terms: terms('flaky TEST'),
      maxEntries: 100,
      maxSessions: 100,
    });
    expect(both.hits.map((hit) => hit.sessionId)).toEqual(['s2']);
  });

  it('ignores case and accents, and reads the last word as a prefix from three letters', async () => {
    const accents = await storage.search({
      tenant: 'acme',
      terms: terms('CAFE'),
      maxEntries: 100,
      maxSessions: 100,
    });
    expect(accents.hits.map((hit) => hit.sessionId)).toEqual(['s1']);
    const prefix = await storage.search({
      tenant: 'acme',
      terms: terms('refac'),
      maxEntries: 100,
      maxSessions: 100,
    });
    expect(prefix.hits.map((hit) => hit.sessionId)).toEqual(['s1']);
    const short = await storage.search({
      tenant: 'acme',
      terms: terms('re'),
      maxEntries: 100,
      maxSessions: 100,
    });
    expect(short.hits).toEqual([]);
  });

  it('stops at its bounds and says so', async () => {
    const sessions = await storage.search({
      tenant: 'acme',
      terms: terms('test'),
      maxEntries: 100,
      maxSessions: 1,
    });
    expect(sessions).toMatchObject({ hits: [{ sessionId: 's2' }], truncated: true });
    const entries = await storage.search({
      tenant: 'acme',
      terms: terms('agentsession'),
      maxEntries: 1,
      maxSessions: 100,
    });
    expect(entries).toMatchObject({ hits: [{ sessionId: 's2' }], truncated: true });
  });

  it('gives an excerpt of the matching entry', async () => {
    const [hit] = (
      await storage.search({ tenant: 'acme', terms: terms('windows'), maxEntries: 10, maxSessions: 10 })
    ).hits;
    expect(await storage.excerpt(hit!.rowId, terms('windows'))).toContain('Windows');
  });

  it('never stores a row twice (a slower engine saving the same events), and forgets a session', async () => {
    await storage.save([row('s1', 2n, 'The café test fails on Windows')], new Map([['s1', 2n]]));
    const again = await storage.search({
      tenant: 'acme',
      terms: terms('windows'),
      maxEntries: 10,
      maxSessions: 10,
    });
    expect(again.hits).toMatchObject([{ sessionId: 's1', matchingEntries: 1 }]);
    expect(await storage.indexedPosition('s1')).toBe(2n);

    await storage.forgetSession('s1');
    expect(
      (await storage.search({ tenant: 'acme', terms: terms('windows'), maxEntries: 10, maxSessions: 10 }))
        .hits,
    ).toEqual([]);
    expect(await storage.indexedPosition('s1')).toBeUndefined();
    await storage.clear();
    expect(
      (
        await storage.search({
          tenant: 'acme',
          terms: terms('agentsession'),
          maxEntries: 10,
          maxSessions: 10,
        })
      ).hits,
    ).toEqual([]);
  });
});

describe.each([
  [
    'an in-memory store',
    (): { store: EventStore; storage: ProjectionStorage } => ({
      store: new InMemoryEventStore(),
      storage: inMemoryProjectionStorage(),
    }),
  ],
  [
    'a SQLite store',
    (): { store: EventStore; storage: ProjectionStorage } => ({
      store: new SqliteEventStore({ filename: ':memory:' }),
      storage: sqliteProjectionStorage(':memory:'),
    }),
  ],
])('the search projection on %s', (_name, open) => {
  it('indexes what sessions say as they are written, and is rebuilt the same from the log', async () => {
    const { store, storage } = open();
    const alpha = session({ sessionId: 'alpha' })
      .user('Where is the flaky parser test?')
      .assistant('In parser.spec.ts.');
    const beta = session({ sessionId: 'beta' }).user('Nothing about it here.');
    await appendEvents(
      store,
      'alpha',
      [
        { type: 'SessionStarted', data: { header: alpha.header } },
        ...alpha.entries.map((entry) => ({ type: 'EntryAppended' as const, data: { entry } })),
      ],
      { tenant: 'acme' },
    );
    await appendEvents(
      store,
      'beta',
      [
        { type: 'SessionStarted', data: { header: beta.header } },
        ...beta.entries.map((entry) => ({ type: 'EntryAppended' as const, data: { entry } })),
      ],
      { tenant: 'acme' },
    );
    const set = createProjectionSet({ store, storage, tokenCounter: charsPerFourCounter });
    await set.runner.rebuild();
    const found = await set.search.search('acme', terms('parser spec'));
    expect(found.hits.map((hit) => [hit.sessionId, hit.entryId])).toEqual([['alpha', alpha.entries[1]!.id]]);
    expect((await set.search.search('globex', terms('parser'))).hits).toEqual([]);

    await set.runner.rebuild(['search']);
    expect((await set.search.search('acme', terms('parser'))).hits.map((hit) => hit.sessionId)).toEqual([
      'alpha',
    ]);
    expect((await set.search.search('acme', terms('flaky parser'))).hits).toMatchObject([
      { matchingEntries: 1 },
    ]);
    await set.runner.dispose();
    await storage.close();
    await store.close();
  });
});
