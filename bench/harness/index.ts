// The benchmark harness: measuring cases, describing the machine, writing results and charts.
export * from './statistics';
export * from './memory';
export * from './progress';
export * from './measure';
export * from './machine';
export * from './suite';
export * from './svg-chart';
export * from './results-files';
