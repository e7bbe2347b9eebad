// The in-memory adapter and checkpoint store.
export * from './in-memory-event-store';
export * from './in-memory-checkpoint-store';
