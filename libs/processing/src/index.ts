// @strata/processing: the one runner of durable work (DESIGN.md decision 5) — a checkpointed
// catch-up subscription feeding processors, partitioned by stream and fair between tenants.
export * from './processor';
export * from './processor-runner';
export * from './processor-runner-types';
export * from './parked-partitions';
export * from './partition-scheduler';
export * from './watermark';
export * from './restart-backoff';
export * from './signal';
