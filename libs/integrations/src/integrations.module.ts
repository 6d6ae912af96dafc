import { Module } from '@nestjs/common';
import { IntegrationAccess } from './integration.access';
import { integrationCommandHandlers } from './integration.commands';
import { installationCommandHandlers } from './integration-installations.commands';
import { deliveryCommandHandlers } from './integration-deliveries.commands';
import { IntegrationController, IntegrationSiteController, IntegrationSpaceController } from './integration.controller';
import { IntegrationEventPresenter } from './integration.event-presenter';
import { integrationQueryHandlers } from './integration.queries';
import { installationQueryHandlers } from './integration-installations.queries';
import { integrationEventQueryHandlers } from './integration-events.queries';
import { IntegrationRuntime } from './integration.runtime';
import { IntegrationSecrets } from './integration.secrets';
import { siteViewHandlers, SiteViewDeliveries, SiteViewHandOver } from './integration.site-views';
import { IntegrationsForSites } from './integrations.provides';

/**
 * The integrations context: publications, installations, integration events derived from the log
 * and their delivery (tunnel or sandboxed script), UI render. What it needs of organizations,
 * spaces, sites and users comes through its ports; it gives sites IntegrationsForSites (readers' views).
 */
@Module({
  controllers: [IntegrationController, IntegrationSpaceController, IntegrationSiteController],
  providers: [
    IntegrationAccess,
    IntegrationSecrets,
    IntegrationEventPresenter,
    IntegrationRuntime,
    SiteViewDeliveries,
    SiteViewHandOver,
    IntegrationsForSites,
    ...integrationCommandHandlers,
    ...installationCommandHandlers,
    ...deliveryCommandHandlers,
    ...integrationQueryHandlers,
    ...installationQueryHandlers,
    ...integrationEventQueryHandlers,
    ...siteViewHandlers,
  ],
  exports: [IntegrationsForSites],
})
export class IntegrationsModule {}
