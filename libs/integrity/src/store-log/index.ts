// The store's signed log (decision 0018): anchors, checkpoints and erasures in one hash chain,
// each entry signed; where each store keeps it; the checkpoints that commit to the whole store.
export * from './log-entry';
export * from './log-storage';
export * from './signed-log';
export * from './store-changes';
export * from './store-checkpoints';
export * from './log-check';
export * from './verify-store-log';
export * from './log-findings';
export * from './verify-store';
export * from './signed-erasure';
export * from './log-files';
export * from './checkpoint-scheduler';
export * from './witnesses';
