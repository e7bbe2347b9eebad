// `trustWrittenHead`: a command whose cached fold ends with the store's own last write reads
// nothing before appending, and the append names that event (`expectedPosition`). These specs
// put two SQLite stores on one file, as two engines would be (each with its own memory of what
// it wrote and its own fold cache), and check that every way the other one can move the stream
// (append, erase, erase and write anew) is found at the append and decided on as a read would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealingAppender, verifyStream } from '@strata/integrity';
import { ConcurrencyError, StreamErasedError, type EventStore } from '../port';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import {
  parseShelfEvent,
  rawShelfAppend,
  shelfDecider,
  shelfOf,
  type ShelfCommand,
  type ShelfEvent,
  type ShelfState,
} from './cache-spec-support';
import type { Decider } from './decider';
import { FoldedStreamCache } from './folded-stream-cache';
import { handleCommand, type HandleCommandOptions } from './handle-command';

const STREAM = 'shelf-1';
const add = (item: string): ShelfCommand => ({ type: 'Add', item });

interface Engine {
  readonly store: SqliteEventStore;
  readonly cache: FoldedStreamCache<ShelfState>;
  /** Reads of the file the write side can make before an append. */
  readonly reads: () => number;
}

function engineOn(filename: string): Engine {
  const store = new SqliteEventStore({ filename });
  const spies = [
    jest.spyOn(store, 'readEventAt'),
    jest.spyOn(store, 'readRecentEvents'),
    jest.spyOn(store, 'readStream'),
  ];
  return {
    store,
    cache: new FoldedStreamCache<ShelfState>(),
    reads: () => spies.reduce((total, spy) => total + spy.mock.calls.length, 0),
  };
}

function trusting(
  engine: Engine,
  extra: Partial<HandleCommandOptions<ShelfEvent, ShelfState>> = {},
): HandleCommandOptions<ShelfEvent, ShelfState> {
  return {
    parseEvent: parseShelfEvent,
    appender: sealingAppender,
    cache: engine.cache,
    trustWrittenHead: true,
    // a pause would only slow the specs down; a conflict found by the trusted head takes none
    pauseBeforeRetry: () => Promise.reject(new Error('no pause expected')),
    ...extra,
  };
}

function handle(engine: Engine, command: ShelfCommand, decider = shelfDecider) {
  return handleCommand(engine.store as EventStore, STREAM, command, decider, trusting(engine));
}

/** The reads and appends `rawShelfAppend` uses, its appends writing to an erased stream anew. */
function reviving(store: EventStore): EventStore {
  const used: Pick<EventStore, 'readStream' | 'appendToStream'> = {
    readStream: (streamId, options) => store.readStream(streamId, options),
    appendToStream: (streamId, events, options) =>
      store.appendToStream(streamId, events, { ...options, reviveErased: true }),
  };
  return used as unknown as EventStore;
}

/** The shelf decider, except that `Take` needs the item on the shelf (an error on a stale state). */
const takingDecider: Decider<ShelfState, ShelfCommand | { type: 'Take'; item: string }, ShelfEvent> = {
  ...shelfDecider,
  decide: (command, state) => {
    if (command.type !== 'Take') return shelfDecider.decide(command, state);
    if (!state.items.includes(command.item)) throw new Error(`${command.item} is not on the shelf`);
    return shelfDecider.decide(add(`${command.item}-taken`), state);
  },
};

