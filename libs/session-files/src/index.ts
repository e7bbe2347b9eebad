// @strata/session-files: sessions in and out of the store: import of pi files (and the
// transcripts converted into them), export as v3 JSONL, and loading a session's stream as
// validated, folded state. The session side of the store: @strata/event-store knows no sessions.
export * from './session-store-errors';
export * from './session-repository';
export * from './session-import';
export * from './session-export';
export * from './session-import-encoding';
