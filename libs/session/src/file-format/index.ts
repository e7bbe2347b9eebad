// Pi session files (JSONL, versions 1 to 3): parsing with migration, and writing v3; agents' own
// transcripts (Claude Code, Codex) converted into entries and written back.
export * from './session-file-error';
export * from './json-depth';
export * from './legacy-entry-ids';
export * from './parse-session-file';
export * from './serialize-session-file';
export * from './transcripts';
export * from './session-line-reader';
