// Compaction preparation and summary-request assembly (pure).
export * from './compaction-settings';
export * from './cut-point';
export * from './context-usage';
export * from './file-operations';
export * from './prepare-compaction';
export * from './serialize-conversation';
export * from './summary-templates';
export * from './summary-request';
export * from './compaction-requests';
export * from './supplied-compaction';
export * from './turn-boundaries';
