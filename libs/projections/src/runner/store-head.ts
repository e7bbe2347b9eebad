// Head positions read from the store: the last event of any stream, and the last event of a
// session stream (what the runner's lag is measured against).
import { headPosition, type EventFilter, type EventStore } from '@strata/event-store';
import { SESSION_STREAM_PREFIX } from '@strata/session';

export const sessionStreamFilter: EventFilter = { streamPrefixes: [SESSION_STREAM_PREFIX] };

/** The global position of the store's last event; null for an empty store. */
export function storeHeadPosition(store: EventStore): Promise<bigint | null> {
  return headPosition(store);
}

/** The global position of the last event of any session stream; null when there is none. */
export function sessionHeadPosition(store: EventStore): Promise<bigint | null> {
  return headPosition(store, sessionStreamFilter);
}
