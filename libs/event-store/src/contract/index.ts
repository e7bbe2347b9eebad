// The shared contract suites (import only from test files: they register Jest tests).
export { describeEventStoreContract } from './event-store-contract';
export { describeCheckpointStoreContract } from './checkpoint-store-contract';
export * from './contract-support';
