// The position of a store's head: its last event, or the last event a filter lets through. Read
// through the port (one event, backwards from the end), so it holds for every adapter.
import type { EventFilter, EventStore } from './event-store';

/** The global position of the last event (of the filter's, when one is given); null when none. */
export async function headPosition(store: EventStore, filter?: EventFilter): Promise<bigint | null> {
  for await (const event of store.readAll({
    direction: 'backwards',
    fromPosition: 'end',
    maxCount: 1,
    ...(filter !== undefined ? { filter } : {}),
  })) {
    return event.position;
  }
  return null;
}
