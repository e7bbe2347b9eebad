// Head positions read from the store: the last event of any stream, and the last event of a
// session stream (what the runner's lag is measured against).
import type { EventFilter, EventStore } from '@strata/event-store';
import { SESSION_STREAM_PREFIX } from '@strata/session';

export const sessionStreamFilter: EventFilter = { streamPrefixes: [SESSION_STREAM_PREFIX] };

async function lastPosition(store: EventStore, filter: EventFilter | undefined): Promise<bigint | null> {
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

/** The global position of the store's last event; null for an empty store. */
export function storeHeadPosition(store: EventStore): Promise<bigint | null> {
  return lastPosition(store, undefined);
}

/** The global position of the last event of any session stream; null when there is none. */
export function sessionHeadPosition(store: EventStore): Promise<bigint | null> {
  return lastPosition(store, sessionStreamFilter);
}
