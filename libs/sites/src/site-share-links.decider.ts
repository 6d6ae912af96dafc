import { DomainError } from '#platform/errors';
import type { SiteShareLinkChanges } from './site.events';
import { without, type SiteEvolution, type SiteRules } from './site-state.decider';

// A site's share links: named keys that open a share-link site to whoever holds one.

export const shareLinkRules: SiteRules<'CreateShareLink' | 'UpdateShareLink' | 'DeleteShareLink'> = {
  CreateShareLink: (command, state, { about }) => {
    if (state.shareLinks.has(command.shareLinkId)) return [];
    return [
      {
        type: 'SiteShareLinkCreated',
        data: {
          ...about,
          shareLinkId: command.shareLinkId,
          key: command.key,
          name: command.name,
          createdBy: command.by,
          createdAt: command.now,
        },
      },
    ];
  },
  UpdateShareLink: (command, state, { about }) => {
    const link = state.shareLinks.get(command.shareLinkId);
    if (!link) return DomainError.notFound(`no share link ${command.shareLinkId} in site ${command.siteId}`);
    const changes = Object.fromEntries(
      Object.entries(command.changes).filter(([member, value]) => value !== undefined && link[member as keyof typeof link] !== value),
    ) as SiteShareLinkChanges;
    if (Object.keys(changes).length === 0) return [];
    return [{ type: 'SiteShareLinkUpdated', data: { ...about, shareLinkId: command.shareLinkId, changes, updatedAt: command.now } }];
  },
  DeleteShareLink: (command, state, { about }) => {
    if (!state.shareLinks.has(command.shareLinkId))
      return DomainError.notFound(`no share link ${command.shareLinkId} in site ${command.siteId}`);
    return [{ type: 'SiteShareLinkDeleted', data: { ...about, shareLinkId: command.shareLinkId, deletedAt: command.now } }];
  },
};

export const shareLinkEvolution: SiteEvolution<'SiteShareLinkCreated' | 'SiteShareLinkUpdated' | 'SiteShareLinkDeleted'> = {
  SiteShareLinkCreated: (state, event) => ({
    ...state,
    shareLinks: new Map(state.shareLinks).set(event.data.shareLinkId, { name: event.data.name, active: true }),
  }),
  SiteShareLinkUpdated: (state, event) => {
    const link = state.shareLinks.get(event.data.shareLinkId)!;
    return { ...state, shareLinks: new Map(state.shareLinks).set(event.data.shareLinkId, { ...link, ...event.data.changes }) };
  },
  SiteShareLinkDeleted: (state, event) => ({ ...state, shareLinks: without(state.shareLinks, event.data.shareLinkId) }),
};
