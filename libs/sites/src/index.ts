export * from './site.events';
export * from './sites-ports.port';
export * from './published/site-content.port';
export * from './sites.context';
export * from './site-views.port';
export { SitesForIntegrations } from './site.ports';
// The aggregate and a site space's path, for the CLI's `seed` (events made by the decider itself).
export { siteDecider, siteStream, type SiteCommand, type SiteState } from './site.decider';
export { pathOf } from './site.paths';
