export * from './error-envelope';
export * from './validation';
export * from './list';
export * from './auth';
export * from './rate-limit';
export * from './front-door';
export * from './etag';
export * from './id-param';
