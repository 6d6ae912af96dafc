import { DomainError } from '#platform/errors';
import { pathOf } from './site.paths';
import type { SiteEvent } from './site.events';
import { placed, sameOrder, uniquePath, without, type SiteEvolution, type SiteRules, type SiteState } from './site-state.decider';

// A site's sections, their groups, and the order of its structure.

/** The paths of the site's sections, `except` one. */
const sectionPaths = (state: SiteState, except?: string) =>
  new Set([...state.sections].filter(([other]) => other !== except).map(([, section]) => section.path));

/** The refusal of a section group named as another one's parent: 404 when there is no such group, else 400 (groups stay at the site's root). */
function nestingRefusal(parent: string, groups: ReadonlySet<string>, siteId: string): DomainError {
  if (!groups.has(parent)) return DomainError.notFound(`no section group ${parent} in site ${siteId}`);
  return DomainError.invalid(`section groups cannot be nested: section group ${parent} cannot hold another group`);
}

export const sectionRules: SiteRules<
  | 'AddSection'
  | 'UpdateSection'
  | 'RemoveSection'
  | 'MoveSection'
  | 'AddSectionGroup'
  | 'UpdateSectionGroup'
  | 'RemoveSectionGroup'
  | 'GroupSection'
  | 'UngroupSection'
  | 'MoveSectionGroup'
  | 'SortStructure'