describe('handleCommand trusting the written head (two SQLite stores on one file)', () => {
  let directory: string;
  let one: Engine;
  let other: Engine;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-trusted-head-'));
    const filename = join(directory, 'events.db');
    one = engineOn(filename);
    other = engineOn(filename);
    for (const item of ['a', 'b', 'c']) await handle(one, add(item));
  });

  afterEach(async () => {
    await one.store.close();
    await other.store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads nothing of the file before appending after its own append, and keeps the chain whole', async () => {
    const before = one.reads();
    const handled = await handle(one, add('d'));
    expect(one.reads()).toBe(before);
    expect(handled.state.items).toEqual(['a', 'b', 'c', 'd']);
    expect(handled.attempts).toBe(1);
    expect(await shelfOf(one.store, STREAM)).toEqual({ items: ['a', 'b', 'c', 'd'] });
    expect(await verifyStream(one.store, STREAM)).toEqual(expect.objectContaining({ ok: true }));
  });

  it('finds an append of the other store at its own append, then reads and decides on it', async () => {
    await handle(other, add('x'));
    // the other's event is not in this store's memory: deciding on the remembered state alone
    // would add x a second time
    await expect(handle(one, add('x'))).rejects.toThrow('x is on the shelf');
    const handled = await handle(one, add('y'));
    expect(handled.state.items).toEqual(['a', 'b', 'c', 'x', 'y']);
    expect(await shelfOf(one.store, STREAM)).toEqual({ items: ['a', 'b', 'c', 'x', 'y'] });
    expect(await verifyStream(one.store, STREAM)).toEqual(expect.objectContaining({ ok: true }));
  });

  it('decides again on the stream read when the remembered state refused the command', async () => {
    await handle(other, add('z'));
    const handled = await handleCommand(
      one.store as EventStore,
      STREAM,
      { type: 'Take', item: 'z' },
      takingDecider,
      trusting(one),
    );
    expect(handled.state.items).toEqual(['a', 'b', 'c', 'z', 'z-taken']);
    expect(handled.attempts).toBe(1);
  });

  it('answers a command that decides nothing from the stream as it is', async () => {
    await handle(other, add('x'));
    const handled = await handle(one, { type: 'Nothing' });
    expect(handled.revision).toBe(3n);
    expect(handled.state.items).toEqual(['a', 'b', 'c', 'x']);
  });

  it('refuses the write to a stream the other store erased, as a read would have', async () => {
    await other.store.eraseStream(STREAM, { actor: 'auditor', reason: 'request' });
    await expect(handle(one, add('after'))).rejects.toBeInstanceOf(StreamErasedError);
    expect(await shelfOf(one.store, STREAM)).toEqual({ items: [] });
  });

  it('folds a stream the other store erased and wrote anew to the same revision from its start', async () => {
    await other.store.eraseStream(STREAM, { actor: 'auditor', reason: 'request' });
    for (const item of ['p', 'q', 'r']) {
      await rawShelfAppend(reviving(other.store), STREAM, item);
    }
    const handled = await handle(one, add('s'));
    expect(handled.state.items).toEqual(['p', 'q', 'r', 's']);
    expect(handled.revision).toBe(3n);
    expect(await verifyStream(one.store, STREAM)).toEqual(expect.objectContaining({ ok: true }));
  });
});

describe('SqliteEventStore appends naming an expected position', () => {
  let directory: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-expected-position-'));
    store = new SqliteEventStore({ filename: join(directory, 'events.db') });
  });

  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const event = (id: string) => ({ id, type: 'noted', data: { id } });

  it('appends when the stream ends with the event at that position, and refuses it otherwise', async () => {
    const first = await store.appendToStream('s', [event('e1'), event('e2')]);
    const second = await store.appendToStream('s', [event('e3')], {
      expectedRevision: 1n,
      expectedPosition: first.position,
    });
    expect(second.nextExpectedRevision).toBe(2n);
    await expect(
      store.appendToStream('s', [event('e4')], { expectedRevision: 2n, expectedPosition: first.position }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    await expect(
      store.appendToStream('s', [event('e4')], { expectedRevision: 1n, expectedPosition: first.position }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await store.streamRevision('s')).toBe(2n);
  });

  it('refuses it as a conflict, not as an erasure, on an erased stream', async () => {
    const written = await store.appendToStream('s', [event('e1')]);
    await store.eraseStream('s', { actor: 'auditor', reason: 'request' });
    await expect(
      store.appendToStream('s', [event('e2')], { expectedRevision: 0n, expectedPosition: written.position }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
  });

  it('reads an event with the revision its stream ends at, and nothing of an erased one', async () => {
    await store.appendToStream('s', [event('e1'), event('e2')]);
    const read = await store.readEventAndEnd('s', 0n);
    expect(read.event).toEqual(expect.objectContaining({ id: 'e1', revision: 0n }));
    expect(read.lastRevision).toBe(1n);
    expect((await store.readEventAndEnd('s', 1n)).lastRevision).toBe(1n);
    expect(await store.readEventAndEnd('s', 2n)).toEqual({ event: undefined, lastRevision: undefined });
    await store.eraseStream('s', { actor: 'auditor', reason: 'request' });
    expect(await store.readEventAndEnd('s', 1n)).toEqual({ event: undefined, lastRevision: undefined });
  });

  it('remembers the head it wrote last, and no other', async () => {
    const written = await store.appendToStream('s', [event('e1'), event('e2')]);
    const head = store.writtenHeadAt('s', { revision: 1n, id: 'e2', position: written.position });
    expect(head).toEqual(expect.objectContaining({ id: 'e2', revision: 1n, type: 'noted' }));
    expect(head?.data).toEqual({ id: 'e2' });
    expect(
      store.writtenHeadAt('s', { revision: 0n, id: 'e1', position: written.position - 1n }),
    ).toBeUndefined();
    expect(store.writtenHeadAt('t', { revision: 1n, id: 'e2', position: written.position })).toBeUndefined();
  });
});
