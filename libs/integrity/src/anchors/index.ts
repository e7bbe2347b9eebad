// Signed anchors and the verification that uses them (issue 14): signing keys, the anchor log of
// each store, the scheduler that signs heads as the engine writes, anchor and event files, and
// verification against the store's records, anchors and erasure records.
export * from './anchor';
export * from './signing-key';
export * from './anchor-log';
export * from './anchor-scheduler';
export * from './anchor-index';
export * from './bounded-lines';
export * from './event-lines';
export * from './integrity-findings';
export * from './verify-integrity';
