// The cached fold against a store that reads single events lazily (SQLite): the event a fold
// ended with is checked without reading its data, the stream is read from the next revision,
// and the outcomes are those of the port's plain reads.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealEventsOffLoop, sealingAppender, verifyStream } from '@strata/integrity';
import type { EventStore, LazyEventReads, ReadStreamOptions, RecordedEvent } from '../port';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import {
  parseShelfEvent,
  rawShelfAppend,
  shelfDecider,
  type ShelfCommand,
  type ShelfState,
} from './cache-spec-support';
import { derivedEventId } from './derived-event-id';
import { FoldedStreamCache } from './folded-stream-cache';
import { handleCommand } from './handle-command';

const STREAM = 'shelf-lazy';
const add = (item: string): ShelfCommand => ({ type: 'Add', item });

/** A SQLite store that notes every stream read and every event data read. */
function observed(inner: SqliteEventStore): {
  readonly store: EventStore & LazyEventReads;
  readonly streamReadsFrom: ReadStreamOptions['fromRevision'][];
  readonly dataRead: string[];
} {
  const streamReadsFrom: ReadStreamOptions['fromRevision'][] = [];
  const dataRead: string[] = [];
  const watch = (event: RecordedEvent): RecordedEvent => {
    const copy = {
      streamId: event.streamId,
      id: event.id,
      type: event.type,
      metadata: event.metadata,
      revision: event.revision,
      position: event.position,
      createdAt: event.createdAt,
    };
    Object.defineProperty(copy, 'data', {
      enumerable: true,
      get: () => {
        dataRead.push(event.id);
        return event.data;
      },
    });
    return Object.freeze(copy) as RecordedEvent;
  };
  async function* reading(streamId: string, options?: ReadStreamOptions): AsyncGenerator<RecordedEvent> {
    streamReadsFrom.push(options?.fromRevision);
    for await (const event of inner.readStream(streamId, options)) yield watch(event);
  }
  async function* readingRecent(streamId: string, fromRevision: bigint): AsyncGenerator<RecordedEvent> {
    streamReadsFrom.push(fromRevision);
    for await (const event of inner.readRecentEvents(streamId, fromRevision)) yield watch(event);
  }
  const store: EventStore & LazyEventReads = {
    appendToStream: (...args) => inner.appendToStream(...args),
    readStream: (streamId, options) => reading(streamId, options),
    readAll: (...args) => inner.readAll(...args),
    subscribe: (...args) => inner.subscribe(...args),
    streamRevision: (...args) => inner.streamRevision(...args),
    getStreamMetadata: (...args) => inner.getStreamMetadata(...args),
    setStreamMetadata: (...args) => inner.setStreamMetadata(...args),
    eraseStream: (...args) => inner.eraseStream(...args),
    listErasures: (...args) => inner.listErasures(...args),
    close: () => inner.close(),
    readRecentEvents: (streamId, fromRevision) => readingRecent(streamId, fromRevision),
    readEventAt: async (streamId, revision) => {
      const event = await inner.readEventAt(streamId, revision);
      return event === undefined ? undefined : watch(event);
    },
  };
  return { store, streamReadsFrom, dataRead };
}

describe('a cached fold on a store that reads single events lazily', () => {
  let directory: string;
  let sqlite: SqliteEventStore;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-fold-lazy-'));
    sqlite = new SqliteEventStore({ filename: join(directory, 'events.db') });
  });

  afterEach(async () => {
    await sqlite.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('checks the event the fold ended with without reading its data, and reads on from the next revision', async () => {
    const { store, streamReadsFrom, dataRead } = observed(sqlite);
    const cache = new FoldedStreamCache<ShelfState>();
    const options = { parseEvent: parseShelfEvent, appender: sealingAppender, cache };
    const first = await handleCommand(store, STREAM, add('a'), shelfDecider, options);
    streamReadsFrom.length = 0;
    dataRead.length = 0;

    const second = await handleCommand(store, STREAM, add('b'), shelfDecider, options);

    expect(second.state.items).toEqual(['a', 'b']);
    expect(streamReadsFrom).toEqual([1n]);
    expect(dataRead).toEqual([]);
    expect(first.eventIds).toHaveLength(1);
    expect(await verifyStream(sqlite, STREAM)).toEqual(expect.objectContaining({ ok: true }));
  });

  it('folds what another writer appended since, and decides on it', async () => {
    const { store } = observed(sqlite);
    const cache = new FoldedStreamCache<ShelfState>();
    const options = { parseEvent: parseShelfEvent, appender: sealingAppender, cache };
    await handleCommand(store, STREAM, add('a'), shelfDecider, options);
    await rawShelfAppend(sqlite, STREAM, 'other');

    const handled = await handleCommand(store, STREAM, add('c'), shelfDecider, options);

    expect(handled.state.items).toEqual(['a', 'other', 'c']);
    expect(handled.revision).toBe(2n);
    expect(await verifyStream(sqlite, STREAM)).toEqual(expect.objectContaining({ ok: true }));
  });

  it('folds from the start when the stream no longer holds the event the fold ended with', async () => {
    const { store, streamReadsFrom } = observed(sqlite);
    const cache = new FoldedStreamCache<ShelfState>();
    const options = { parseEvent: parseShelfEvent, appender: sealingAppender, cache };
    await handleCommand(store, STREAM, add('a'), shelfDecider, options);
    await sqlite.eraseStream(STREAM, { actor: 'dpo', reason: 'test' });
    // written anew up to the same revision (an import allowed over the erasure)
    const anew = await sealEventsOffLoop(
      STREAM,
      [{ id: derivedEventId('anew', 0), type: 'ItemAdded', data: { item: 'anew', position: 0 } }],
      undefined,
    );
    await sqlite.appendToStream(STREAM, anew, { expectedRevision: 'no_stream', reviveErased: true });
    streamReadsFrom.length = 0;

    const handled = await handleCommand(store, STREAM, add('b'), shelfDecider, options);

    expect(handled.state.items).toEqual(['anew', 'b']);
    expect(streamReadsFrom).toEqual([undefined]);
    expect(await verifyStream(sqlite, STREAM)).toEqual(expect.objectContaining({ ok: true }));
  });
});

