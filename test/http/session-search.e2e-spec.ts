// GET /sessions?q= over real HTTP: a search inside the sessions' entries (the search read model)
// or their titles and directories, scoped to the caller's tenant, paged by offset, refusing what
// it cannot bound; a restarted engine still finds what was written before.
import { session } from '@strata/testing';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  startHttpEngine,
  waitUntil,
  type HttpHarness,
} from './http-harness';

interface SearchPage {
  readonly items: readonly {
    readonly sessionId: string;
    readonly match: {
      readonly entryId: string;
      readonly excerpt: string;
      readonly matchingEntries: number;
    } | null;
  }[];
  readonly total: number;
  readonly nextOffset: number | null;
  readonly truncated: boolean;
}

describe('GET /sessions?q= (search inside sessions)', () => {
  let engine: HttpHarness;
  const parser = session({ sessionId: 'parser-work', cwd: '/srv/app' })
    .user('The flaky parser test fails on Windows only.')
    .assistant('Looking at parser.spec.ts now.');
  const billing = session({ sessionId: 'billing-work', cwd: '/srv/billing-parser' }).user(
    'Invoices are late.',
  );
  const other = session({ sessionId: 'beta-work', cwd: '/srv/app' }).user(
    'The flaky parser test, in tenant beta.',
  );

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: TWO_TENANT_KEYS } });
    await engine.seed(parser.header, parser.entries, ALPHA_KEY);
    await engine.seed(billing.header, billing.entries, ALPHA_KEY);
    await engine.seed(other.header, other.entries, BETA_KEY);
  });

  afterAll(async () => {
    await engine?.close();
  });

  async function search(query: string, key = ALPHA_KEY): Promise<SearchPage> {
    const answer = await engine.request('GET', `/sessions?${query}`, { key });
    expect(answer.status).toBe(200);
    return answer.body as SearchPage;
  }

  it('finds text inside entries, with the entry and an excerpt, in the caller’s tenant only', async () => {
    const page = await search('q=flaky%20WINDOWS');
    expect(page).toMatchObject({ total: 1, nextOffset: null, truncated: false });
    expect(page.items[0]).toMatchObject({
      sessionId: 'parser-work',
      match: { entryId: parser.entries[0]!.id, matchingEntries: 1 },
    });
    expect(page.items[0]?.match?.excerpt).toContain('Windows');
    const beta = await search('q=flaky%20windows', BETA_KEY);
    expect(beta.items.map((item) => item.sessionId)).toEqual([]);
    expect((await search('q=flaky%20parser', BETA_KEY)).items.map((item) => item.sessionId)).toEqual([
      'beta-work',
    ]);
  });

  it('also finds sessions by title or directory, without a match, latest activity first, paged by offset', async () => {
    const page = await search('q=parser&limit=1');
    expect(page.total).toBe(2);
    expect(page.items.map((item) => item.sessionId)).toEqual(['billing-work']);
    expect(page.items[0]?.match).toBeNull();
    expect(page.nextOffset).toBe(1);
    const next = await search('q=parser&limit=1&offset=1');
    expect(next.items.map((item) => item.sessionId)).toEqual(['parser-work']);
    expect(next.nextOffset).toBeNull();
  });

  it('reads the last word as a prefix and finds nothing for words that are not there', async () => {
    expect((await search('q=invoi')).items.map((item) => item.sessionId)).toEqual(['billing-work']);
    expect((await search('q=nowhere%20to%20be%20found')).total).toBe(0);
  });

  it('refuses a query it cannot bound, and a cursor with a search', async () => {
    expect((await engine.request('GET', `/sessions?q=${'a'.repeat(257)}`, { key: ALPHA_KEY })).status).toBe(
      400,
    );
    expect((await engine.request('GET', '/sessions?q=flaky&cursor=abc', { key: ALPHA_KEY })).status).toBe(
      400,
    );
  });

  it('finds what was written before a restart (the index is stored and checkpointed)', async () => {
    const directory = engine.directory;
    await engine.close({ keepDirectory: true });
    engine = await startHttpEngine({ directory, environment: { STRATA_API_KEYS: TWO_TENANT_KEYS } });
    expect((await search('q=windows')).items.map((item) => item.sessionId)).toEqual(['parser-work']);
    const more = session({ sessionId: 'later-work', cwd: '/srv/app' }).user(
      'Windows again, after the restart.',
    );
    await engine.seed(more.header, more.entries, ALPHA_KEY);
    const after = await search('q=windows');
    expect(after.items.map((item) => item.match?.matchingEntries)).toEqual([1, 1]);
    expect(after.items.map((item) => item.sessionId).sort()).toEqual(['later-work', 'parser-work']);
  });

  it('indexes each entry once when two engines share the SQLite file, and each finds it', async () => {
    const second = await startHttpEngine({
      directory: engine.directory,
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS, STRATA_ENGINE_ID: 'engine-b' },
    });
    try {
      const shared = session({ sessionId: 'shared-work', cwd: '/srv/app' }).user('Quokkas on both engines.');
      await engine.seed(shared.header, shared.entries, ALPHA_KEY);
      // The second engine applies the same events from the store and saves them into the same index.
      let found: SearchPage | undefined;
      await waitUntil(async () => {
        const answer = await second.request('GET', '/sessions?q=quokkas', { key: ALPHA_KEY });
        found = answer.body as SearchPage;
        return answer.status === 200 && found.total === 1;
      }, 'the second engine finds the entry the first appended');
      expect(found?.items).toMatchObject([{ sessionId: 'shared-work', match: { matchingEntries: 1 } }]);
      expect((await search('q=quokkas')).items).toMatchObject([{ match: { matchingEntries: 1 } }]);
    } finally {
      await second.close({ keepDirectory: true });
    }
  });
});
