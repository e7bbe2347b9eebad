export * from './module-worker';
export * from './task-pool';
export { TaskFailedError, type SerializedTaskError } from './task-protocol';
