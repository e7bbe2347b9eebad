// End to end: one session whose events a read model cannot take is set aside — its reads
// answer `set_aside` naming the event — while every other session and tenant reads on, the
// engine stays ready, and a rebuild after the fix brings the session back (issue 11, finding 1).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { sqliteProjectionStorage, type CatalogSession, type ProjectionStorage } from '@strata/projections';
import { sessionStreamName } from '@strata/session';
import { session } from '@strata/testing';
import { ReadModels } from '../../apps/engine/src/read-side/read-models.service';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  type HttpHarness,
} from './http-harness';

const environment = { STRATA_API_KEYS: TWO_TENANT_KEYS };

async function eventually<Value>(
  read: () => Promise<Value>,
  done: (value: Value) => boolean,
  timeoutMs = 10_000,
): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Another writer on the store file appends an entry, past the engine's checks at the edge. */
async function appendRawEntry(
  directory: string,
  sessionId: string,
  id: string,
  entry: unknown,
): Promise<string> {
  const store = new SqliteEventStore({ filename: join(directory, 'strata.db') });
  try {
    await store.appendToStream(sessionStreamName(sessionId), [
      { id, type: 'EntryAppended', data: { entry }, metadata: { tenant: 'alpha' } },
    ]);
  } finally {
    await store.close();
  }
  return id;
}

/** An entry the engine's schemas refuse when it is read back. */
function appendUnreadableEntry(directory: string, sessionId: string): Promise<string> {
  return appendRawEntry(directory, sessionId, '0190f000-0000-7000-8000-00000000bad1', {
    type: 'message',
    id: 'bad',
    parentId: null,
    timestamp: 'x',
    message: { role: 'assistant', content: 42 },
  });
}

async function seedBoth(engine: HttpHarness): Promise<void> {
  const poisoned = session({ sessionId: 'poisoned' }).editTurns(2);
  const neighbour = session({ sessionId: 'neighbour' }).editTurns(2);
  const other = session({ sessionId: 'other-tenant' }).editTurns(2);
  await engine.seed(poisoned.header, poisoned.entries, ALPHA_KEY);
  await engine.seed(neighbour.header, neighbour.entries, ALPHA_KEY);
  await engine.seed(other.header, other.entries, BETA_KEY);
}

const sessionReads = ['', '/context', '/tree', '/entries', '/attempts'];
/** The reads answered by the read models that take entries (catalog, context): not the audit. */
const entryReads = ['', '/context', '/tree', '/entries'];

