export * from './errors';
export * from './ids';
export * from './clock';
export * from './config';
export * from './logging';
export * from './http';
export * from './audit-catalog';
export * from './permissions';
