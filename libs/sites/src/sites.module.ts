import { Module } from '@nestjs/common';
import { SiteAccess } from './site.access';
import { siteCommandHandlers } from './site.commands';
import { siteSectionCommandHandlers } from './site-sections.commands';
import { siteShareLinkCommandHandlers } from './site-share-links.commands';
import { siteSpaceCommandHandlers } from './site-spaces.commands';
import { SiteController } from './site.controller';
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
  controllers: [SiteController, SiteHtmlController],
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
