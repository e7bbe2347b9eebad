// @strata/projections: the read side (DESIGN.md decisions 5 and 6) — the read models as
// processors of the one runner of durable work, the context projection (live sessions in memory),
// and the catalog and audit projections (documents in SQLite or in memory).
export * from './runner/projected-event';
export * from './runner/projection';
export * from './runner/read-model-runner';
export * from './runner/session-set-aside';
export { sessionHeadPosition, storeHeadPosition } from './runner/store-head';
export * from './storage/sqlite-parked-partitions';
export * from './documents/document-projection';
export * from './documents/paging';
export * from './context/session-view';
export * from './context/context-projection';
export * from './context/session-snapshot';
export * from './context/snapshot-storage';
export * from './context/snapshot-saver';
export * from './catalog/catalog-session';
export * from './catalog/catalog-storage';
export * from './catalog/catalog-projection';
export * from './catalog/in-memory-catalog-storage';
export * from './catalog/sqlite-catalog-storage';
export * from './audit/audit-attempt';
export * from './audit/audit-evolve';
export * from './audit/audit-storage';
export * from './audit/audit-projection';
export * from './audit/in-memory-audit-storage';
export * from './audit/sqlite-audit-storage';
export * from './search/search-text';
export * from './search/search-storage';
export * from './search/search-projection';
export * from './search/sqlite-search-storage';
export * from './search/in-memory-search-storage';
export * from './storage/projection-storage';
export * from './storage/projections-in-use';
export * from './projection-set';
