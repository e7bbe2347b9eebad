import { sealingAppender, verifyStream } from '@strata/integrity';
import { InMemoryEventStore } from '../memory/in-memory-event-store';
import { ConcurrencyError, DuplicateEventIdError, type EventStore, type RecordedEvent } from '../port';
import { appendSealed, parseShelfEvent, shelfDecider, shelfOf } from './cache-spec-support';
import { derivedEventId } from './derived-event-id';
import type { Decider } from './decider';
import { handleCommand, type HandleCommandOptions } from './handle-command';

// A small list domain: items are added at the next position, never twice.
type ListCommand = { readonly type: 'AddItem'; readonly data: { readonly item: string } };
type ListEvent = {
  readonly type: 'ItemAdded';
  readonly data: { readonly item: string; readonly position: number };
};
type ListState = { readonly items: readonly string[] };

const listDecider: Decider<ListState, ListCommand, ListEvent> = {
  initialState: () => ({ items: [] }),
  evolve: (state, event) => ({ items: [...state.items, event.data.item] }),
  decide: (command, state) => {
    if (state.items.includes(command.data.item)) throw new Error(`${command.data.item} is already listed`);
    return [{ type: 'ItemAdded', data: { item: command.data.item, position: state.items.length } }];
  },
};

function parseListEvent(event: RecordedEvent): ListEvent {
  const data = event.data as { item?: unknown; position?: unknown };
  if (event.type !== 'ItemAdded' || typeof data.item !== 'string' || typeof data.position !== 'number') {
    throw new Error(`not a list event: ${event.type}`);
  }
  return { type: 'ItemAdded', data: { item: data.item, position: data.position } };
}

const options: HandleCommandOptions<ListEvent> = { parseEvent: parseListEvent, appender: sealingAppender };
const add = (item: string): ListCommand => ({ type: 'AddItem', data: { item } });

async function readAllOf(store: EventStore, streamId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(streamId)) events.push(event);
  return events;
}

/** A store in which a rival writer appends to the stream just before each of our appends. */
function storeWithRival(inner: EventStore): { store: EventStore; rivalAppends: () => number } {
  let rivalAppends = 0;
  const store = Object.create(inner) as EventStore;
  store.appendToStream = async (streamId, events, appendOptions) => {
    rivalAppends += 1;
    await appendSealed(inner, streamId, [
      {
        id: derivedEventId('rival', rivalAppends),
        type: 'ItemAdded',
        data: { item: `rival-${rivalAppends}`, position: -1 },
      },
    ]);
    return inner.appendToStream(streamId, events, appendOptions);
  };
  return { store, rivalAppends: () => rivalAppends };
}

