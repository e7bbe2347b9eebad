// @strata/event-store: the event-store port, its adapters, the contract suite and the
// integrity chain (DESIGN.md decisions 3 and 4).
export * from './port';
export * from './esdb';
export * from './store-url';
export * from './store-availability';
export * from './shared/work-slice';
export { toJsonText } from './shared/json-values';
export * from './command-handling/handle-command';
export * from './command-handling/derived-event-id';
export * from './command-handling/id-seed';
export * from './command-handling/folded-stream-cache';
export * from './command-handling/fold-stream';
export * from './ids/uuidv7';
export * from './memory';
export * from './sqlite';
export * from './integrity';
export * from './anchors';
