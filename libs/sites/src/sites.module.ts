import { Module } from '@nestjs/common';
import { SiteAccess } from './site.access';
import { siteCommandHandlers } from './site.commands';
import { siteSectionCommandHandlers } from './site-sections.commands';
import { siteShareLinkCommandHandlers } from './site-share-links.commands';
import { siteSpaceCommandHandlers } from './site-spaces.commands';
import { SiteController } from './site.controller';
import { SiteShareLinksController } from './site-share-links.controller';
import { SiteVisitorAuthController } from './site-visitor-auth.controller';
import { SiteSectionsController } from './site-sections.controller';
import { SiteAdaptiveSchemaController } from './site-adaptive-schema.controller';
import { SiteSpacesController } from './site-spaces.controller';
import { siteQueryHandlers } from './site.queries';
import { siteSectionQueryHandlers } from './site-sections.queries';
import { siteShareLinkQueryHandlers } from './site-share-links.queries';
import { siteSpaceQueryHandlers } from './site-spaces.queries';
import { SiteReaders } from './site.readers';
import { SiteHostnames } from './site.hostname-holders';
import { SitesForIntegrations } from './sites.provides';
import { SiteHtmlController } from './published/site-html.controller';
import { ServePublishedSiteHandler } from './published/site-html.queries';

/** The sites context: docs sites, their sections and site spaces, publishing, the published site as HTML. What it needs of organizations, spaces and content comes through its ports. */
@Module({
  // The OpenAPI document lists the routes in this order.
  controllers: [
    SiteController,
    SiteShareLinksController,
    SiteVisitorAuthController,
    SiteSectionsController,
    SiteAdaptiveSchemaController,
    SiteSpacesController,
    SiteHtmlController,
  ],
  providers: [
    SiteAccess,
    SiteReaders,
    SiteHostnames,
    SitesForIntegrations,
    ...siteCommandHandlers,
    ...siteSectionCommandHandlers,
    ...siteSpaceCommandHandlers,
    ...siteShareLinkCommandHandlers,
    ...siteQueryHandlers,
    ...siteSectionQueryHandlers,
    ...siteSpaceQueryHandlers,
    ...siteShareLinkQueryHandlers,
    ServePublishedSiteHandler,
  ],
  exports: [SiteReaders, SitesForIntegrations],
})
export class SitesModule {}