describe('handleCommand', () => {
  describe('given a stream that does not exist', () => {
    it('appends the decided events expecting no stream and returns them with the revision and state', async () => {
      const store = new InMemoryEventStore();
      const handled = await handleCommand(store, 'list-1', add('milk'), listDecider, options);
      expect(handled.events).toEqual([{ type: 'ItemAdded', data: { item: 'milk', position: 0 } }]);
      expect(handled.revision).toBe(0n);
      expect(handled.state).toEqual({ items: ['milk'] });
      expect(handled.attempts).toBe(1);
      const [recorded] = await readAllOf(store, 'list-1');
      expect(recorded).toMatchObject({ id: handled.eventIds[0], type: 'ItemAdded', revision: 0n });
    });
  });

  describe('given a stream with events', () => {
    it('decides on the folded state and appends at its exact revision', async () => {
      const store = new InMemoryEventStore();
      await handleCommand(store, 'list-1', add('milk'), listDecider, options);
      const handled = await handleCommand(store, 'list-1', add('eggs'), listDecider, {
        ...options,
        metadata: { actor: 'tester' },
      });
      expect(handled.events[0]!.data).toEqual({ item: 'eggs', position: 1 });
      expect(handled.revision).toBe(1n);
      const recorded = await readAllOf(store, 'list-1');
      expect(recorded[1]!.metadata).toMatchObject({ actor: 'tester', tenant: 'default', schemaVersion: 1 });
      expect(recorded[1]!.metadata.previousHash).toBe(recorded[0]!.metadata.hash);
      expect(await verifyStream(store, 'list-1')).toEqual(expect.objectContaining({ ok: true, events: 2 }));
    });

    it('lets a refusal of the decider through and writes nothing', async () => {
      const store = new InMemoryEventStore();
      await handleCommand(store, 'list-1', add('milk'), listDecider, options);
      await expect(handleCommand(store, 'list-1', add('milk'), listDecider, options)).rejects.toThrow(
        'milk is already listed',
      );
      expect(await readAllOf(store, 'list-1')).toHaveLength(1);
    });

    it('refuses an event read back that the parser rejects (a trust boundary)', async () => {
      const store = new InMemoryEventStore();
      await store.appendToStream('list-1', [{ id: derivedEventId('x', 0), type: 'Tampered', data: {} }]);
      await expect(handleCommand(store, 'list-1', add('milk'), listDecider, options)).rejects.toThrow(
        'not a list event: Tampered',
      );
    });
  });

  describe('given an id seed', () => {
    it('derives the event ids from the seed and the index', async () => {
      const store = new InMemoryEventStore();
      const handled = await handleCommand(store, 'list-1', add('milk'), listDecider, {
        ...options,
        idSeed: 'command-42',
      });
      expect(handled.eventIds).toEqual([derivedEventId('command-42', 0)]);
    });

    it('writes nothing when the same command is handled again (a redelivery)', async () => {
      const store = new InMemoryEventStore();
      const seeded = { ...options, idSeed: 'command-42' };
      await handleCommand(store, 'list-1', add('milk'), listDecider, seeded);
      const again = await handleCommand(store, 'list-1', add('milk'), listDecider, seeded);
      expect(again).toMatchObject({ events: [], alreadyHandled: true, revision: 0n });
      expect(await readAllOf(store, 'list-1')).toHaveLength(1);
    });
  });

  describe('given an id seed and a request digest', () => {
    const seeded = (requestDigest: string) => ({ ...options, idSeed: 'command-7', requestDigest });

    it('records the digest on the first event and reports it, with the revision, to a repeat', async () => {
      const store = new InMemoryEventStore();
      await handleCommand(store, 'list-1', add('milk'), listDecider, options);
      await handleCommand(store, 'list-1', add('eggs'), listDecider, seeded('digest-a'));
      const repeat = await handleCommand(store, 'list-1', add('tea'), listDecider, seeded('digest-b'));
      expect(repeat).toMatchObject({ alreadyHandled: true, events: [] });
      expect(repeat.earlier).toEqual({ idSeed: 'command-7', revision: 1n, requestDigest: 'digest-a' });
      const recorded = await readAllOf(store, 'list-1');
      expect(recorded.map((event) => event.metadata['requestDigest'])).toEqual([undefined, 'digest-a']);
    });

    it('finds a command handled under a former seed, which recorded no digest', async () => {
      const store = new InMemoryEventStore();
      await handleCommand(store, 'list-1', add('milk'), listDecider, { ...options, idSeed: 'old-seed' });
      const repeat = await handleCommand(store, 'list-1', add('milk'), listDecider, {
        ...seeded('digest-a'),
        formerIdSeeds: ['older-seed', 'old-seed'],
      });
      expect(repeat.earlier).toEqual({ idSeed: 'old-seed', revision: 0n, requestDigest: undefined });
      expect(await readAllOf(store, 'list-1')).toHaveLength(1);
    });

    it('reports a race lost to another request with the same seed, which the store took for a retry', async () => {
      const inner = new InMemoryEventStore();
      let rivals = 0;
      const store = Object.create(inner) as EventStore;
      store.appendToStream = async (streamId, events, appendOptions) => {
        if (rivals === 0) {
          rivals += 1;
          await appendSealed(inner, streamId, [
            {
              id: derivedEventId('command-7', 0),
              type: 'ItemAdded',
              data: { item: 'rival', position: 0 },
              metadata: { requestDigest: 'digest-rival' },
            },
          ]);
        }
        return inner.appendToStream(streamId, events, appendOptions);
      };
      const handled = await handleCommand(store, 'list-1', add('milk'), listDecider, seeded('digest-a'));
      expect(handled).toMatchObject({ alreadyHandled: true, events: [], state: { items: ['rival'] } });
      expect(handled.earlier).toEqual({ idSeed: 'command-7', revision: 0n, requestDigest: 'digest-rival' });
      const items = (await readAllOf(inner, 'list-1')).map((event) => parseListEvent(event).data.item);
      expect(items).toEqual(['rival']);
    });

    it('reports a race lost to another handling of the same request, which the store took for a retry (issue 25)', async () => {
      const inner = new InMemoryEventStore();
      let rivals = 0;
      const store = Object.create(inner) as EventStore;
      store.appendToStream = async (streamId, events, appendOptions) => {
        if (rivals === 0) {
          rivals += 1;
          // The same request (same seed, same content, same digest), written by another handling.
          await appendSealed(inner, streamId, [
            {
              id: derivedEventId('command-7', 0),
              type: 'ItemAdded',
              data: { item: 'milk', position: 0 },
              metadata: { requestDigest: 'digest-a', writeId: 'the-other-handling' },
            },
          ]);
        }
        return inner.appendToStream(streamId, events, appendOptions);
      };
      const handled = await handleCommand(store, 'list-1', add('milk'), listDecider, {
        ...seeded('digest-a'),
        newWriteId: () => 'this-handling',
      });
      expect(handled).toMatchObject({ alreadyHandled: true, events: [], state: { items: ['milk'] } });
      expect(handled.earlier).toEqual({ idSeed: 'command-7', revision: 0n, requestDigest: 'digest-a' });
      expect((await readAllOf(inner, 'list-1')).map((event) => event.metadata['writeId'])).toEqual([
        'the-other-handling',
      ]);
    });

    it('records its write id on the first event and takes an append it wrote for its own', async () => {
      const store = new InMemoryEventStore();
      const handled = await handleCommand(store, 'list-1', add('milk'), listDecider, {
        ...seeded('digest-a'),
        newWriteId: () => 'this-handling',
      });
      expect(handled).toMatchObject({ alreadyHandled: false, state: { items: ['milk'] } });
      expect((await readAllOf(store, 'list-1'))[0]?.metadata).toMatchObject({
        requestDigest: 'digest-a',
        writeId: 'this-handling',
      });
    });

    it('reports a seeded id that a rival recorded meanwhile in a batch of another length', async () => {
      const inner = new InMemoryEventStore();
      const store = Object.create(inner) as EventStore;
      store.appendToStream = async (streamId, events, appendOptions) => {
        store.appendToStream = inner.appendToStream.bind(inner);
        await appendSealed(inner, streamId, [
          { id: derivedEventId('command-7', 0), type: 'ItemAdded', data: { item: 'a', position: 0 } },
        ]);
        return inner.appendToStream(streamId, events, appendOptions);
      };
      const handled = await handleCommand(
        store,
        'shelf-1',
        { type: 'AddTwo', first: 'milk', second: 'eggs' },
        shelfDecider,
        {
          parseEvent: parseShelfEvent,
          appender: sealingAppender,
          idSeed: 'command-7',
          requestDigest: 'digest-a',
        },
      );
      expect(handled).toMatchObject({
        alreadyHandled: true,
        earlier: { revision: 0n, requestDigest: undefined },
      });
      expect(await shelfOf(inner, 'shelf-1')).toEqual({ items: ['a'] });
    });

    it('still refuses an id that is recorded in another stream', async () => {
      const store = new InMemoryEventStore();
      await handleCommand(store, 'list-2', add('milk'), listDecider, seeded('digest-a'));
      await expect(
        handleCommand(store, 'list-1', add('milk'), listDecider, seeded('digest-a')),
      ).rejects.toBeInstanceOf(DuplicateEventIdError);
      expect(await readAllOf(store, 'list-1')).toEqual([]);
    });
  });

  describe('given concurrent callers on one stream', () => {
    it('loses and duplicates no item: each decision re-reads after a conflict', async () => {
      const store = new InMemoryEventStore();
      const items = Array.from({ length: 12 }, (_, index) => `item-${index}`);
      const results = await Promise.all(
        items.map((item) =>
          handleCommand(store, 'list-1', add(item), listDecider, { ...options, maxAttempts: 20 }),
        ),
      );
      const recorded = (await readAllOf(store, 'list-1')).map(parseListEvent);
      expect(recorded.map((event) => event.data.item).sort()).toEqual([...items].sort());
      expect(recorded.map((event) => event.data.position)).toEqual(items.map((_, index) => index));
      expect(results.some((result) => result.attempts > 1)).toBe(true);
      expect(await verifyStream(store, 'list-1')).toEqual(expect.objectContaining({ ok: true, events: 12 }));
    });
  });

  describe('given a rival writer that wins every race', () => {
    it('reports the conflict as a ConcurrencyError after the last attempt and writes nothing of its own', async () => {
      const inner = new InMemoryEventStore();
      await appendSealed(inner, 'list-1', [
        { id: derivedEventId('first', 0), type: 'ItemAdded', data: { item: 'first', position: 0 } },
      ]);
      const { store, rivalAppends } = storeWithRival(inner);
      const pauses: number[] = [];
      const outcome = handleCommand(store, 'list-1', add('milk'), listDecider, {
        ...options,
        maxAttempts: 3,
        pauseBeforeRetry: (attempt) => {
          pauses.push(attempt);
          return Promise.resolve();
        },
      });
      await expect(outcome).rejects.toBeInstanceOf(ConcurrencyError);
      expect(rivalAppends()).toBe(3);
      expect(pauses).toEqual([1, 2]);
      const items = (await readAllOf(inner, 'list-1')).map((event) => parseListEvent(event).data.item);
      expect(items).toEqual(['first', 'rival-1', 'rival-2', 'rival-3']);
    });

    it('refuses a maxAttempts below one', async () => {
      await expect(
        handleCommand(new InMemoryEventStore(), 'list-1', add('milk'), listDecider, {
          ...options,
          maxAttempts: 0,
        }),
      ).rejects.toThrow(RangeError);
    });
  });
});

describe('derivedEventId', () => {
  it('is a UUID version 8 that depends only on the seed and the index', () => {
    const id = derivedEventId('seed', 3);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedEventId('seed', 3)).toBe(id);
    expect(new Set([id, derivedEventId('seed', 4), derivedEventId('seed2', 3)]).size).toBe(3);
  });
});
