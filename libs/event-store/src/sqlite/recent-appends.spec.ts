import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventFilter, RecordedEvent } from '../port';
import { RecentAppends } from './recent-appends';
import type { EventRow } from './sqlite-event-rows';
import { SqliteEventStore } from './sqlite-event-store';

function row(position: bigint, stream = 's', type = 'T', tenant = 'acme'): EventRow {
  return {
    global_position: position,
    stream_id: stream,
    stream_revision: position,
    event_id: `e${position}`,
    type,
    data: '{"n":1}',
    metadata: JSON.stringify({ tenant }),
    created_at: '2026-12-06T00:00:00.000Z',
  };
}

const limits = { maxCount: 100, maxBytes: 1_000_000 };

describe('RecentAppends', () => {
  it('serves the run of positions it wrote at the start of a range, and nothing when it did not write the first', () => {
    const recent = new RecentAppends({ maxChars: 10_000, maxEvents: 100 });
    recent.add([row(1n), row(2n)]);
    recent.add([row(4n)]);
    expect(recent.range(null, 2n, limits, undefined)?.rows.map((r) => r.global_position)).toEqual([1n, 2n]);
    // 3 was written by someone else: the run before it, then the file from there
    expect(recent.range(0n, 4n, limits, undefined)).toEqual({ rows: [row(1n), row(2n)], exhausted: false });
    expect(recent.range(2n, 4n, limits, undefined)).toBeUndefined();
    expect(recent.range(3n, 4n, limits, undefined)?.rows).toHaveLength(1);
    expect(recent.range(4n, 4n, limits, undefined)).toEqual({ rows: [], exhausted: true });
  });

  it('filters and pages as the file read does', () => {
    const recent = new RecentAppends({ maxChars: 10_000, maxEvents: 100 });
    recent.add([row(1n, 'session-a', 'EntryAppended', 'acme'), row(2n, 'other', 'EntryAppended', 'acme')]);
    recent.add([row(3n, 'session-b', 'Labelled', 'globex'), row(4n, 'session-b', 'EntryAppended', 'globex')]);
    const positions = (filter: EventFilter, pageLimits = limits) =>
      recent.range(null, 4n, pageLimits, filter)?.rows.map((r) => r.global_position);
    expect(positions({ streamPrefixes: ['session-'] })).toEqual([1n, 3n, 4n]);
    expect(positions({ eventTypes: ['Entry*'] })).toEqual([1n, 2n, 4n]);
    expect(positions({ tenant: 'globex' })).toEqual([3n, 4n]);
    // a run with nothing for the filter before a gap: the file is read (never an empty page to ask again for)
    expect(recent.range(null, 9n, limits, { tenant: 'nobody' })).toBeUndefined();
    expect(recent.range(null, 4n, limits, { tenant: 'nobody' })).toEqual({ rows: [], exhausted: true });
    const page = recent.range(null, 4n, { maxCount: 2, maxBytes: 1_000_000 }, undefined);
    expect(page).toEqual({ rows: [expect.anything(), expect.anything()], exhausted: false });
  });

  it('keeps at most its bounds, the oldest going first, a batch over the bound alone not at all', () => {
    const recent = new RecentAppends({ maxChars: 10_000, maxEvents: 3 });
    recent.add([row(1n), row(2n)]);
    recent.add([row(3n), row(4n)]);
    expect(recent.size.events).toBe(3);
    expect(recent.range(null, 1n, limits, undefined)).toBeUndefined();
    recent.add([row(5n), row(6n), row(7n), row(8n)]);
    expect(recent.size.events).toBe(3);
    expect(recent.range(3n, 4n, limits, undefined)?.rows).toHaveLength(1);
  });

  it('forgets an erased stream', () => {
    const recent = new RecentAppends({ maxChars: 10_000, maxEvents: 100 });
    recent.add([row(1n, 'a'), row(2n, 'b')]);
    recent.forgetStream('a');
    expect(recent.size.events).toBe(1);
    expect(recent.range(null, 2n, limits, undefined)).toBeUndefined();
    expect(recent.range(1n, 2n, limits, undefined)?.rows).toEqual([row(2n, 'b')]);
  });
});

/** A live subscription, caught up with the empty store; `take` gives its next `count` events. */
async function liveSubscription(
  store: SqliteEventStore,
  filter?: EventFilter,
): Promise<{ take(count: number): Promise<RecordedEvent[]> }> {
  const subscription = store.subscribe({ fromPosition: 'start', ...(filter ? { filter } : {}) });
  const iterator = subscription[Symbol.asyncIterator]();
  expect((await iterator.next()).value).toEqual({ kind: 'caught_up', position: null });
  return {
    take: async (count) => {
      const events: RecordedEvent[] = [];
      while (events.length < count) {
        const next = await iterator.next();
        if (next.done === true) break;
        if (next.value.kind === 'event') events.push(next.value.event);
      }
      await subscription.close();
      return events;
    },
  };
}

