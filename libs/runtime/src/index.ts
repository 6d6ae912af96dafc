export * from './stores';
export * from './metrics';
export * from './read-your-writes';
export * from './command-runner';
export * from './runtime.module';
export * from './health';
export * from './projector';
export * from './reactor';
