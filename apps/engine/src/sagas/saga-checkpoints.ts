// Where the saga runner keeps its checkpoint unless told otherwise: beside the events, in the
// store the engine writes to (the SQLite database's `checkpoints` table, or a checkpoint stream
// on EventStoreDB). A store wrapped by a decorator (tenancy) is unwrapped through its `inner`
// store. Other stores get an in-memory checkpoint: the runner then replays from the start
// after a restart, which the derived ids make harmless.
import {
  EsdbCheckpointStore,
  EsdbEventStore,
  InMemoryCheckpointStore,
  SqliteEventStore,
  type CheckpointStore,
  type EventStore,
} from '@strata/event-store';

interface WrappingStore extends EventStore {
  readonly inner: EventStore;
}

function isWrapping(store: EventStore): store is WrappingStore {
  if (!('inner' in store)) return false;
  const { inner } = store as { readonly inner: unknown };
  return typeof inner === 'object' && inner !== null && 'subscribe' in inner;
}

export function defaultCheckpointStoreFor(store: EventStore): CheckpointStore {
  let current = store;
  while (isWrapping(current)) current = current.inner;
  if (current instanceof SqliteEventStore) return current.checkpointStore();
  if (current instanceof EsdbEventStore) return new EsdbCheckpointStore(current.client);
  return new InMemoryCheckpointStore();
}
