// The store's signed log (decision 0018): anchors, checkpoints and erasures in one hash chain,
// each entry signed; where each store keeps it; the checkpoints that commit to the whole store.
export * from './log-entry';
export * from './log-storage';
export * from './signed-log';
