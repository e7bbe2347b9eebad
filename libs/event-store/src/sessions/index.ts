// Sessions in and out of the store: import of pi files, export as v3 JSONL, and loading a
// session's stream as validated, folded state.
export * from './session-store-errors';
export * from './session-repository';
export * from './session-import';
export * from './session-export';
export * from './session-import-encoding';
