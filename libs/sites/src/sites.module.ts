import { Module } from '@nestjs/common';
import { SiteCommands } from './site.commands';
import { SiteController } from './site.controller';
import { SitesForIntegrations } from './site.ports';
import { SiteQueries } from './site.queries';
import { SiteReaders } from './site.readers';

/** The sites context: docs sites, their sections and site spaces, publishing. What it needs of organizations and spaces comes through its ports. */
@Module({
  controllers: [SiteController],
  providers: [SiteQueries, SiteCommands, SiteReaders, SitesForIntegrations],
  exports: [SiteReaders, SitesForIntegrations],
})
export class SitesModule {}
