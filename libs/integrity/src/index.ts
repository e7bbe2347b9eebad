// @strata/integrity: the integrity of what the store holds (DESIGN.md decision 4): each stream's
// hash chain (sealing on append, the generic command handler's sealing appender, verification),
// and above the streams the signed anchors, their logs and the verification of the whole store
// against them and the erasure records. Built on @strata/event-store's port; knows no sessions.
export * from './hash-chain';
export * from './anchors';
export * from './store-log';
