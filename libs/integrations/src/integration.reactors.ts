import type { SiteEvent } from '#sites';
import type { SpaceEvent } from '#spaces';
import type { Reactor } from '#runtime/reactor';
import { RemoveInstallationsFromPlace, UninstallEverywhere } from './integration-installations.commands';
import type { IntegrationStreamEvent } from './integration.events';

/** A deleted integration is uninstalled everywhere (installation_deleted events follow); idempotent. */
export const integrationReactor: Reactor<IntegrationStreamEvent> = {
  name: 'integration-uninstalls',
  handles: ['IntegrationDeleted'],
  async react(event, context) {
    if (event.type !== 'IntegrationDeleted') return;
    await context.commandBus.execute(new UninstallEverywhere(event.data.name, context.caller));
  },
};

/**
 * A place gone for good takes its installations along (site_installation_deleted or
 * space_installation_deleted follow): a deleted site (deletion is final for sites) and a purged
 * space (a deleted space keeps them while it can be restored). Both are final, so the trigger
 * always still holds; the removal is idempotent.
 */
export const placeRemovalReactor: Reactor<SiteEvent | SpaceEvent> = {
  name: 'integration-place-removals',
  handles: ['SiteDeleted', 'SpacePurged'],
  async react(event, context) {
    switch (event.type) {
      case 'SiteDeleted':
        return context.commandBus.execute(new RemoveInstallationsFromPlace('site', event.data.siteId, context.caller));
      case 'SpacePurged':
        return context.commandBus.execute(new RemoveInstallationsFromPlace('space', event.data.spaceId, context.caller));
    }
  },
};
