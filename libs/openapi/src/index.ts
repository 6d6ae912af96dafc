export * from './openapi.events';
export * from './openapi.needs';
export * from './openapi.context';
export { OpenapiForContent } from './openapi.provides';