describe('given a session holding an event the read models cannot read back', () => {
  let engine: HttpHarness;
  let badEventId: string;

  beforeAll(async () => {
    engine = await startHttpEngine({ environment });
    await seedBoth(engine);
    badEventId = await appendUnreadableEntry(engine.directory, 'poisoned');
  });

  afterAll(() => engine.close());

  it('answers set_aside on every read of that session that needs its entries, naming the event', async () => {
    const context = await eventually(
      () => engine.request('GET', '/sessions/poisoned/context', { key: ALPHA_KEY }),
      (response) => response.status === 503,
    );
    expect(problemOf(context)).toMatchObject({
      code: 'set_aside',
      sessionId: 'poisoned',
      eventId: badEventId,
      eventType: 'EntryAppended',
    });
    for (const read of entryReads) {
      const response = await eventually(
        () => engine.request('GET', `/sessions/poisoned${read}`, { key: ALPHA_KEY }),
        (answer) => answer.status === 503,
      );
      expect([read, response.status, problemOf(response).code]).toEqual([read, 503, 'set_aside']);
      expect(response.headers.get('retry-after')).toBeNull();
    }
    const attempts = await engine.request('GET', '/sessions/poisoned/attempts', { key: ALPHA_KEY });
    expect(attempts.status).toBe(200);
  });

  it('goes on serving every other session of the tenant and of the other tenant', async () => {
    for (const [sessionId, key] of [
      ['neighbour', ALPHA_KEY],
      ['other-tenant', BETA_KEY],
    ] as const) {
      for (const read of sessionReads) {
        const response = await engine.request('GET', `/sessions/${sessionId}${read}`, { key });
        expect([sessionId, read, response.status]).toEqual([sessionId, read, 200]);
      }
    }
    const list = await engine.request('GET', '/sessions', { key: BETA_KEY });
    expect(list.status).toBe(200);
    const detail = await engine.request('GET', '/sessions/other-tenant', { key: BETA_KEY });
    const { leafId } = detail.body as { leafId: string };
    const appended = await engine.request('POST', '/sessions/other-tenant/entries', {
      key: BETA_KEY,
      body: {
        entries: [
          {
            type: 'message',
            id: 'later',
            parentId: leafId,
            timestamp: '2026-02-01T00:00:00.000Z',
            message: { role: 'user', content: 'still here', timestamp: 1 },
          },
        ],
      },
    });
    expect(appended.status).toBe(200);
    const context = await engine.request('GET', '/sessions/other-tenant/context', { key: BETA_KEY });
    expect(JSON.stringify(context.body)).toContain('still here');
  });

  it('stays ready, and the metrics and the runner name the session', async () => {
    expect((await engine.request('GET', '/ready')).status).toBe(200);
    const metrics = await engine.request('GET', '/metrics', { key: ALPHA_KEY });
    expect(metrics.text).toMatch(/^strata_sessions_set_aside 1$/m);
    expect(metrics.text).toMatch(/^strata_sessions_set_aside_total\{projection="catalog"\} 1$/m);
    expect(engine.app.get(ReadModels).runner.isParked(sessionStreamName('poisoned'))).toMatchObject({
      eventId: badEventId,
      tenant: 'alpha',
    });
  });

  it('keeps it aside after a restart, and the others readable', async () => {
    const directory = engine.directory;
    await engine.close({ keepDirectory: true });
    engine = await startHttpEngine({ environment, directory });
    const response = await engine.request('GET', '/sessions/poisoned', { key: ALPHA_KEY });
    expect(problemOf(response).code).toBe('set_aside');
    expect((await engine.request('GET', '/sessions/neighbour', { key: ALPHA_KEY })).status).toBe(200);
  });
});

/** The tables beside the store, with a catalog that fails to load one session's document while `failing` is set. */
function faultyProjectionStorage(
  filename: string,
  failing: { sessionId: string | undefined },
): ProjectionStorage {
  const storage = sqliteProjectionStorage(filename);
  const catalog = storage.catalog;
  const load = catalog.load.bind(catalog);
  catalog.load = (documentId: string): Promise<CatalogSession | undefined> =>
    documentId === failing.sessionId
      ? Promise.reject(new Error('the disk refused this page'))
      : load(documentId);
  return storage;
}

describe('given a read model that fails on purpose on one session', () => {
  it('sets only that session aside, and a rebuild once it is fixed brings the session back', async () => {
    const failing: { sessionId: string | undefined } = { sessionId: 'poisoned' };
    const directory = mkdtempSync(join(tmpdir(), 'strata-set-aside-'));
    const storage = faultyProjectionStorage(join(directory, 'projections.db'), failing);
    const faulty = await startHttpEngine({ environment, directory, projectionStorage: storage });
    try {
      await seedBoth(faulty);
      const detail = await eventually(
        () => faulty.request('GET', '/sessions/poisoned', { key: ALPHA_KEY }),
        (response) => response.status === 503,
      );
      expect(problemOf(detail)).toMatchObject({
        code: 'set_aside',
        projection: 'catalog',
        reason: 'the disk refused this page',
      });
      expect((await faulty.request('GET', '/sessions/neighbour', { key: ALPHA_KEY })).status).toBe(200);
      expect((await faulty.request('GET', '/sessions/poisoned/context', { key: ALPHA_KEY })).status).toBe(
        200,
      );

      failing.sessionId = undefined;
      const report = await faulty.app.get(ReadModels).runner.rebuild(['catalog']);

      expect(report.parkedPartitions).toBe(0);
      const back = await faulty.request('GET', '/sessions/poisoned', { key: ALPHA_KEY });
      expect(back.status).toBe(200);
      expect(back.body).toMatchObject({ sessionId: 'poisoned', entryCount: 8 });
    } finally {
      await faulty.close();
      await storage.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