/** A subscription from the start of the log; `take` gives its first `count` events. */
function subscriptionFromStart(store: SqliteEventStore): { take(count: number): Promise<RecordedEvent[]> } {
  const subscription = store.subscribe({ fromPosition: 'start' });
  return {
    take: async (count) => {
      const events: RecordedEvent[] = [];
      for await (const message of subscription) {
        if (message.kind === 'event') events.push(message.event);
        if (events.length >= count) break;
      }
      await subscription.close();
      return events;
    },
  };
}

const plain = (event: RecordedEvent) => ({ ...event, data: event.data });

describe('a SQLite store serving its own appends to its subscriptions', () => {
  let directory: string;
  let file: string;
  let store: SqliteEventStore;
  let other: SqliteEventStore;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-recent-'));
    file = join(directory, 'store.db');
    store = new SqliteEventStore({ filename: file });
    other = new SqliteEventStore({ filename: file });
  });
  afterEach(async () => {
    await store.close();
    await other.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives the events a read of the file gives, for every filter, with another writer between', async () => {
    const everything = await liveSubscription(store);
    const acme = await liveSubscription(store, { tenant: 'acme' });
    const eventsOf = (stream: string, count: number, tenant: string, type = 'EntryAppended') =>
      Array.from({ length: count }, (_, index) => ({
        id: `${stream}-${type}-${index}-${tenant}`,
        type,
        data: { text: `${stream} ${index}`, nested: { é: [1, 2.5, null, 'x'] } },
        metadata: { tenant },
      }));
    await store.appendToStream('session-a', eventsOf('session-a', 3, 'acme'));
    await other.appendToStream('session-b', eventsOf('session-b', 2, 'globex'));
    await store.appendToStream('session-a', eventsOf('session-a', 1, 'acme', 'Labelled'));
    await store.appendToStream('session-c', eventsOf('session-c', 2, 'globex'));
    // a repeated append writes nothing and is not served as new
    await store.appendToStream('session-c', eventsOf('session-c', 2, 'globex'));

    const fromStore = await everything.take(8);
    const fromTenant = await acme.take(4);
    const fromFile: RecordedEvent[] = [];
    for await (const event of other.readAll()) fromFile.push(event);

    expect(store.recentAppends.size.events).toBe(6);
    expect(fromStore.map(plain)).toEqual(fromFile.map(plain));
    expect(fromTenant.map(plain)).toEqual(
      fromFile.filter((event) => event.metadata['tenant'] === 'acme').map(plain),
    );
  });

  it('serves what it wrote from memory: a row changed in the file afterwards is read only by other stores', async () => {
    await store.appendToStream('s', [{ id: 'only', type: 'T', data: { text: 'as written' } }]);
    const raw = new Database(file);
    raw.prepare(`UPDATE events SET data = '{"text":"changed in the file"}' WHERE event_id = 'only'`).run();
    raw.close();

    const [served] = await subscriptionFromStart(store).take(1);
    const [read] = await subscriptionFromStart(other).take(1);

    expect(served).toMatchObject({ id: 'only', position: 1n, revision: 0n, data: { text: 'as written' } });
    expect(read!.data).toEqual({ text: 'changed in the file' });
  });

  it('folds recent events from memory when it wrote every revision asked for, else reads the file', async () => {
    const events = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        id: `s-${from + index}`,
        type: 'T',
        data: { n: from + index },
      }));
    await store.appendToStream('s', events(0, 3));
    await other.appendToStream('s', events(3, 1));
    await store.appendToStream('s', events(4, 2));
    const raw = new Database(file);
    raw.prepare(`UPDATE events SET data = '{"changed":true}'`).run();
    raw.close();
    const read = async (from: SqliteEventStore, options: { fromRevision: bigint; maxCount?: number }) => {
      const found: unknown[] = [];
      const events =
        options.maxCount === undefined
          ? from.readRecentEvents('s', options.fromRevision)
          : from.readStream('s', options);
      for await (const event of events) found.push(event.data);
      return found;
    };

    // revisions 4 and 5 were written by this store: taken from memory, as written
    expect(await read(store, { fromRevision: 4n })).toEqual([{ n: 4 }, { n: 5 }]);
    // a plain stream read (verification) always reads the file
    expect(await read(store, { fromRevision: 4n, maxCount: 2 })).toEqual([
      { changed: true },
      { changed: true },
    ]);
    expect(await read(store, { fromRevision: 6n })).toEqual([]);
    // revision 3 was written by the other store: the whole read comes from the file
    expect(await read(store, { fromRevision: 3n })).toEqual(
      Array.from({ length: 3 }, () => ({ changed: true })),
    );
    expect(await read(other, { fromRevision: 4n })).toEqual([{ changed: true }, { changed: true }]);
  });

  it('forgets an erased stream', async () => {
    await store.appendToStream('s', [{ id: 'gone', type: 'T', data: { secret: 1 } }]);
    expect(store.recentAppends.size.events).toBe(1);
    await store.eraseStream('s', { actor: 'test', reason: 'asked' });
    expect(store.recentAppends.size.events).toBe(0);
  });
});
