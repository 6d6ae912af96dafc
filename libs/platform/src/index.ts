export * from './errors';
export * from './ids';
export * from './clock';
export * from './config';
