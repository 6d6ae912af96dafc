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

/**
 * A place gone for good takes its installations along (site_installation_deleted or
 * space_installation_deleted follow): a deleted site (deletion is final for sites) and a purged
 * space (a deleted space keeps them while it can be restored). Both are final, so the trigger
 * always still holds; the removal is idempotent.
 */
export const placeRemovalReactor: Reactor = {
  name: 'integration-place-removals',
  handles: ['SiteDeleted', 'SpacePurged'],
  async react(event, context) {
    const commands = context.services.get(IntegrationCommands);
    if (event.type === 'SiteDeleted') await commands.removeFromPlace('site', (event.data as { siteId: string }).siteId, context.caller);
    else await commands.removeFromPlace('space', (event.data as { spaceId: string }).spaceId, context.caller);
  },
};
