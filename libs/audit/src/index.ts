export * from './organization-access';
export * from './audit.projection';
export * from './audit.queries';
export * from './audit.controller';
export * from './stream-history';
export * from './stream-history.controller';
export * from './audit.module';
export * from './audit.context';
