export * from './identity.events';
export * from './identity.decider';
export * from './identity.projections';
export * from './identity.commands';
export * from './identity.queries';
export * from './identity.controller';
export * from './identity.module';
