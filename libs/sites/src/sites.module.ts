import { Module } from '@nestjs/common';
import { SiteCommands } from './site.commands';
import { SiteController } from './site.controller';
import { SitesForIntegrations } from './site.ports';
import { SiteQueries } from './site.queries';
import { SiteReaders } from './site.readers';
import { SiteHostnames } from './site.hostname-holders';
import { SiteHtmlController } from './published/site-html.controller';
import { SiteHtmlQueries } from './published/site-html.queries';

/** The sites context: docs sites, their sections and site spaces, publishing, the published site as HTML. What it needs of organizations, spaces and content comes through its ports. */
@Module({
  controllers: [SiteController, SiteHtmlController],
  providers: [SiteQueries, SiteCommands, SiteReaders, SiteHostnames, SiteHtmlQueries, SitesForIntegrations],
  exports: [SiteReaders, SitesForIntegrations],
})
export class SitesModule {}
