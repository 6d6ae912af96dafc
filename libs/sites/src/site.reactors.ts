import type { SpaceEvent } from '#spaces';
import { DomainError } from '#platform/errors';
import { readAll } from '#read-store/read-all';
import type { ReactionContext, Reactor } from '#runtime/reactor';
import { RemoveSpaceFromSite } from './site-spaces.commands';
import { SITES, type SiteDoc } from './site.projections';
import { SITE_SPACES, type SiteSpaces } from './sites.needs';

/**
 * A space that is deleted (or purged) leaves every site that shows it: its site spaces are removed,
 * defaults moving on as they do when an administrator removes one. A space restored before the
 * reaction runs is still live, and stays.
 */
export const siteSpacesReactor: Reactor<SpaceEvent> = {
  name: 'site-spaces',
  handles: ['SpaceDeleted', 'SpacePurged'],
  async react(event, context) {
    switch (event.type) {
      case 'SpaceDeleted':
      case 'SpacePurged': {
        const { spaceId } = event.data;
        const space = await context.services.get<SiteSpaces>(SITE_SPACES).spaceById(spaceId);
        if (space && !space.deleted) return;
        await removeFrom(await showing(context, spaceId), spaceId, context);
        return;
      }
    }
  },
};

/**
 * The sites a space must leave: a site shows only spaces of its own organization, so every site of
 * another organization than the space's (as it is now, not as the event says: a space transferred
 * back before the reaction runs stays where it is shown again). Pure.
 */
export function sitesToLeave(
  space: { organizationId: string } | null,
  sites: readonly Pick<SiteDoc, '_id' | 'organizationId'>[],
): Array<Pick<SiteDoc, '_id' | 'organizationId'>> {
  if (space === null) return []; // purged: the site-spaces reactor removes it everywhere
  return sites.filter((site) => site.organizationId !== space.organizationId);
}

/**
 * A space transferred to another organization (alone or with its collection) leaves the sites of
 * the organization it left: its site spaces go, sections it leaves empty go too, so nothing it
 * holds, before or after the transfer, is published under its former organization's sites.
 * Reactions are delivered at least once; a repeat finds the space already gone and appends nothing.
 */
export const transferredSpacesReactor: Reactor<SpaceEvent> = {
  name: 'site-transferred-spaces',
  handles: ['SpaceTransferred'],
  async react(event, context) {
    switch (event.type) {
      case 'SpaceTransferred': {
        const { spaceId } = event.data;
        const space = await context.services.get<SiteSpaces>(SITE_SPACES).spaceById(spaceId);
        await removeFrom(sitesToLeave(space, await showing(context, spaceId)), spaceId, context);
        return;
      }
    }
  },
};

/** The live sites showing the space (read model). */
function showing(context: ReactionContext, spaceId: string): Promise<SiteDoc[]> {
  return readAll<SiteDoc>(context.reads, SITES, { spaceIds: spaceId, deleted: { $exists: false } });
}

async function removeFrom(
  sites: readonly Pick<SiteDoc, '_id' | 'organizationId'>[],
  spaceId: string,
  context: ReactionContext,
): Promise<void> {
  for (const site of sites) {
    try {
      await context.commandBus.execute(new RemoveSpaceFromSite(site.organizationId, site._id, spaceId, context.caller));
    } catch (error) {
      if (!(error instanceof DomainError && error.status === 404)) throw error; // the site went meanwhile
    }
  }
}
