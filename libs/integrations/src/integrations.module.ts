import { Module } from '@nestjs/common';
import { IntegrationCommands } from './integration.commands';
import { IntegrationController } from './integration.controller';
import { IntegrationQueries } from './integration.queries';
import { IntegrationRuntime } from './integration.runtime';
import { IntegrationSecrets } from './integration.secrets';

/**
 * The integrations context: publications, installations, integration events derived from the log
 * and their delivery (tunnel or sandboxed script), UI render. What it needs of organizations and
 * spaces comes through its ports.
 */
@Module({
  controllers: [IntegrationController],
  providers: [IntegrationSecrets, IntegrationQueries, IntegrationCommands, IntegrationRuntime],
})
export class IntegrationsModule {}