> = {
  AddSection: (command, state, { site, about }) => {
    if (state.sections.has(command.sectionId)) return [];
    if (command.groupId !== undefined && !state.groups.has(command.groupId))
      return DomainError.notFound(`no section group ${command.groupId} in site ${command.siteId}`);
    const events: SiteEvent[] = [];
    const taken = sectionPaths(state);
    // The site's root content becomes its first section (the default, served where the root was).
    if (state.sections.size === 0 && (state.spaceOrder[''] ?? []).length > 0) {
      const path = uniquePath(pathOf(site.title), taken);
      taken.add(path);
      events.push(
        {
          type: 'SiteSectionAdded',
          data: {
            ...about,
            sectionId: command.rootSectionId,
            title: site.title,
            icon: null,
            path,
            default: true,
            addedAt: command.now,
          },
        },
        { type: 'SiteRootSpacesSectioned', data: { ...about, sectionId: command.rootSectionId } },
      );
    }
    const isDefault = state.defaultSection === null && events.length === 0;
    const { siteSpaceId, spaceId, path, pageId } = command.siteSpace;
    events.push(
      {
        type: 'SiteSectionAdded',
        data: {
          ...about,
          sectionId: command.sectionId,
          title: command.title,
          icon: command.icon,
          path: uniquePath(command.path, taken),
          default: isDefault,
          ...(command.draft ? { draft: true } : {}),
          addedAt: command.now,
        },
      },
      {
        type: 'SiteSpaceAdded',
        data: {
          ...about,
          siteSpaceId,
          spaceId,
          sectionId: command.sectionId,
          path,
          default: true,
          ...(pageId !== undefined ? { pageId } : {}),
          addedAt: command.now,
        },
      },
    );
    if (command.groupId !== undefined)
      events.push({ type: 'SiteSectionGrouped', data: { ...about, groupId: command.groupId, sectionId: command.sectionId } });
    return events;
  },
  UpdateSection: (command, state, { about }) => {
    const section = state.sections.get(command.sectionId);
    if (!section) return DomainError.notFound(`no section ${command.sectionId} in site ${command.siteId}`);
    if (command.changes.path !== undefined && sectionPaths(state, command.sectionId).has(command.changes.path))
      return DomainError.conflict(`another section of site ${command.siteId} has the path ${command.changes.path}`);
    if (typeof command.group === 'string' && !state.groups.has(command.group))
      return DomainError.notFound(`no section group ${command.group} in site ${command.siteId}`);
    const events: SiteEvent[] = [];
    if (Object.keys(command.changes).length > 0)
      events.push({
        type: 'SiteSectionUpdated',
        data: { ...about, sectionId: command.sectionId, changes: command.changes, updatedAt: command.now },
      });
    if (command.defaultSiteSpace !== undefined) {
      const siteSpace = state.siteSpaces.get(command.defaultSiteSpace);
      if (!siteSpace || siteSpace.sectionId !== command.sectionId)
        return DomainError.notFound(`no site space ${command.defaultSiteSpace} in section ${command.sectionId}`);
      if (state.defaultSiteSpace[command.sectionId] !== command.defaultSiteSpace)
        events.push({
          type: 'SiteDefaultSiteSpaceSet',
          data: { ...about, siteSpaceId: command.defaultSiteSpace, sectionId: command.sectionId },
        });
    }
    const currentGroup = state.groupOf[command.sectionId];
    if (typeof command.group === 'string' && currentGroup !== command.group)
      events.push({ type: 'SiteSectionGrouped', data: { ...about, groupId: command.group, sectionId: command.sectionId } });
    if (command.group === null && currentGroup !== undefined)
      events.push({ type: 'SiteSectionUngrouped', data: { ...about, groupId: currentGroup, sectionId: command.sectionId } });
    return events;
  },
  RemoveSection: (command, state, { about }) => {
    if (!state.sections.has(command.sectionId)) return DomainError.notFound(`no section ${command.sectionId} in site ${command.siteId}`);
    const events: SiteEvent[] = [{ type: 'SiteSectionRemoved', data: { ...about, sectionId: command.sectionId, removedAt: command.now } }];
    // The default goes to the next section: a site with sections always has one default.
    const next = state.sectionOrder.find((other) => other !== command.sectionId);
    if (state.defaultSection === command.sectionId && next !== undefined)
      events.push({ type: 'SiteDefaultSectionSet', data: { ...about, sectionId: next } });
    return events;
  },
  MoveSection: (command, state, { about }) => {
    if (!state.sections.has(command.sectionId)) return DomainError.notFound(`no section ${command.sectionId} in site ${command.siteId}`);
    const order = placed(state.sectionOrder, command.sectionId, command.position);
    if (!order) return DomainError.invalid('position must name a section of the site');
    if (sameOrder(order, state.sectionOrder)) return [];
    return [{ type: 'SiteStructureSorted', data: { ...about, sections: order, siteSpaces: {} } }];
  },
  AddSectionGroup: (command, state, { about }) => {
    if (state.groups.has(command.groupId)) return [];
    if (command.parent !== undefined) return nestingRefusal(command.parent, state.groups, command.siteId);
    const unknown = command.sections.find((sectionId) => !state.sections.has(sectionId));
    if (unknown !== undefined) return DomainError.notFound(`no section ${unknown} in site ${command.siteId}`);
    return [
      {
        type: 'SiteSectionGroupAdded',
        data: {
          ...about,
          groupId: command.groupId,
          title: command.title,
          icon: command.icon,
          sections: [...new Set(command.sections)],
          ...(command.draft ? { draft: true } : {}),
          addedAt: command.now,
        },
      },
    ];
  },
  UpdateSectionGroup: (command, state, { about }) => {
    if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${command.siteId}`);
    if (typeof command.parent === 'string') return nestingRefusal(command.parent, state.groups, command.siteId);
    if (Object.keys(command.changes).length === 0) return [];
    return [
      {
        type: 'SiteSectionGroupUpdated',
        data: { ...about, groupId: command.groupId, changes: command.changes, updatedAt: command.now },
      },
    ];
  },
  RemoveSectionGroup: (command, state, { about }) => {
    if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${command.siteId}`);
    return [{ type: 'SiteSectionGroupRemoved', data: { ...about, groupId: command.groupId, removedAt: command.now } }];
  },
  GroupSection: (command, state, { about }) => {
    if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${command.siteId}`);
    if (!state.sections.has(command.sectionId)) return DomainError.notFound(`no section ${command.sectionId} in site ${command.siteId}`);
    if (state.groupOf[command.sectionId] === command.groupId) return [];
    return [{ type: 'SiteSectionGrouped', data: { ...about, groupId: command.groupId, sectionId: command.sectionId } }];
  },
  UngroupSection: (command, state, { about }) => {
    if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${command.siteId}`);
    if (state.groupOf[command.sectionId] !== command.groupId)
      return DomainError.notFound(`section ${command.sectionId} is not in section group ${command.groupId}`);
    return [{ type: 'SiteSectionUngrouped', data: { ...about, groupId: command.groupId, sectionId: command.sectionId } }];
  },
  MoveSectionGroup: (command, state, { about }) => {
    if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${command.siteId}`);
    // The group's sections move as one block, before or after another section or another group's block.
    const block = state.sectionOrder.filter((sectionId) => state.groupOf[sectionId] === command.groupId);
    const rest = state.sectionOrder.filter((sectionId) => state.groupOf[sectionId] !== command.groupId);
    let at = rest.length;
    if (command.position !== null) {
      const before = 'before' in command.position;
      const anchor = 'before' in command.position ? command.position.before : command.position.after;
      // Before or after itself, or one of its own sections, is where the group is.
      if (anchor.type === 'site-section-group' ? anchor.id === command.groupId : block.includes(anchor.id)) return [];
      if (anchor.type === 'site-section-group') {
        if (!state.groups.has(anchor.id)) return DomainError.notFound(`no section group ${anchor.id} in site ${command.siteId}`);
        const indexes = rest.flatMap((sectionId, index) => (state.groupOf[sectionId] === anchor.id ? [index] : []));
        if (indexes.length === 0) return DomainError.invalid(`section group ${anchor.id} has no sections to place a group by`);
        at = before ? indexes[0] : indexes[indexes.length - 1] + 1;
      } else {
        const index = rest.indexOf(anchor.id);
        if (index < 0) return DomainError.invalid('position must name a section or a section group of the site');
        at = before ? index : index + 1;
      }
    }
    const order = [...rest.slice(0, at), ...block, ...rest.slice(at)];
    if (sameOrder(order, state.sectionOrder)) return [];
    return [{ type: 'SiteStructureSorted', data: { ...about, sections: order, siteSpaces: {} } }];
  },
  SortStructure: (command, state, { about }) => {
    const listed = command.sections.map((section) => section.id);
    if (command.sections.length > 0 || state.sections.size > 0) {
      if (
        new Set(listed).size !== listed.length ||
        listed.length !== state.sections.size ||
        listed.some((sectionId) => !state.sections.has(sectionId))
      ) {
        return DomainError.invalid(`structure must list every section of site ${command.siteId} exactly once`);
      }
      const misplaced = command.sections.find((section) => (state.groupOf[section.id] ?? null) !== section.group);
      if (misplaced)
        return DomainError.invalid(
          `section ${misplaced.id} is listed ${misplaced.group ? `in group ${misplaced.group}` : 'outside any group'}, which is not where it is`,
        );
    }
    for (const [scope, order] of Object.entries(command.siteSpaces)) {
      const actual = state.spaceOrder[scope] ?? [];
      if (scope !== '' && !state.sections.has(scope)) return DomainError.notFound(`no section ${scope} in site ${command.siteId}`);
      if (
        new Set(order).size !== order.length ||
        order.length !== actual.length ||
        order.some((siteSpaceId) => !actual.includes(siteSpaceId))
      ) {
        return DomainError.invalid(
          `structure must list every site space of ${scope === '' ? 'the root' : `section ${scope}`} exactly once`,
        );
      }
    }
    return [{ type: 'SiteStructureSorted', data: { ...about, sections: listed, siteSpaces: command.siteSpaces } }];
  },
};

export const sectionEvolution: SiteEvolution<
  | 'SiteSectionAdded'
  | 'SiteSectionUpdated'
  | 'SiteSectionRemoved'
  | 'SiteDefaultSectionSet'
  | 'SiteStructureSorted'
  | 'SiteSectionGroupAdded'
  | 'SiteSectionGroupUpdated'
  | 'SiteSectionGroupRemoved'
  | 'SiteSectionGrouped'
  | 'SiteSectionUngrouped'
> = {
  SiteSectionAdded: (state, event) => {
    const { sectionId, title, path } = event.data;
    return {
      ...state,
      sections: new Map(state.sections).set(sectionId, { title, path }),
      sectionOrder: [...state.sectionOrder, sectionId],
      defaultSection: event.data.default ? sectionId : state.defaultSection,
    };
  },
  SiteSectionUpdated: (state, event) => {
    const section = state.sections.get(event.data.sectionId)!;
    const { title, path } = event.data.changes;
    return {
      ...state,
      sections: new Map(state.sections).set(event.data.sectionId, { title: title ?? section.title, path: path ?? section.path }),
    };
  },
  SiteSectionRemoved: (state, event) => {
    const { sectionId } = event.data;
    const siteSpaces = new Map([...state.siteSpaces].filter(([, siteSpace]) => siteSpace.sectionId !== sectionId));
    const { [sectionId]: _order, ...spaceOrder } = state.spaceOrder;
    const { [sectionId]: _default, ...defaultSiteSpace } = state.defaultSiteSpace;
    const { [sectionId]: _group, ...groupOf } = state.groupOf;
    return {
      ...state,
      groupOf,
      sections: without(state.sections, sectionId),
      siteSpaces,
      sectionOrder: state.sectionOrder.filter((id) => id !== sectionId),
      defaultSection: state.defaultSection === sectionId ? null : state.defaultSection,
      spaceOrder,
      defaultSiteSpace,
    };
  },
  SiteDefaultSectionSet: (state, event) => ({ ...state, defaultSection: event.data.sectionId }),
  SiteStructureSorted: (state, event) => ({
    ...state,
    sectionOrder: event.data.sections.length > 0 ? event.data.sections : state.sectionOrder,
    spaceOrder: { ...state.spaceOrder, ...event.data.siteSpaces },
  }),
  SiteSectionGroupAdded: (state, event) => {
    const groupOf = { ...state.groupOf };
    for (const sectionId of event.data.sections) groupOf[sectionId] = event.data.groupId;
    return { ...state, groups: new Set(state.groups).add(event.data.groupId), groupOf };
  },
  SiteSectionGroupUpdated: (state) => state,
  SiteSectionGroupRemoved: (state, event) => {
    const groups = new Set(state.groups);
    groups.delete(event.data.groupId);
    return {
      ...state,
      groups,
      groupOf: Object.fromEntries(Object.entries(state.groupOf).filter(([, groupId]) => groupId !== event.data.groupId)),
    };
  },
  SiteSectionGrouped: (state, event) => ({ ...state, groupOf: { ...state.groupOf, [event.data.sectionId]: event.data.groupId } }),
  SiteSectionUngrouped: (state, event) => {
    const { [event.data.sectionId]: _left, ...groupOf } = state.groupOf;
    return { ...state, groupOf };
  },
};
