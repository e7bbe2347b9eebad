// @strata/event-store: the event-store port, its adapters (SQLite, EventStoreDB, memory), the
// contract suite, subscriptions, checkpoints and the generic command handler (DESIGN.md
// decision 3). Domain-agnostic: sessions are @strata/session-files', the hash chain and anchors
// @strata/integrity's.
export * from './port';
export * from './esdb';
export * from './store-url';
export * from './store-availability';
export * from './shared/work-slice';
export { deepFreeze, toJsonText } from './shared/json-values';
export {
  forgetEncoding,
  knownEncodingOf,
  rememberEncoding,
  type KnownEncoding,
} from './shared/known-encodings';
export * from './shared/stored-text';
export * from './command-handling/decider';
export * from './command-handling/handle-command';
export * from './command-handling/derived-event-id';
export * from './command-handling/id-seed';
export * from './command-handling/folded-stream-cache';
export * from './command-handling/fold-stream';
export * from './ids/uuidv7';
export * from './memory';
export * from './sqlite';
