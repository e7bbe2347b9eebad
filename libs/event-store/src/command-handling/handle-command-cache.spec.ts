import { sealingAppender, verifyStream } from '@strata/integrity';
import { InMemoryEventStore } from '../memory/in-memory-event-store';
import { StreamErasedError, type EventStore } from '../port';
import {
  countingReads,
  parseShelfEvent,
  rawShelfAppend,
  rivalBeforeNextAppend,
  shelfDecider,
  shelfOf,
  swappableStore,
  type ShelfCommand,
  type ShelfEvent,
  type ShelfState,
} from './cache-spec-support';
import { derivedEventId } from './derived-event-id';
import { FoldedStreamCache } from './folded-stream-cache';
import type { Decider } from './decider';
import { handleCommand, plainAppender, type HandleCommandOptions } from './handle-command';

const STREAM = 'shelf-1';
const add = (item: string): ShelfCommand => ({ type: 'Add', item });

function cachedOptions(
  cache: FoldedStreamCache<ShelfState>,
  extra: Partial<HandleCommandOptions<ShelfEvent, ShelfState>> = {},
): HandleCommandOptions<ShelfEvent, ShelfState> {
  return { parseEvent: parseShelfEvent, appender: sealingAppender, cache, ...extra };
}

async function addAll(
  store: EventStore,
  cache: FoldedStreamCache<ShelfState>,
  items: readonly string[],
): Promise<void> {
  for (const item of items) await handleCommand(store, STREAM, add(item), shelfDecider, cachedOptions(cache));
}

const items = (count: number, prefix = 'item'): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

