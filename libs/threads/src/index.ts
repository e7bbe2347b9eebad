export * from './module-worker';
export * from './task-pool';
export {
  TaskFailedError,
  transferredResult,
  type SerializedTaskError,
  type TransferredResult,
} from './task-protocol';
