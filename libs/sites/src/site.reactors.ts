import type { SpaceEvent } from '../../spaces/src';
import { DomainError } from '../../platform/src/errors';
import { readAll } from '../../read-store/src/read-all';
import type { Reactor } from '../../runtime/src/reactor';
import { SiteCommands } from './site.commands';
import { SITES, type SiteDoc } from './site.projections';
import { SITE_SPACES, type SiteSpaces } from './sites-ports.port';

type SpaceGone = Extract<SpaceEvent, { type: 'SpaceDeleted' | 'SpacePurged' }>['data'];

/**
 * A space that is deleted (or purged) leaves every site that shows it: its site spaces are removed,
 * defaults moving on as they do when an administrator removes one. A space restored before the
 * reaction runs is still live, and stays.
 */
export const siteSpacesReactor: Reactor = {
  name: 'site-spaces',
  handles: ['SpaceDeleted', 'SpacePurged'],
  async react(event, context) {
    const { spaceId, organizationId } = event.data as SpaceGone;
    const space = await context.services.get<SiteSpaces>(SITE_SPACES).spaceById(spaceId);
    if (space && !space.deleted) return;
    const showing = await readAll<SiteDoc>(context.reads, SITES, { spaceIds: spaceId, deleted: { $exists: false } });
    for (const site of showing) {
      try {
        await context.services.get(SiteCommands).removeSpace(organizationId, site._id, spaceId, context.caller);
      } catch (error) {
        if (!(error instanceof DomainError && error.status === 404)) throw error; // the site went meanwhile
      }
    }
  },
};
