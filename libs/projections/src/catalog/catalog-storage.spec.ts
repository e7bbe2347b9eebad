import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidProjectionQueryError } from '../documents/paging';
import { sqliteProjectionStorage } from '../storage/projection-storage';
import { emptyUsageTotals, type CatalogSession } from './catalog-session';
import type { CatalogStorage } from './catalog-storage';
import { InMemoryCatalogStorage } from './in-memory-catalog-storage';

function session(sessionId: string, fields: Partial<CatalogSession> = {}): CatalogSession {
  return {
    sessionId,
    tenant: 'acme',
    title: null,
    headerTitle: null,
    sessionName: null,
    cwd: `/work/${sessionId}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    parentSession: null,
    entryCount: 1,
    messageCount: 1,
    usage: emptyUsageTotals,
    compactionCount: 0,
    branchSummaryCount: 0,
    leafId: 'e1',
    lastActivityAt: '2026-01-01T00:00:00.000Z',
    lastEntryAt: null,
    position: 1n,
    ...fields,
  };
}

async function saved(storage: CatalogStorage, sessions: readonly CatalogSession[]): Promise<CatalogStorage> {
  await storage.save(new Map(sessions.map((item) => [item.sessionId, item])));
  return storage;
}

const storages: readonly [string, () => CatalogStorage][] = [
  ['in memory', () => new InMemoryCatalogStorage()],
  ['in SQLite', () => sqliteProjectionStorage(':memory:').catalog],
];

describe.each(storages)('catalog storage %s', (_name, create) => {
  const sessions = [
    session('s-old', { lastActivityAt: '2026-01-01T00:00:00.000Z', title: 'Date parsing', position: 12n }),
    session('s-new', { lastActivityAt: '2026-03-01T00:00:00.000Z', cwd: '/srv/billing' }),
    session('s-mid-b', { lastActivityAt: '2026-02-01T00:00:00.000Z', title: 'Flaky DATE test' }),
    session('s-mid-a', { lastActivityAt: '2026-02-01T00:00:00.000Z' }),
    session('s-other', { tenant: 'globex', lastActivityAt: '2026-04-01T00:00:00.000Z', title: 'date' }),
  ];

  describe('given sessions of two tenants', () => {
    it('stores and loads a document exactly, position included', async () => {
      const storage = await saved(create(), sessions);

      expect(await storage.load('s-old')).toEqual(sessions[0]);
      expect(await storage.load('missing')).toBeUndefined();
    });

    it('lists only the asked tenant, latest activity first, then by id', async () => {
      const storage = await saved(create(), sessions);

      const page = await storage.listSessions({ tenant: 'acme' });
      expect(page.items.map((item) => item.sessionId)).toEqual(['s-new', 's-mid-a', 's-mid-b', 's-old']);
      expect(page.total).toBe(4);
      expect(page.nextCursor).toBeNull();
    });

    it('finds a session only for its own tenant', async () => {
      const storage = await saved(create(), sessions);

      expect(await storage.findSession('acme', 's-new')).toEqual(sessions[1]);
      expect(await storage.findSession('globex', 's-new')).toBeUndefined();
    });

    it('searches title and working directory, ignoring case', async () => {
      const storage = await saved(create(), sessions);

      const dates = await storage.listSessions({ tenant: 'acme', text: 'date' });
      expect(dates.items.map((item) => item.sessionId)).toEqual(['s-mid-b', 's-old']);
      const billing = await storage.listSessions({ tenant: 'acme', text: 'BILLING' });
      expect(billing.items.map((item) => item.sessionId)).toEqual(['s-new']);
    });

    it('pages with an offset, and with cursors that neither skip nor repeat', async () => {
      const storage = await saved(create(), sessions);

      const second = await storage.listSessions({ tenant: 'acme', limit: 2, offset: 2 });
      expect(second.items.map((item) => item.sessionId)).toEqual(['s-mid-b', 's-old']);

      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await storage.listSessions({ tenant: 'acme', limit: 1, ...(cursor ? { cursor } : {}) });
        expect(page.total).toBe(4);
        seen.push(...page.items.map((item) => item.sessionId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(seen).toEqual(['s-new', 's-mid-a', 's-mid-b', 's-old']);
    });

    it('refuses a bad limit, a foreign cursor, or an offset with a cursor', async () => {
      const storage = await saved(create(), sessions);
      const { nextCursor } = await storage.listSessions({ tenant: 'acme', limit: 1 });

      await expect(storage.listSessions({ tenant: 'acme', limit: 0 })).rejects.toBeInstanceOf(
        InvalidProjectionQueryError,
      );
      await expect(storage.listSessions({ tenant: 'acme', cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
        InvalidProjectionQueryError,
      );
      await expect(
        storage.listSessions({ tenant: 'acme', cursor: nextCursor!, offset: 1 }),
      ).rejects.toBeInstanceOf(InvalidProjectionQueryError);
    });

    it('forgets everything when cleared', async () => {
      const storage = await saved(create(), sessions);

      await storage.clear();

      expect((await storage.listSessions({ tenant: 'acme' })).total).toBe(0);
    });
  });
});

describe('catalog tables shared by two engines on one SQLite file', () => {
  it('keeps the later document when the slower engine flushes an earlier one after it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-catalog-'));
    const filename = join(directory, 'strata.db');
    const ahead = sqliteProjectionStorage(filename);
    const behind = sqliteProjectionStorage(filename);
    try {
      await saved(ahead.catalog, [session('shared', { entryCount: 10, position: 10n })]);
      await saved(behind.catalog, [session('shared', { entryCount: 5, position: 5n })]);

      expect(await behind.catalog.load('shared')).toMatchObject({ entryCount: 10, position: 10n });
      await saved(behind.catalog, [session('shared', { entryCount: 11, position: 11n })]);
      expect(await ahead.catalog.load('shared')).toMatchObject({ entryCount: 11, position: 11n });
    } finally {
      await ahead.close();
      await behind.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
