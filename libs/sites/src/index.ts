export * from './site.events';
export * from './sites.needs';
export * from './sites.context';
export { SitesForIntegrations } from './sites.provides';
// The aggregate and a site space's path, for the CLI's `seed` (events made by the decider itself).
export { siteDecider, siteStream, type SiteCommand, type SiteState } from './site.decider';
export { pathOf } from './site.paths';
