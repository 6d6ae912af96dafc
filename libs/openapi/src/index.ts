export * from './openapi.events';
export * from './openapi-organizations.port';
export * from './openapi.context';
export { OpenapiForContent } from './openapi.ports';
