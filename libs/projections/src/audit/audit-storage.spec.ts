import { InvalidProjectionQueryError } from '../documents/paging';
import { sqliteProjectionStorage } from '../storage/projection-storage';
import type { AuditAttempt } from './audit-attempt';
import Database from 'better-sqlite3';
import { openSqliteWriter } from '@strata/event-store';
import type { AuditStorage } from './audit-storage';
import { InMemoryAuditStorage } from './in-memory-audit-storage';
import { SqliteAuditStorage } from './sqlite-audit-storage';

function attempt(
  sessionId: string,
  attemptId: string,
  startPosition: bigint,
  fields: Partial<AuditAttempt> = {},
): AuditAttempt {
  return {
    sessionId,
    attemptId,
    tenant: 'acme',
    kind: 'compaction',
    trigger: 'manual',
    outcome: 'completed',
    reason: null,
    error: null,
    model: null,
    tokensBefore: 1000,
    estimatedTokensAfter: 200,
    usage: null,
    durationMs: 50,
    startedAt: '2026-01-01T00:00:00.000Z',
    startRecordedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:00:01.000Z',
    entryId: null,
    preparedAtLeafId: null,
    firstKeptEntryId: null,
    targetId: null,
    oldLeafId: null,
    newLeafId: null,
    continuation: null,
    customInstructions: null,
    force: false,
    actor: null,
    onBehalfOf: null,
    summaryCalls: [],
    summaryCallsOmitted: 0,
    startPosition,
    position: startPosition + 1n,
    ...fields,
  };
}

const attempts = [
  attempt('s1', 'a1', 10n),
  attempt('s1', 'a2', 20n, {
    outcome: 'failed',
    error: { message: 'boom', code: null },
    customInstructions: 'keep the file names',
    actor: 'agent-host',
    onBehalfOf: 'user-42',
    summaryCalls: [
      {
        purpose: 'history',
        summarizer: 'remote-endpoint',
        retry: 0,
        model: null,
        usage: null,
        durationMs: 30,
        error: { message: 'down', code: 'server_error' },
      },
      {
        purpose: 'history',
        summarizer: 'openai-compatible:m@h',
        retry: 0,
        model: 'fake-summarizer-1-2026',
        usage: { input: 10, output: 2, totalTokens: 12, cost: null },
        durationMs: 40,
        error: null,
      },
    ],
    summaryCallsOmitted: 3,
  }),
  attempt('s2', 'b1', 30n, { kind: 'branch_summary', trigger: null, outcome: 'skipped', reason: 'empty' }),
  attempt('s3', 'a1', 40n, { tenant: 'globex' }),
];

async function saved(storage: AuditStorage): Promise<AuditStorage> {
  await storage.save(new Map(attempts.map((item) => [`${item.sessionId}/${item.attemptId}`, item])));
  return storage;
}

const ids = (items: readonly AuditAttempt[]) => items.map((item) => `${item.sessionId}/${item.attemptId}`);

const storages: readonly [string, () => AuditStorage][] = [
  ['in memory', () => new InMemoryAuditStorage()],
  ['in SQLite', () => sqliteProjectionStorage(':memory:').audit],
];

describe.each(storages)('audit storage %s', (_name, create) => {
  describe('given attempts of two tenants', () => {
    it('stores and loads a document exactly, positions included', async () => {
      const storage = await saved(create());

      expect(await storage.load('s1/a2')).toEqual(attempts[1]);
    });

    it('lists one tenant newest first, or oldest first when asked', async () => {
      const storage = await saved(create());

      expect(ids((await storage.listAttempts({ tenant: 'acme' })).items)).toEqual([
        's2/b1',
        's1/a2',
        's1/a1',
      ]);
      expect(ids((await storage.listAttempts({ tenant: 'acme', order: 'oldest_first' })).items)).toEqual([
        's1/a1',
        's1/a2',
        's2/b1',
      ]);
      expect(ids((await storage.listAttempts({ tenant: 'globex' })).items)).toEqual(['s3/a1']);
    });

    it('filters by session, kind and outcome, never across tenants', async () => {
      const storage = await saved(create());

      expect(ids((await storage.listAttempts({ tenant: 'acme', sessionId: 's1' })).items)).toEqual([
        's1/a2',
        's1/a1',
      ]);
      expect(ids((await storage.listAttempts({ tenant: 'acme', kind: 'branch_summary' })).items)).toEqual([
        's2/b1',
      ]);
      expect(ids((await storage.listAttempts({ tenant: 'acme', outcome: 'failed' })).items)).toEqual([
        's1/a2',
      ]);
      expect((await storage.listAttempts({ tenant: 'globex', sessionId: 's1' })).total).toBe(0);
    });

    it('pages with cursors in both orders', async () => {
      const storage = await saved(create());

      for (const order of ['newest_first', 'oldest_first'] as const) {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await storage.listAttempts({
            tenant: 'acme',
            order,
            limit: 2,
            ...(cursor ? { cursor } : {}),
          });
          seen.push(...ids(page.items));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        const expected = ['s1/a1', 's1/a2', 's2/b1'];
        expect(seen).toEqual(order === 'oldest_first' ? expected : [...expected].reverse());
      }
    });

    it('refuses a cursor it did not issue', async () => {
      const storage = await saved(create());

      await expect(storage.listAttempts({ tenant: 'acme', cursor: 'W10' })).rejects.toBeInstanceOf(
        InvalidProjectionQueryError,
      );
    });
  });
});

describe('a document stored in SQLite before the instructions, the actor and the calls were recorded', () => {
  it('reads them as null and none', async () => {
    const database = new Database(':memory:');
    const storage = new SqliteAuditStorage(database, openSqliteWriter(database, ':memory:'));
    await storage.save(new Map([['s1/a1', attempt('s1', 'a1', 10n)]]));
    const row = database.prepare('SELECT document FROM projection_audit_attempts').get() as {
      document: string;
    };
    const {
      customInstructions: _i,
      actor: _a,
      onBehalfOf: _o,
      ...older
    } = JSON.parse(row.document) as Record<string, unknown>;
    database.prepare('UPDATE projection_audit_attempts SET document = ?').run(JSON.stringify(older));
    expect(await storage.load('s1/a1')).toEqual(attempt('s1', 'a1', 10n));
    database.close();
  });
});
