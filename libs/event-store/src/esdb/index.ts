// The EventStoreDB adapter: the event store, its checkpoint store, and the stream names it keeps.
export { EsdbEventStore, type EsdbEventStoreOptions } from './esdb-event-store';
export { EsdbCheckpointStore, type EsdbCheckpointStoreOptions } from './esdb-checkpoint-store';
export { ANCHOR_EVENT_TYPE, ANCHOR_STREAM, CHECKPOINT_STREAM_PREFIX, ERASURE_STREAM } from './esdb-mapping';
