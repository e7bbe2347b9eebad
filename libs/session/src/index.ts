// @strata/session: the pure session domain (DESIGN.md decision 1). No framework, store,
// clock, network or file system: time and ids arrive as arguments.
export * from './entries/content';
export * from './entries/messages';
export * from './entries/entries';
export * from './entries/identifiers';
export * from './entries/timestamps';
export * from './entries/usage-bounds';
export * from './entries/entry-rules';
export * from './entries/entry-weight';
export * from './tokens/token-counter';
export * from './tokens/estimate';
export * from './context/message-from-entry';
export * from './tree/session-tree';
export * from './file-format';
export * from './context/context-templates';
export * from './context/tool-call-pairing';
export * from './context/build-session-context';
export * from './context/output-notice';
export * from './context/convert-to-llm';
export * from './context/session-views';
export * from './compaction';
export * from './branch-summary';
export * from './pruning';
export * from './decider';
export * from './workflows';
