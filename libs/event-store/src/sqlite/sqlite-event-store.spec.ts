import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  collect,
  describeCheckpointStoreContract,
  describeEventStoreContract,
  SubscriptionReader,
} from '../contract';
import { RecentAppends } from './recent-appends';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store';
import { SqliteEventStore } from './sqlite-event-store';
import { LogRangeReader, type RowPage } from './sqlite-event-rows';

function temporaryDirectory(): { directory: string; remove: () => void } {
  const directory = mkdtempSync(join(tmpdir(), 'strata-sqlite-'));
  return { directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

describeEventStoreContract('SqliteEventStore', (options = {}) => {
  const { directory, remove } = temporaryDirectory();
  const store = new SqliteEventStore({
    filename: join(directory, 'events.db'),
    pollIntervalMs: 20,
    readBatchSize: options.pageSize,
    readPageBytes: options.pageBytes,
  });
  return Promise.resolve({
    store,
    cleanup: async () => {
      await store.close();
      remove();
    },
  });
});

describeCheckpointStoreContract('SqliteCheckpointStore', () => {
  const { directory, remove } = temporaryDirectory();
  const checkpoints = SqliteCheckpointStore.open({ filename: join(directory, 'events.db') });
  return Promise.resolve({
    checkpoints,
    cleanup: async () => {
      await checkpoints.close();
      remove();
    },
  });
});

describe('SqliteEventStore', () => {
  let directory: string;
  let remove: () => void;
  const open: SqliteEventStore[] = [];

  function openStore(
    options: { filename?: string; pollIntervalMs?: number; readPageBytes?: number } = {},
  ): SqliteEventStore {
    const store = new SqliteEventStore({ filename: join(directory, 'events.db'), ...options });
    open.push(store);
    return store;
  }

  beforeEach(() => {
    ({ directory, remove } = temporaryDirectory());
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(open.splice(0).map((store) => store.close()));
    remove();
  });

  describe('given a fresh file', () => {
    it('creates the folder and the schema, in WAL mode with synchronous=NORMAL', () => {
      const store = openStore({ filename: join(directory, 'nested', 'deeper', 'strata.db') });
      expect(existsSync(join(directory, 'nested', 'deeper', 'strata.db'))).toBe(true);
      expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.database.pragma('synchronous', { simple: true })).toBe(1n);
      const tables = store.database
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((row) => row.name);
      expect(tables).toEqual(
        expect.arrayContaining(['checkpoints', 'erasures', 'events', 'stream_metadata', 'streams']),
      );
      const eventColumns = store.database
        .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
        .all('events')
        .map((row) => row.name);
      expect(eventColumns).toEqual([
        'global_position',
        'stream_id',
        'stream_revision',
        'event_id',
        'type',
        'data',
        'metadata',
        'created_at',
      ]);
    });
  });

  describe('given events written and the store closed', () => {
    it('reads them back after reopening, and continues revisions and positions', async () => {
      const first = openStore();
      await first.appendToStream('session-1', [{ id: 'a', type: 't', data: { n: 1 } }]);
      await first.close();
      const second = openStore();
      const result = await second.appendToStream('session-1', [{ id: 'b', type: 't', data: { n: 2 } }], {
        expectedRevision: 0n,
      });
      expect(result.nextExpectedRevision).toBe(1n);
      expect((await collect(second.readStream('session-1'))).map((event) => event.data)).toEqual([
        { n: 1 },
        { n: 2 },
      ]);
    });
  });

  describe('given a live subscription that polls only once an hour', () => {
    it('wakes on an append made in this process, also through another store on the same file', async () => {
      const subscriber = openStore({ pollIntervalMs: 3_600_000 });
      const writer = openStore({ pollIntervalMs: 3_600_000 });
      const reader = new SubscriptionReader(subscriber.subscribe(), 5_000);
      try {
        await reader.untilCaughtUp();
        await subscriber.appendToStream('s-1', [{ id: 'local', type: 't', data: {} }]);
        expect((await reader.events(1))[0]!.id).toBe('local');
        await writer.appendToStream('s-2', [{ id: 'sibling', type: 't', data: {} }]);
        expect((await reader.events(1))[0]!.id).toBe('sibling');
      } finally {
        await reader.close();
      }
    });
  });

  describe('given an appended event whose tail is erased', () => {
    it('never reuses a global position, so resumed subscribers miss nothing', async () => {
      const store = openStore();
      await store.appendToStream('keep', [{ id: 'k', type: 't', data: {} }]);
      const erased = await store.appendToStream('gone', [{ id: 'g', type: 't', data: {} }]);
      await store.eraseStream('gone', { actor: 'ops', reason: 'test' });
      const next = await store.appendToStream('keep', [{ id: 'k2', type: 't', data: {} }]);
      expect(next.position > erased.position).toBe(true);
    });
  });

  describe('given an erased stream', () => {
    it('keeps no content in the tables nor in the database files, only the audit record', async () => {
      const filename = join(directory, 'events.db');
      const store = openStore({ filename });
      const secret = 'patient-record-7f3a9c';
      await store.appendToStream('session-x', [
        { id: 'x1', type: 'message', data: { text: secret.repeat(50) }, metadata: { note: secret } },
      ]);
      await store.setStreamMetadata('session-x', { title: secret });
      await store.appendToStream('session-y', [{ id: 'y1', type: 'message', data: { text: 'other' } }]);
      await store.eraseStream('session-x', { actor: 'dpo', reason: 'request 42', tenant: 'acme' });
      await store.close();

      const raw = new Database(filename, { readonly: true });
      try {
        const dump = ['events', 'streams', 'stream_metadata', 'erasures']
          .map((table) =>
            JSON.stringify(raw.prepare(`SELECT * FROM ${table}`).raw().all(), (_, value: unknown) =>
              typeof value === 'bigint' ? value.toString() : value,
            ),
          )
          .join('\n');
        expect(dump).not.toContain(secret);
        expect(
          raw.prepare("SELECT count(*) AS n FROM events WHERE stream_id = 'session-x'").pluck().get(),
        ).toBe(0);
        expect(
          raw.prepare('SELECT stream_id, actor, reason, tenant, event_count FROM erasures').get(),
        ).toEqual({
          stream_id: 'session-x',
          actor: 'dpo',
          reason: 'request 42',
          tenant: 'acme',
          event_count: 1,
        });
        expect(raw.prepare("SELECT erased FROM streams WHERE stream_id = 'session-x'").pluck().get()).toBe(1);
      } finally {
        raw.close();
      }
      const files = [filename, `${filename}-wal`].filter((file) => existsSync(file));
      for (const file of files) expect(readFileSync(file).includes(secret)).toBe(false);
    });
  });

  describe('given a database written before the tenant index (schema version 1)', () => {
    const version1Schema = `
      CREATE TABLE events (
        global_position INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT NOT NULL,
        stream_revision INTEGER NOT NULL, event_id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
        data TEXT NOT NULL, metadata TEXT NOT NULL, created_at TEXT NOT NULL,
        UNIQUE (stream_id, stream_revision));
      CREATE TABLE streams (stream_id TEXT PRIMARY KEY, last_revision INTEGER NOT NULL, erased INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE stream_metadata (stream_id TEXT PRIMARY KEY, metadata TEXT NOT NULL);
      CREATE TABLE erasures (erasure_id INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT NOT NULL,
        actor TEXT NOT NULL, reason TEXT NOT NULL, tenant TEXT, erased_at TEXT NOT NULL, event_count INTEGER NOT NULL);
      CREATE INDEX erasures_by_stream ON erasures (stream_id);
      CREATE TABLE checkpoints (subscriber_id TEXT PRIMARY KEY, position INTEGER NOT NULL, updated_at TEXT NOT NULL);
      PRAGMA user_version = 1;`;

    function writeVersion1Database(filename: string): void {
      const raw = new Database(filename);
      raw.exec(version1Schema);
      const insert = raw.prepare(
        `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata, created_at)
         VALUES (?, ?, ?, 't', '{}', ?, '2026-01-01T00:00:00.000Z')`,
      );
      const tenants = ['acme', 'globex', undefined, 'acme', ''];
      tenants.forEach((tenant, index) =>
        insert.run(`s-${index}`, 0, `old-${index}`, JSON.stringify(tenant === undefined ? {} : { tenant })),
      );
      raw.close();
    }

    it('builds the tenant index on opening, and reads a tenant through it', async () => {
      const filename = join(directory, 'events.db');
      writeVersion1Database(filename);
      const store = openStore({ filename });
      expect(store.database.pragma('user_version', { simple: true })).toBe(2n);
      const indexes = store.database
        .prepare<[], { name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'",
        )
        .all()
        .map((row) => row.name);
      expect(indexes).toContain('events_by_tenant');
      const prepared: string[] = [];
      const prepare = store.database.prepare.bind(store.database);
      jest.spyOn(store.database, 'prepare').mockImplementation((source: string) => {
        prepared.push(source);
        return prepare(source);
      });
      const acme = await collect(store.readAll({ filter: { tenant: 'acme' } }));
      const untenanted = await collect(store.readAll({ filter: { tenant: 'default' } }));
      expect(acme.map((event) => event.id)).toEqual(['old-0', 'old-3']);
      expect(untenanted.map((event) => event.id)).toEqual(['old-2', 'old-4']);
      const tenantQuery = prepared.find((source) => source.includes('json_extract'));
      expect(tenantQuery).toBeDefined();
      const plan = store.database
        .prepare(`EXPLAIN QUERY PLAN ${tenantQuery!}`)
        .all(0n, 100n, 'acme', 10)
        .map((row) => (row as { detail: string }).detail);
      expect(plan.join('\n')).toMatch(
        /USING INDEX events_by_tenant \(<expr>=\? AND global_position>\? AND global_position<\?\)/,
      );
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    });
  });

  describe('given events of about 2 kB and pages limited to 3 kB', () => {
    it('reads the log in pages that end at the first event reaching the limit', async () => {
      const store = openStore({ readPageBytes: 3_000 });
      const events = Array.from({ length: 9 }, (_, index) => ({
        id: `big-${index}`,
        type: 't',
        data: { text: String(index).padEnd(2_000, '.') },
      }));
      await store.appendToStream('session-big', events);
      const pages: RowPage[] = [];
      const read = LogRangeReader.prototype.read;
      jest.spyOn(LogRangeReader.prototype, 'read').mockImplementation(function (this: LogRangeReader, query) {
        const page = read.call(this, query);
        pages.push(page);
        return page;
      });
      const all = await collect(store.readAll());
      expect(all.map((event) => event.id)).toEqual(events.map((event) => event.id));
      expect(pages.map((page) => page.rows.length)).toEqual([2, 2, 2, 2, 1]);
      // the subscription takes the events this store wrote from memory, in the same pages
      const range = RecentAppends.prototype.range;
      jest.spyOn(RecentAppends.prototype, 'range').mockImplementation(function (
        this: RecentAppends,
        ...args
      ) {
        const page = range.apply(this, args);
        if (page !== undefined) pages.push(page);
        return page;
      });
      const reader = new SubscriptionReader(store.subscribe(), 5_000);
      try {
        expect((await reader.untilCaughtUp()).length).toBe(10);
      } finally {
        await reader.close();
      }
      expect(pages.slice(5).map((page) => page.rows.length)).toEqual([2, 2, 2, 2, 1]);
    });
  });
});
