import type { ContextManifest } from '#runtime/context';
import { SITE_CONTENT, SITE_DOMAINS, SITE_ORGANIZATIONS, SITE_SPACES, SITE_VIEWS } from './sites.needs';
import { SitesForIntegrations } from './sites.provides';
import { siteAuditCatalog } from './site.audit';
import { siteProjection } from './site.projections';
import { siteSpacesReactor, transferredSpacesReactor } from './site.reactors';
import { siteSchemas } from './sites.schemas';
import { SitesModule } from './sites.module';

/** Docs sites: sites built from spaces, sections and site spaces, publishing, the published structure and the published site as HTML. */
export const sitesContext: ContextManifest = {
  name: 'sites',
  module: SitesModule,
  projections: [siteProjection],
  reactors: [siteSpacesReactor, transferredSpacesReactor],
  audit: siteAuditCatalog,
  needs: [SITE_ORGANIZATIONS, SITE_SPACES, SITE_DOMAINS, SITE_CONTENT, SITE_VIEWS],
  provides: [SitesForIntegrations],
  schemas: siteSchemas,
};
