import { Module } from '@nestjs/common';
import { SiteAccess } from './site.access';
import { siteCommandHandlers } from './site.commands';
import { SiteController } from './site.controller';
import { SitesForIntegrations } from './site.ports';
import { siteQueryHandlers } from './site.queries';
import { SiteReaders } from './site.readers';
import { SiteHostnames } from './site.hostname-holders';
import { SiteHtmlController } from './published/site-html.controller';
import { ServePublishedSiteHandler } from './published/site-html.queries';

/** The sites context: docs sites, their sections and site spaces, publishing, the published site as HTML. What it needs of organizations, spaces and content comes through its ports. */
@Module({
  controllers: [SiteController, SiteHtmlController],
  providers: [SiteAccess, SiteReaders, SiteHostnames, SitesForIntegrations, ...siteCommandHandlers, ...siteQueryHandlers, ServePublishedSiteHandler],
  exports: [SiteReaders, SitesForIntegrations],
})
export class SitesModule {}
