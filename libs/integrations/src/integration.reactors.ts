import type { Reactor } from '../../runtime/src/reactor';
import { IntegrationCommands } from './integration.commands';

/** A deleted integration is uninstalled everywhere (installation_deleted events follow); idempotent. */
export const integrationReactor: Reactor = {
  name: 'integration-uninstalls',
  handles: ['IntegrationDeleted'],
  async react(event, context) {
    await context.services.get(IntegrationCommands).uninstallEverywhere((event.data as { name: string }).name, context.caller);
  },
};
