// @strata/testing: shared test helpers (builders, generators, fixtures). Used by specs only.
export * from './session-builder';
export * from './fixtures';
export * from './chained-compactions';
export * from './session-arbitraries';
export * from './decider-specification';
export * from './esdb-test-server';
export * from './scripted-summarizer';
export * from './loopback-port';
export * from './long-texts';
export * from './pi-reference/pi-reference';
export * from './transcript-samples';
export * from './sqlite-wal';
export * from './wait-until';
export * from './prometheus-text';
