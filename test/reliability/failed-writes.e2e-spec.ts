// A SQLite store that refuses writes under a running engine (issue 6, part 2). The engine's own
// connection to its store file is switched to read-only (`PRAGMA query_only`: SQLite then
// answers every write with SQLITE_READONLY, as for a file the process may not write; file
// modes cannot show that here, the tests run as root). Every kind of write is refused with a
// 503 problem naming the reason, nothing of it is stored, and once the file is writable again
// the same engine writes, the chains verify and nothing refused appears afterwards.
import { serializeSessionFile } from '@strata/session';
import { SqliteEventStore, type RecordedEvent } from '@strata/event-store';
import { session } from '@strata/testing';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import {
  problemOf,
  startHttpEngine,
  waitUntil,
  type ApiResponse,
  type HttpHarness,
} from '../http/http-harness';
import { CaseCounts } from './support/case-counts';

const counts = new CaseCounts('failed writes (read-only SQLite)');

const sessionId = 'refused-writes';

function userEntry(id: string, parentId: string | null) {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: 'user', content: `entry ${id}`, timestamp: 1 },
  };
}

/** The SQLite store under the engine's decorators (each keeps the store it wraps as `inner`). */
function sqliteStoreUnder(held: unknown): SqliteEventStore {
  let current = held;
  while (!(current instanceof SqliteEventStore)) {
    if (typeof current !== 'object' || current === null || !('inner' in current)) {
      throw new Error('expected the engine to run on a SQLite store');
    }
    current = current.inner;
  }
  return current;
}

describe('an engine whose SQLite store file stops accepting writes', () => {
  const builder = session({ sessionId }).user('Hello').assistant('Hi.');
  for (let turn = 0; turn < 4; turn += 1) builder.user(`Step ${turn}`).assistant('x'.repeat(600));
  const importedFile = session({ sessionId: 'refused-import' }).user('Imported?').assistant('No.');
  let engine: HttpHarness;
  let store: SqliteEventStore;

  async function allEvents(): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    for await (const event of store.readAll()) events.push(event);
    return events;
  }

  beforeAll(async () => {
    engine = await startHttpEngine({ settings: { compaction: { keepRecentTokens: 250 } } });
    await engine.seed(builder.header, builder.entries);
    store = sqliteStoreUnder(engine.app.get<unknown>(EVENT_STORE));
  });

  afterAll(async () => {
    counts.report();
    await engine.close();
  });

  describe('while the file refuses writes', () => {
    let before: RecordedEvent[];

    beforeAll(async () => {
      before = await allEvents();
      // The file's writer (its only connection that writes) refuses every write from now on.
      await store.writerPragma('query_only = ON');
    });

    afterAll(async () => {
      await store.writerPragma('query_only = OFF');
    });

    const writes: readonly { name: string; send: () => Promise<ApiResponse> }[] = [
      {
        name: 'start a session',
        send: () =>
          engine.request('POST', '/sessions', { body: { sessionId: 'never-started', cwd: '/work/never' } }),
      },
      {
        name: 'append one entry',
        send: () =>
          engine.request('POST', `/sessions/${sessionId}/entries`, {
            body: { entries: [userEntry('refused-1', builder.lastId)] },
          }),
      },
      {
        name: 'append a batch of three entries',
        send: () =>
          engine.request('POST', `/sessions/${sessionId}/entries`, {
            body: {
              entries: [
                userEntry('refused-2', builder.lastId),
                userEntry('refused-3', 'refused-2'),
                userEntry('refused-4', 'refused-3'),
              ],
            },
          }),
      },
      {
        name: 'label an entry',
        send: () =>
          engine.request('POST', `/sessions/${sessionId}/labels`, {
            body: { targetId: builder.lastId, label: 'refused' },
          }),
      },
      {
        name: 'compact',
        send: () => engine.request('POST', `/sessions/${sessionId}/compact`, { body: {} }),
      },
      {
        name: 'navigate',
        send: () =>
          engine.request('POST', `/sessions/${sessionId}/navigate`, {
            body: { targetId: builder.entries[1]!.id },
          }),
      },
      {
        name: 'import a file',
        send: () =>
          engine.request('POST', '/sessions/import', {
            rawBody: serializeSessionFile(importedFile.header, importedFile.entries),
            contentType: 'application/x-ndjson',
          }),
      },
    ];

    it.each(writes)('refuses to $name with 503 naming SQLITE_READONLY', async ({ name, send }) => {
      const response = await send();
      counts.record('refused writes', [name]);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      expect(problemOf(response)).toMatchObject({ code: 'unavailable', reason: 'SQLITE_READONLY' });
    });

    it('stored nothing of any refused write', async () => {
      expect(await allEvents()).toEqual(before);
    });

    it('still answers reads', async () => {
      const context = await engine.request('GET', `/sessions/${sessionId}/context`);
      expect(context.status).toBe(200);
      expect(context.body).toMatchObject({ leafId: builder.lastId });
    });
  });

  describe('once the file accepts writes again', () => {
    beforeAll(async () => {
      // The read models share the file: their writes were refused too, and they start again by
      // themselves after a pause; the engine is ready again once they are live.
      await waitUntil(
        async () => (await engine.request('GET', '/ready')).status === 200,
        'the engine is ready again',
        30_000,
      );
    });

    it('writes with the same engine, and the refused entries never appear', async () => {
      const appended = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [userEntry('after-refusal', builder.lastId)] },
      });
      expect(appended.status).toBe(200);
      const entries = await engine.request('GET', `/sessions/${sessionId}/entries?limit=500`);
      const ids = (entries.body as { items: { id: string }[] }).items.map((entry) => entry.id);
      expect(ids).toEqual([...builder.entries.map((entry) => entry.id), 'after-refusal']);
    });

    it('holds no trace of the refused compaction (not even an open attempt), and every chain verifies', async () => {
      const attempts = await engine.request('GET', `/sessions/${sessionId}/attempts`);
      expect(attempts.body).toMatchObject({ items: [] });
      const verified = await engine.request('GET', '/verify');
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ ok: true });
    });

    it('compacts normally', async () => {
      const compacted = await engine.request('POST', `/sessions/${sessionId}/compact`, { body: {} });
      expect(compacted.body).toMatchObject({ outcome: 'completed' });
    });
  });
});
