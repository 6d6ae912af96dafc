export * from './site.events';
export * from './sites-ports.port';
export * from './published/site-content.port';
export * from './sites.context';
export * from './site-views.port';
export { SitesForIntegrations } from './site.ports';
