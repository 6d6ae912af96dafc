export * from './event-store.port';
export * from './errors';
export * from './decider';
export * from './command-handling';
export { LmdbEventStore } from './lmdb/lmdb-event-store';
export { KurrentDbEventStore, createKurrentDbEventStore } from './kurrentdb/kurrentdb-event-store';
