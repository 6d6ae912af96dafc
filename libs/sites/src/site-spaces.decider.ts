import { DomainError } from '#platform/errors';
import type { SiteEvent } from './site.events';
import { placed, sameOrder, scopeOf, uniquePath, without, type SiteEvolution, type SiteRules, type SiteState } from './site-state.decider';

// A site's site spaces: the spaces it shows, at its root or in its sections, each scope in its order with its default.

/** The paths of the site spaces of a scope, `except` one. */
const scopePaths = (state: SiteState, scope: string, except?: string) =>
  new Set((state.spaceOrder[scope] ?? []).filter((other) => other !== except).map((other) => state.siteSpaces.get(other)!.path));

export const siteSpaceRules: SiteRules<'AddSiteSpace' | 'UpdateSiteSpace' | 'RemoveSiteSpace' | 'MoveSiteSpace'> = {
  AddSiteSpace: (command, state, { about }) => {
    if (state.siteSpaces.has(command.siteSpaceId)) return [];
    const sectionId = command.sectionId ?? state.defaultSection;
    if (sectionId !== null && !state.sections.has(sectionId))
      return DomainError.notFound(`no section ${sectionId} in site ${command.siteId}`);
    const scope = scopeOf(sectionId);
    const { draft, title, pageId } = command;
    return [
      {
        type: 'SiteSpaceAdded',
        data: {
          ...about,
          siteSpaceId: command.siteSpaceId,
          spaceId: command.spaceId,
          sectionId,
          path: uniquePath(command.path, scopePaths(state, scope)),
          default: (state.spaceOrder[scope] ?? []).length === 0,
          ...(draft ? { draft } : {}),
          ...(title !== undefined ? { title } : {}),
          ...(pageId !== undefined ? { pageId } : {}),
          addedAt: command.now,
        },
      },
    ];
  },
  UpdateSiteSpace: (command, state, { about }) => {
    const siteSpace = state.siteSpaces.get(command.siteSpaceId);
    if (!siteSpace) return DomainError.notFound(`no site space ${command.siteSpaceId} in site ${command.siteId}`);
    if (
      command.changes.path !== undefined &&
      scopePaths(state, scopeOf(siteSpace.sectionId), command.siteSpaceId).has(command.changes.path)
    )
      return DomainError.conflict(`another site space of that section has the path ${command.changes.path}`);
    if (Object.keys(command.changes).length === 0) return [];
    // Other content: the custom home page of the previous space goes unless a new one is given.
    const changes =
      command.changes.spaceId !== undefined && command.changes.spaceId !== siteSpace.spaceId && command.changes.pageId === undefined
        ? { ...command.changes, pageId: null }
        : command.changes;
    return [{ type: 'SiteSpaceUpdated', data: { ...about, siteSpaceId: command.siteSpaceId, changes, updatedAt: command.now } }];
  },
  RemoveSiteSpace: (command, state, { about }) => {
    const siteSpace = state.siteSpaces.get(command.siteSpaceId);
    if (!siteSpace) return DomainError.notFound(`no site space ${command.siteSpaceId} in site ${command.siteId}`);
    const scope = scopeOf(siteSpace.sectionId);
    const events: SiteEvent[] = [
      { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: command.siteSpaceId, removedAt: command.now } },
    ];
    // The scope keeps a default while it has site spaces: the next one takes over.
    const next = (state.spaceOrder[scope] ?? []).find((other) => other !== command.siteSpaceId);
    if (state.defaultSiteSpace[scope] === command.siteSpaceId && next !== undefined)
      events.push({ type: 'SiteDefaultSiteSpaceSet', data: { ...about, siteSpaceId: next, sectionId: siteSpace.sectionId } });
    return events;
  },
  MoveSiteSpace: (command, state, { about }) => {
    const siteSpace = state.siteSpaces.get(command.siteSpaceId);
    if (!siteSpace) return DomainError.notFound(`no site space ${command.siteSpaceId} in site ${command.siteId}`);
    const scope = scopeOf(siteSpace.sectionId);
    const current = state.spaceOrder[scope] ?? [];
    const order = placed(current, command.siteSpaceId, command.position);
    if (!order) return DomainError.invalid('position must name a site space of the same section');
    if (sameOrder(order, current)) return [];
    return [{ type: 'SiteStructureSorted', data: { ...about, sections: [...state.sectionOrder], siteSpaces: { [scope]: order } } }];
  },
};

export const siteSpaceEvolution: SiteEvolution<
  'SiteSpaceAdded' | 'SiteSpaceUpdated' | 'SiteSpaceRemoved' | 'SiteDefaultSiteSpaceSet' | 'SiteRootSpacesSectioned'
> = {
  SiteSpaceAdded: (state, event) => {
    const { siteSpaceId, spaceId, sectionId, path } = event.data;
    const scope = scopeOf(sectionId);
    return {
      ...state,
      siteSpaces: new Map(state.siteSpaces).set(siteSpaceId, { spaceId, sectionId, path }),
      spaceOrder: { ...state.spaceOrder, [scope]: [...(state.spaceOrder[scope] ?? []), siteSpaceId] },
      defaultSiteSpace: event.data.default ? { ...state.defaultSiteSpace, [scope]: siteSpaceId } : state.defaultSiteSpace,
    };
  },
  SiteSpaceUpdated: (state, event) => {
    const siteSpace = state.siteSpaces.get(event.data.siteSpaceId)!;
    const { path, spaceId } = event.data.changes;
    return {
      ...state,
      siteSpaces: new Map(state.siteSpaces).set(event.data.siteSpaceId, {
        ...siteSpace,
        path: path ?? siteSpace.path,
        spaceId: spaceId ?? siteSpace.spaceId,
      }),
    };
  },
  SiteSpaceRemoved: (state, event) => {
    const siteSpace = state.siteSpaces.get(event.data.siteSpaceId)!;
    const scope = scopeOf(siteSpace.sectionId);
    const defaults = { ...state.defaultSiteSpace };
    if (defaults[scope] === event.data.siteSpaceId) delete defaults[scope];
    return {
      ...state,
      siteSpaces: without(state.siteSpaces, event.data.siteSpaceId),
      spaceOrder: { ...state.spaceOrder, [scope]: (state.spaceOrder[scope] ?? []).filter((id) => id !== event.data.siteSpaceId) },
      defaultSiteSpace: defaults,
    };
  },
  SiteDefaultSiteSpaceSet: (state, event) => ({
    ...state,
    defaultSiteSpace: { ...state.defaultSiteSpace, [scopeOf(event.data.sectionId)]: event.data.siteSpaceId },
  }),
  SiteRootSpacesSectioned: (state, event) => {
    const { sectionId } = event.data;
    const { '': rootOrder = [], ...spaceOrder } = state.spaceOrder;
    const { '': rootDefault, ...defaultSiteSpace } = state.defaultSiteSpace;
    const siteSpaces = new Map(
      [...state.siteSpaces].map(([id, siteSpace]) => [id, siteSpace.sectionId === null ? { ...siteSpace, sectionId } : siteSpace]),
    );
    return {
      ...state,
      siteSpaces,
      spaceOrder: { ...spaceOrder, [sectionId]: [...rootOrder, ...(spaceOrder[sectionId] ?? [])] },
      defaultSiteSpace: rootDefault !== undefined ? { ...defaultSiteSpace, [sectionId]: rootDefault } : defaultSiteSpace,
    };
  },
};
