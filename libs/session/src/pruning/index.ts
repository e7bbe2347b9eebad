// The tool-output pruning decision (pure).
export * from './pruning-settings';
export * from './prune-tool-outputs';
