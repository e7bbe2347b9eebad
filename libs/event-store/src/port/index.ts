// The event-store port: types, errors and filter matching shared by every adapter.
export * from './event-store';
export * from './event-filter';
export * from './store-capabilities';
export * from './head-position';
export * from './store-errors';