describe('handleCommand with a folded-stream cache', () => {
  describe('given a stream the cache has folded', () => {
    it('reads only the event the fold ended with when nothing else was written', async () => {
      const counting = countingReads(new InMemoryEventStore());
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(counting.store, cache, items(20));
      const before = counting.eventsRead();
      const handled = await handleCommand(
        counting.store,
        STREAM,
        add('last'),
        shelfDecider,
        cachedOptions(cache),
      );
      expect(counting.eventsRead() - before).toBe(1);
      expect(handled.state.items).toEqual([...items(20), 'last']);
      expect(handled.revision).toBe(20n);
    });

    it('reads the events other writers appended since, and decides on them', async () => {
      const inner = new InMemoryEventStore();
      const counting = countingReads(inner);
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(counting.store, cache, items(10));
      for (const item of ['x', 'y', 'z']) await rawShelfAppend(inner, STREAM, item);
      const before = counting.eventsRead();
      const handled = await handleCommand(
        counting.store,
        STREAM,
        add('last'),
        shelfDecider,
        cachedOptions(cache),
      );
      expect(counting.eventsRead() - before).toBe(4);
      expect(handled.state.items).toEqual([...items(10), 'x', 'y', 'z', 'last']);
      await expect(
        handleCommand(counting.store, STREAM, add('y'), shelfDecider, cachedOptions(cache)),
      ).rejects.toThrow('y is on the shelf');
    });

    it('reads the whole stream every time without a cache (the behaviour it replaces)', async () => {
      const counting = countingReads(new InMemoryEventStore());
      for (const item of items(20)) {
        await handleCommand(counting.store, STREAM, add(item), shelfDecider, {
          parseEvent: parseShelfEvent,
          appender: sealingAppender,
        });
      }
      expect(counting.eventsRead()).toBe((19 * 20) / 2);
    });

    it('re-reads the newer events after losing a race, and keeps the hash chain whole', async () => {
      const inner = new InMemoryEventStore();
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(inner, cache, items(3));
      const rival = rivalBeforeNextAppend(inner, STREAM, () => 'rival');
      rival.arm();
      const handled = await handleCommand(
        rival.store,
        STREAM,
        add('mine'),
        shelfDecider,
        cachedOptions(cache),
      );
      expect(handled.attempts).toBe(2);
      expect(handled.state.items).toEqual([...items(3), 'rival', 'mine']);
      expect(await shelfOf(inner, STREAM)).toEqual(handled.state);
      expect(await verifyStream(inner, STREAM)).toEqual(expect.objectContaining({ ok: true, events: 5 }));
    });

    it('keeps nothing of an append that failed: the next command decides on the stored events', async () => {
      const store = new InMemoryEventStore();
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(store, cache, items(2));
      const failing = handleCommand(
        store,
        STREAM,
        add('lost'),
        shelfDecider,
        cachedOptions(cache, {
          appender: () => Promise.reject(new Error('disk full')),
        }),
      );
      await expect(failing).rejects.toThrow('disk full');
      const handled = await handleCommand(store, STREAM, add('lost'), shelfDecider, cachedOptions(cache));
      expect(handled.state.items).toEqual([...items(2), 'lost']);
      expect(handled.revision).toBe(2n);
    });
  });

  describe('given a seeded command handled before the cached fold', () => {
    it('finds its events although they are older than the fold, and writes nothing', async () => {
      const store = new InMemoryEventStore();
      const cache = new FoldedStreamCache<ShelfState>();
      const seeded = cachedOptions(cache, { idSeed: 'command-1' });
      await handleCommand(store, STREAM, add('first'), shelfDecider, seeded);
      await addAll(store, cache, items(5));
      const again = await handleCommand(store, STREAM, add('first'), shelfDecider, seeded);
      expect(again).toMatchObject({ alreadyHandled: true, events: [], revision: 5n });
      expect(again.earlier).toEqual({ idSeed: 'command-1', revision: 0n, requestDigest: undefined });
      expect(again.state.items).toEqual(['first', ...items(5)]);
      expect((await shelfOf(store, STREAM)).items).toHaveLength(6);
    });

    it('finds it when another writer appended it behind the cache', async () => {
      const store = new InMemoryEventStore();
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(store, cache, items(3));
      await handleCommand(store, STREAM, add('theirs'), shelfDecider, {
        parseEvent: parseShelfEvent,
        appender: sealingAppender,
        idSeed: 'command-2',
      });
      await rawShelfAppend(store, STREAM, 'later');
      await addAll(store, cache, ['mine']);
      const again = await handleCommand(
        store,
        STREAM,
        add('theirs'),
        shelfDecider,
        cachedOptions(cache, { idSeed: 'command-2' }),
      );
      expect(again).toMatchObject({ alreadyHandled: true, revision: 5n, earlier: { revision: 3n } });
    });

    it('finds it when another writer appended it after the cached fold, as a full read would', async () => {
      const store = new InMemoryEventStore();
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(store, cache, items(2));
      await rawShelfAppend(store, STREAM, 'raw', derivedEventId('command-3', 0));
      const handled = await handleCommand(
        store,
        STREAM,
        add('other'),
        shelfDecider,
        cachedOptions(cache, { idSeed: 'command-3' }),
      );
      expect(handled).toMatchObject({ alreadyHandled: true, revision: 2n, earlier: { revision: 2n } });
      expect(handled.state.items).toEqual([...items(2), 'raw']);
    });
  });

  describe('given a seeded command with a request digest', () => {
    it('reports the digest its first handling recorded, found through the cached fold', async () => {
      const store = new InMemoryEventStore();
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(store, cache, items(2));
      const seeded = (requestDigest: string) => cachedOptions(cache, { idSeed: 'command-4', requestDigest });
      await handleCommand(store, STREAM, add('first'), shelfDecider, seeded('digest-a'));
      await addAll(store, cache, items(3, 'later'));
      const again = await handleCommand(store, STREAM, add('second'), shelfDecider, seeded('digest-b'));
      expect(again.earlier).toEqual({ idSeed: 'command-4', revision: 2n, requestDigest: 'digest-a' });
      expect((await shelfOf(store, STREAM)).items).toEqual([...items(2), 'first', ...items(3, 'later')]);
    });
  });

  describe('given a cached stream that was erased', () => {
    it('drops the fold and refuses the write as it would without a cache', async () => {
      const store = new InMemoryEventStore();
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(store, cache, items(3));
      expect(cache.size).toBe(1);
      await store.eraseStream(STREAM, { actor: 'auditor', reason: 'request' });
      await expect(
        handleCommand(store, STREAM, add('after'), shelfDecider, cachedOptions(cache)),
      ).rejects.toBeInstanceOf(StreamErasedError);
      expect(cache.size).toBe(0);
    });
  });

  describe('given a cached stream written anew behind the handler (the store replaced)', () => {
    it.each([
      ['shorter', 2],
      ['as long', 5],
      ['longer', 8],
    ])('folds the new stream from its start when it is %s', async (_label, length) => {
      const swappable = swappableStore(new InMemoryEventStore());
      const cache = new FoldedStreamCache<ShelfState>();
      await addAll(swappable.store, cache, items(5, 'old'));
      const replacement = new InMemoryEventStore();
      for (const item of items(length, 'new')) await rawShelfAppend(replacement, STREAM, item);
      swappable.swap(replacement);
      const handled = await handleCommand(
        swappable.store,
        STREAM,
        add('next'),
        shelfDecider,
        cachedOptions(cache),
      );
      expect(handled.state.items).toEqual([...items(length, 'new'), 'next']);
      expect(handled.revision).toBe(BigInt(length));
      expect(await verifyStream(replacement, STREAM)).toEqual(expect.objectContaining({ ok: true }));
    });

    it('notices a new event with the same id at the same revision by its position or hash', async () => {
      const swappable = swappableStore(new InMemoryEventStore());
      const cache = new FoldedStreamCache<ShelfState>();
      await rawShelfAppend(swappable.store, STREAM, 'old', derivedEventId('same', 0));
      await handleCommand(swappable.store, STREAM, { type: 'Nothing' }, shelfDecider, cachedOptions(cache));
      const replacement = new InMemoryEventStore();
      await rawShelfAppend(replacement, STREAM, 'new', derivedEventId('same', 0));
      swappable.swap(replacement);
      const handled = await handleCommand(
        swappable.store,
        STREAM,
        { type: 'Nothing' },
        shelfDecider,
        cachedOptions(cache),
      );
      expect(handled.state.items).toEqual(['new']);
    });
  });

  describe('given two deciders sharing one cache on one stream', () => {
    const countDecider: Decider<number, ShelfCommand, ShelfEvent> = {
      initialState: () => 0,
      evolve: (count) => count + 1,
      decide: () => [],
    };

    it('never hands one decider the state of the other', async () => {
      const store = new InMemoryEventStore();
      const shared = new FoldedStreamCache<never>();
      await addAll(store, shared, items(3));
      const counted = await handleCommand(store, STREAM, { type: 'Nothing' }, countDecider, {
        parseEvent: parseShelfEvent,
        appender: sealingAppender,
        cache: shared,
      });
      expect(counted.state).toBe(3);
      const listed = await handleCommand(store, STREAM, add('more'), shelfDecider, {
        parseEvent: parseShelfEvent,
        appender: sealingAppender,
        cache: shared,
      });
      expect(listed.state.items).toEqual([...items(3), 'more']);
    });
  });

  describe('given more streams than the cache keeps', () => {
    it('folds the least recently used stream from its start again', async () => {
      const counting = countingReads(new InMemoryEventStore());
      const cache = new FoldedStreamCache<ShelfState>({ maxStreams: 2 });
      const options = cachedOptions(cache, { appender: plainAppender });
      for (const stream of ['a', 'b', 'c']) {
        for (const item of items(4))
          await handleCommand(counting.store, stream, add(item), shelfDecider, options);
      }
      expect(cache.size).toBe(2);
      const before = counting.eventsRead();
      await handleCommand(counting.store, 'c', add('more'), shelfDecider, options);
      expect(counting.eventsRead() - before).toBe(1);
      await handleCommand(counting.store, 'a', add('more'), shelfDecider, options);
      expect(counting.eventsRead() - before).toBe(1 + 4);
    });
  });
});