describe('SqliteEventStore.readEventAt', () => {
  let directory: string;
  let sqlite: SqliteEventStore;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-read-at-'));
    sqlite = new SqliteEventStore({ filename: join(directory, 'events.db') });
  });

  afterEach(async () => {
    await sqlite.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives the event as a stream read does, its data read when used; nothing at a revision not written', async () => {
    const other = new SqliteEventStore({ filename: join(directory, 'events.db') });
    try {
      await sqlite.appendToStream('s', [
        {
          id: '00000000-0000-7000-8000-000000000001',
          type: 'T',
          data: { text: 'x'.repeat(100_000) },
          metadata: { m: 1 },
        },
        { id: '00000000-0000-7000-8000-000000000002', type: 'T', data: { n: 2 }, metadata: { m: 2 } },
      ]);
      const read: RecordedEvent[] = [];
      for await (const event of sqlite.readStream('s')) read.push(event);
      const plain = (event: RecordedEvent | undefined) =>
        event === undefined
          ? undefined
          : { ...event, data: event.data, metadata: event.metadata, createdAt: event.createdAt };

      // the last event as the store that wrote it remembers it, the first as the file holds it,
      // and both as another store on the file reads them
      for (const store of [sqlite, other]) {
        expect(plain(await store.readEventAt('s', 0n))).toEqual(plain(read[0]));
        expect(plain(await store.readEventAt('s', 1n))).toEqual(plain(read[1]));
        expect(await store.readEventAt('s', 2n)).toBeUndefined();
        expect(await store.readEventAt('missing', 0n)).toBeUndefined();
      }
    } finally {
      await other.close();
    }
  });

  it('takes the metadata of the last event it wrote from memory, not from the overflow pages of its data', async () => {
    await sqlite.appendToStream('s', [
      {
        id: '00000000-0000-7000-8000-000000000004',
        type: 'T',
        data: { text: 'y'.repeat(100_000) },
        metadata: { m: 'written' },
      },
    ]);
    const raw = new Database(join(directory, 'events.db'));
    raw.prepare(`UPDATE events SET metadata = '{"m":"changed in the file"}'`).run();
    raw.close();
    const other = new SqliteEventStore({ filename: join(directory, 'events.db') });
    try {
      expect((await sqlite.readEventAt('s', 0n))?.metadata).toEqual({ m: 'written' });
      expect((await other.readEventAt('s', 0n))?.metadata).toEqual({ m: 'changed in the file' });
    } finally {
      await other.close();
    }
  });

  it('says plainly that the event is gone when the stream was erased before its data or metadata was used', async () => {
    await sqlite.appendToStream('s', [
      { id: '00000000-0000-7000-8000-000000000003', type: 'T', data: { n: 1 } },
    ]);
    await sqlite.appendToStream('s', [
      { id: '00000000-0000-7000-8000-000000000005', type: 'T', data: { n: 2 } },
    ]);
    const first = await sqlite.readEventAt('s', 0n);
    const last = await sqlite.readEventAt('s', 1n);
    await sqlite.eraseStream('s', { actor: 'dpo', reason: 'test' });

    expect(() => first!.data).toThrow(/no longer stored/);
    expect(() => first!.metadata).toThrow(/no longer stored/);
    expect(() => last!.metadata).toThrow(/no longer stored/);
    expect(await sqlite.readEventAt('s', 0n)).toBeUndefined();
  });
});
