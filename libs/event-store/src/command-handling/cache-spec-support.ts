// Test support for the folded-stream cache specs: a small shelf domain (items added once, one
// or two at a time, or nothing), and store wrappers that count the events read or can be
// pointed at another store (a stream written anew behind the handler's back), and another
// writer's sealed append.
import { createSealingAppender } from '@strata/integrity';
import type { EventStore, EventToAppend, RecordedEvent } from '../port';
import { derivedEventId } from './derived-event-id';
import type { Decider } from './decider';

/** One fixed clock for every seal: runs compared event for event seal the same times. */
const sealingAppender = createSealingAppender({}, { now: () => new Date('2026-01-01T00:00:00.000Z') });

export type ShelfCommand =
  | { readonly type: 'Add'; readonly item: string }
  | { readonly type: 'AddTwo'; readonly first: string; readonly second: string }
  | { readonly type: 'Nothing' };

export interface ShelfEvent {
  readonly type: 'ItemAdded';
  readonly data: { readonly item: string; readonly position: number };
}

export interface ShelfState {
  readonly items: readonly string[];
}

function added(state: ShelfState, items: readonly string[]): ShelfEvent[] {
  for (const item of items) if (state.items.includes(item)) throw new Error(`${item} is on the shelf`);
  if (new Set(items).size !== items.length) throw new Error('the same item twice');
  return items.map((item, index) => ({
    type: 'ItemAdded',
    data: { item, position: state.items.length + index },
  }));
}

/** A pure decider: `evolve` returns new objects and never changes the state it is given. */
export const shelfDecider: Decider<ShelfState, ShelfCommand, ShelfEvent> = {
  initialState: () => ({ items: [] }),
  evolve: (state, event) => ({ items: [...state.items, event.data.item] }),
  decide: (command, state) => {
    switch (command.type) {
      case 'Add':
        return added(state, [command.item]);
      case 'AddTwo':
        return added(state, [command.first, command.second]);
      case 'Nothing':
        return [];
      default: {
        const unhandled: never = command;
        throw new Error(`unhandled shelf command ${JSON.stringify(unhandled)}`);
      }
    }
  },
};

export function parseShelfEvent(event: RecordedEvent): ShelfEvent {
  const data = event.data as { item?: unknown; position?: unknown };
  if (event.type !== 'ItemAdded' || typeof data.item !== 'string' || typeof data.position !== 'number') {
    throw new Error(`not a shelf event: ${event.type}`);
  }
  return { type: 'ItemAdded', data: { item: data.item, position: data.position } };
}

/** The shelf folded from the whole stream, as a handler without a cache sees it. */
export async function shelfOf(store: EventStore, streamId: string, upTo?: bigint): Promise<ShelfState> {
  let state = shelfDecider.initialState();
  for await (const recorded of store.readStream(streamId)) {
    if (upTo !== undefined && recorded.revision > upTo) break;
    state = shelfDecider.evolve(state, parseShelfEvent(recorded));
  }
  return state;
}

/** Another writer's append: `events` sealed after the stream's last event, expecting its revision. */
export async function appendSealed(
  store: EventStore,
  streamId: string,
  events: readonly EventToAppend[],
): Promise<void> {
  let lastEvent: RecordedEvent | undefined;
  for await (const event of store.readStream(streamId, { direction: 'backwards', maxCount: 1 }))
    lastEvent = event;
  const expectedRevision = lastEvent?.revision ?? 'no_stream';
  await sealingAppender({ store, streamId, events, expectedRevision, lastEvent });
}

/** Another writer's event, appended without any handler (sealed onto the chain). */
export async function rawShelfAppend(
  store: EventStore,
  streamId: string,
  item: string,
  id: string = derivedEventId(`raw/${item}`, 0),
): Promise<void> {
  await appendSealed(store, streamId, [{ id, type: 'ItemAdded', data: { item, position: -1 } }]);
}

function delegate(inner: () => EventStore): EventStore {
  return {
    appendToStream: (...args) => inner().appendToStream(...args),
    readStream: (...args) => inner().readStream(...args),
    readAll: (...args) => inner().readAll(...args),
    subscribe: (...args) => inner().subscribe(...args),
    streamRevision: (...args) => inner().streamRevision(...args),
    getStreamMetadata: (...args) => inner().getStreamMetadata(...args),
    setStreamMetadata: (...args) => inner().setStreamMetadata(...args),
    eraseStream: (...args) => inner().eraseStream(...args),
    listErasures: (...args) => inner().listErasures(...args),
    close: () => inner().close(),
  };
}

/** A store that counts the stream events its reads yield. */
export function countingReads(inner: EventStore): { readonly store: EventStore; eventsRead(): number } {
  let eventsRead = 0;
  const store = delegate(() => inner);
  async function* counted(events: AsyncIterable<RecordedEvent>): AsyncGenerator<RecordedEvent> {
    for await (const event of events) {
      eventsRead += 1;
      yield event;
    }
  }
  return {
    store: { ...store, readStream: (...args) => counted(inner.readStream(...args)) },
    eventsRead: () => eventsRead,
  };
}

/** A store whose every call goes to the store given last (as if the file were replaced). */
export function swappableStore(first: EventStore): {
  readonly store: EventStore;
  swap(next: EventStore): void;
} {
  let current = first;
  return {
    store: delegate(() => current),
    swap: (next) => {
      current = next;
    },
  };
}

/** A store on which another writer appends `item` just before the next append (a lost race). */
export function rivalBeforeNextAppend(
  inner: EventStore,
  streamId: string,
  item: () => string,
): { readonly store: EventStore; arm(): void } {
  let armed = false;
  const store = delegate(() => inner);
  return {
    store: {
      ...store,
      appendToStream: async (...args) => {
        if (armed) {
          armed = false;
          await rawShelfAppend(inner, streamId, item());
        }
        return inner.appendToStream(...args);
      },
    },
    arm: () => {
      armed = true;
    },
  };
}
