export * from './read-store.port';
export * from './errors';
export * from './pagination';
export { MemoryReadStore } from './memory/memory-read-store';
export { MongoReadStore, createMongoReadStore } from './mongodb/mongo-read-store';
export * from './projections/projection';
export * from './projections/projection-runner';
export { rebuildProgressReporter } from './projections/rebuild-progress';
