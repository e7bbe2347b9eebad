import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealEventsOffLoop, streamHolds, verifyStream, verifyStreamIntegrity } from '@strata/integrity';
import { deepFreeze } from '../shared/json-values';
import { rememberEncoding } from '../shared/known-encodings';
import { SharedEventData } from './shared-event-data';
import { SqliteEventStore } from './sqlite-event-store';

describe('SharedEventData', () => {
  it('parses once for every reader of a position, and parses again for another event id there', () => {
    const shared = new SharedEventData({ maxChars: 1_000, maxEvents: 10 });
    let parses = 0;
    const parse = () => ({ parsed: (parses += 1) });
    const first = shared.dataOf(1n, 's', 'e1', 10, parse);
    expect(shared.dataOf(1n, 's', 'e1', 10, parse)).toBe(first);
    expect(parses).toBe(1);
    expect(shared.dataOf(1n, 's', 'other', 10, parse)).not.toBe(first);
    expect(parses).toBe(2);
  });

  it('keeps at most its bounds, the least recently read going first, and nothing too large', () => {
    const shared = new SharedEventData({ maxChars: 100, maxEvents: 3 });
    for (const position of [1n, 2n, 3n]) shared.dataOf(position, 's', `e${position}`, 10, () => ({}));
    shared.dataOf(1n, 's', 'e1', 10, () => ({})); // read again: now the most recent
    shared.dataOf(4n, 's', 'e4', 10, () => ({}));
    expect(shared.size).toEqual({ events: 3, chars: 30 });
    let parsed = 0;
    shared.dataOf(2n, 's', 'e2', 10, () => ({ again: (parsed += 1) }));
    expect(parsed).toBe(1); // position 2 had gone out
    shared.dataOf(9n, 's', 'e9', 26, () => ({})); // more than a quarter of the bound: not kept
    expect(shared.size.chars).toBeLessThanOrEqual(100);
    expect(shared.size.events).toBe(3);
  });

  it('forgets an erased stream', () => {
    const shared = new SharedEventData({ maxChars: 1_000, maxEvents: 10 });
    shared.dataOf(1n, 'a', 'e1', 10, () => ({}));
    shared.dataOf(2n, 'b', 'e2', 10, () => ({}));
    shared.forgetStream('a');
    expect(shared.size).toEqual({ events: 1, chars: 10 });
  });
});

async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('a SQLite store sharing parsed data between its readers', () => {
  let directory: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-shared-data-'));
    store = new SqliteEventStore({ filename: join(directory, 'store.db') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives the stream read and the log read the same frozen data, equal to what was written', async () => {
    const data = { entry: { id: 'x', text: 'hello'.repeat(100) } };
    await store.appendToStream('session-a', [{ id: 'event-a', type: 'EntryAppended', data }]);
    const [fromStream] = await collect(store.readStream('session-a'));
    const [fromLog] = await collect(store.readAll());
    expect(fromStream!.data).toEqual(data);
    expect(fromLog!.data).toBe(fromStream!.data);
    expect(Object.isFrozen(fromLog!.data)).toBe(true);
  });

  it('hands its readers the very value of an entry whose texts were remembered, and stores its text', async () => {
    const entry = deepFreeze({ id: 'big', message: { role: 'user', text: 'spliced "text"\n'.repeat(50) } });
    rememberEncoding(entry, { json: JSON.stringify(entry), canonicalUtf8: new Uint8Array() });
    const plain = { id: 'small', text: 'kept apart' };
    await store.appendToStream('session-s', [
      { id: 'event-spliced', type: 'EntryAppended', data: { entry, note: 'n' } },
      { id: 'event-plain', type: 'EntryAppended', data: { entry: plain } },
    ]);
    const [spliced, other] = await collect(store.readStream('session-s'));
    // no reader parses the spliced event's text: the value written is the one read
    expect((spliced!.data as { entry: unknown }).entry).toBe(entry);
    expect(Object.isFrozen(spliced!.data)).toBe(true);
    // a value not vouched for is parsed from its text as before
    expect((other!.data as { entry: unknown }).entry).not.toBe(plain);
    expect(other!.data).toEqual({ entry: plain });
    const raw = new Database(join(directory, 'store.db'), { readonly: true });
    const stored = raw.prepare("SELECT data FROM events WHERE event_id = 'event-spliced'").get() as {
      data: string;
    };
    raw.close();
    expect(stored.data).toBe(JSON.stringify({ entry, note: 'n' }));
  });

  it('lets verification see a row changed in the file after it was read and shared (it reads uncached)', async () => {
    const sealed = await sealEventsOffLoop(
      'session-c',
      [{ id: 'event-c', type: 'EntryAppended', data: { text: 'as written' } }],
      undefined,
    );
    await store.appendToStream('session-c', sealed);
    const [read] = await collect(store.readStream('session-c'));
    expect(read!.data).toEqual({ text: 'as written' });
    const raw = new Database(join(directory, 'store.db'));
    // the same length: only the content tells the rows apart
    raw.prepare(`UPDATE events SET data = '{"text":"AS WRITTEN"}' WHERE event_id = 'event-c'`).run();
    raw.close();

    expect(await verifyStream(store, 'session-c')).toMatchObject({
      ok: false,
      brokenAt: { eventId: 'event-c', reason: 'hash_mismatch' },
    });
    expect(streamHolds(await verifyStreamIntegrity(store, 'session-c'))).toBe(false);
  });

  it('keeps nothing of a stream once it is erased', async () => {
    await store.appendToStream('session-b', [{ id: 'event-b', type: 'EntryAppended', data: { secret: 1 } }]);
    const [read] = await collect(store.readStream('session-b'));
    expect(read!.data).toEqual({ secret: 1 });
    expect(store.sharedData.size.events).toBe(1);
    await store.eraseStream('session-b', { actor: 'test', reason: 'asked' });
    expect(store.sharedData.size.events).toBe(0);
  });
});
