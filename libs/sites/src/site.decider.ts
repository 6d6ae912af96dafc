import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import type { OrganizationRole } from '#platform/permissions';
import { hostnameShapeProblem, inVerifiedDomain } from './site.hostnames';
import { pathOf } from './site.paths';
import { siteRole } from './site.permissions';
import type {
  SiteChanges,
  SiteDefaultLevel,
  SiteEvent,
  SiteHostnameEvent,
  SiteSectionChanges,
  SiteShareLinkChanges,
  SiteSpaceChanges,
  SiteType,
  SiteVisibility,
} from './site.events';

export const siteStream = (siteId: string) => `site-${siteId}`;
export const siteHostnameStream = (hostname: string) => `sitehostname-${hostname}`;

export interface SectionState {
  title: string;
  path: string;
}

export interface SiteSpaceState {
  spaceId: string;
  sectionId: string | null;
  path: string;
}

export interface SiteState {
  site: null | {
    organizationId: string;
    title: string;
    defaultLevel: SiteDefaultLevel;
    deleted: boolean;
    published: boolean;
    hostname: string | null;
    keyGeneration: number;
  };
  sections: ReadonlyMap<string, SectionState>;
  siteSpaces: ReadonlyMap<string, SiteSpaceState>;
  /** Sections in order; the default section. */
  sectionOrder: readonly string[];
  defaultSection: string | null;
  /** Site spaces in order per scope (`''` the root, else the section id); each scope's default. */
  spaceOrder: Readonly<Record<string, readonly string[]>>;
  defaultSiteSpace: Readonly<Record<string, string>>;
  /** Section groups and the group of each grouped section. */
  groups: ReadonlySet<string>;
  groupOf: Readonly<Record<string, string>>;
  /** Share links by id. */
  shareLinks: ReadonlyMap<string, { name: string; active: boolean }>;
}

/** The scope a site space sits in: its section, or the root. */
export const scopeOf = (sectionId: string | null) => sectionId ?? '';

/** Where to put an item among its siblings: before or after another, or at the end (null: the platform's "no position"). */
export type Position = { before: string } | { after: string } | null;

/** What a section group is placed by: a section outside it, or another group (placed where its sections are). */
export interface GroupAnchor {
  type: 'site-section' | 'site-section-group';
  id: string;
}
export type GroupPosition = { before: GroupAnchor } | { after: GroupAnchor } | null;

interface Acting {
  siteId: string;
  /** The organization the request names: a site of another organization is not found. */
  organizationId: string;
  /**
   * Allowed whatever the site's settings: the caller administers the site's organization (or, for
   * creation, may create content there), or the service acts itself.
   */
  allowed: boolean;
  /** The caller's organization role: the site's `defaultLevel` may raise it to the site's admin role. */
  role?: OrganizationRole;
  now: string;
}

export type SiteCommand =
  | (Acting & {
      kind: 'CreateSite';
      type: SiteType;
      title: string;
      visibility: SiteVisibility;
      by: string;
      siteSpaces: Array<{ siteSpaceId: string; spaceId: string; path: string }>;
    })
  | (Acting & { kind: 'UpdateSite'; changes: SiteChanges; defaultSiteSpace?: string; defaultSiteSection?: string })
  | (Acting & { kind: 'PublishSite'; published: boolean })
  | (Acting & { kind: 'DeleteSite' })
  /**
   * A section with the space as its first site space, in `groupId` when given. On a site without
   * sections whose root shows site spaces, `rootSectionId` names the section that first takes them
   * (titled after the site), so that what the site published stays published.
   */
  | (Acting & {
      kind: 'AddSection';
      sectionId: string;
      title: string;
      icon: string | null;
      path: string;
      draft: boolean;
      groupId?: string;
      rootSectionId: string;
      siteSpace: { siteSpaceId: string; spaceId: string; path: string; pageId?: string };
    })
  /** `group`: the section group to move the section into; null takes it out of its group. */
  | (Acting & { kind: 'UpdateSection'; sectionId: string; changes: SiteSectionChanges; defaultSiteSpace?: string; group?: string | null })
  | (Acting & { kind: 'RemoveSection'; sectionId: string })
  | (Acting & { kind: 'MoveSection'; sectionId: string; position: Position })
  | (Acting & {
      kind: 'AddSiteSpace';
      siteSpaceId: string;
      spaceId: string;
      sectionId: string | undefined;
      path: string;
      draft?: boolean;
      title?: string;
      pageId?: string;
    })
  | (Acting & { kind: 'UpdateSiteSpace'; siteSpaceId: string; changes: SiteSpaceChanges })
  | (Acting & { kind: 'RemoveSiteSpace'; siteSpaceId: string })
  | (Acting & { kind: 'MoveSiteSpace'; siteSpaceId: string; position: Position })
  /** `parent`: a group to nest the new one in (the service keeps groups at the root: refused). */
  | (Acting & {
      kind: 'AddSectionGroup';
      groupId: string;
      title: string;
      icon: string | null;
      sections: string[];
      draft?: boolean;
      parent?: string;
    })
  /** `parent`: null keeps the group at the root; a group id would nest it (refused). */
  | (Acting & {
      kind: 'UpdateSectionGroup';
      groupId: string;
      changes: { title?: string; icon?: string | null; draft?: boolean };
      parent?: string | null;
    })
  | (Acting & { kind: 'RemoveSectionGroup'; groupId: string })
  | (Acting & { kind: 'GroupSection'; groupId: string; sectionId: string })
  | (Acting & { kind: 'UngroupSection'; groupId: string; sectionId: string })
  | (Acting & { kind: 'SetAdaptiveSchema'; jsonSchema: Record<string, unknown> })
  | (Acting & { kind: 'MoveSectionGroup'; groupId: string; position: GroupPosition })
  /** The whole order at once: every section exactly once (groups' sections together, as grouped), and for each scope listed, exactly its site spaces. */
  | (Acting & { kind: 'SortStructure'; sections: Array<{ id: string; group: string | null }>; siteSpaces: Record<string, string[]> })
  | (Acting & { kind: 'CreateShareLink'; shareLinkId: string; key: string; name: string; by: string })
  | (Acting & { kind: 'UpdateShareLink'; shareLinkId: string; changes: SiteShareLinkChanges })
  | (Acting & { kind: 'DeleteShareLink'; shareLinkId: string })
  | (Acting & { kind: 'ConfigureVisitorAuth'; jwksUrl: string | null; issuer: string | null })
  | (Acting & { kind: 'RotateVisitorKey' })
  /** A space left the organization's live spaces (deleted, purged or transferred): its site spaces go, and sections left empty (issued by the site-spaces reactors, not a person). */
  | (Acting & { kind: 'RemoveSpaceFromSite'; spaceId: string });

/** `path` made unique among `taken` by a numeric suffix. */
export function uniquePath(path: string, taken: ReadonlySet<string>): string {
  if (!taken.has(path)) return path;
  for (let n = 2; ; n += 1) if (!taken.has(`${path}-${n}`)) return `${path}-${n}`;
}

/**
 * `order` with `id` moved to `position` (the end when null); unchanged when the position names
 * `id` itself (before or after itself is where it is); null when it names an item not in the order.
 */
export function placed(order: readonly string[], id: string, position: Position): string[] | null {
  const rest = order.filter((item) => item !== id);
  if (position === null) return [...rest, id];
  const anchor = 'before' in position ? position.before : position.after;
  if (anchor === id) return order.includes(id) ? [...order] : null;
  const index = rest.indexOf(anchor);
  if (index < 0) return null;
  rest.splice('before' in position ? index : index + 1, 0, id);
  return rest;
}

const sameOrder = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/** Whether the caller administers the site: allowed outright, or their organization role as the site's default level raises it. */
const administers = (command: Acting, defaultLevel: SiteDefaultLevel) =>
  command.allowed || siteRole(command.role ?? null, defaultLevel) === 'admin';

/**
 * The site a command may change, or why not: 404 unless it is a live site of the organization the
 * request names, 403 unless the caller administers it. Checked before anything else, If-Match
 * included, so that a refusal never depends on (and never reveals) the site's revision.
 */
export function changeableSite(command: SiteCommand, state: SiteState): NonNullable<SiteState['site']> | DomainError {
  const site = state.site;
  if (!site || site.deleted || site.organizationId !== command.organizationId) return DomainError.notFound(`no site ${command.siteId}`);
  if (!administers(command, site.defaultLevel)) return DomainError.forbidden(`only admins of site ${command.siteId} may change it`);
  return site;
}

/** The refusal of a section group named as another one's parent: 404 when there is no such group, else 400 (groups stay at the site's root). */
function nestingRefusal(parent: string, groups: ReadonlySet<string>, siteId: string): DomainError {
  if (!groups.has(parent)) return DomainError.notFound(`no section group ${parent} in site ${siteId}`);
  return DomainError.invalid(`section groups cannot be nested: section group ${parent} cannot hold another group`);
}

const without = <T>(map: ReadonlyMap<string, T>, key: string) => {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
};

export const siteDecider: Decider<SiteCommand, SiteEvent, SiteState> = {
  initialState: () => ({
    site: null,
    sections: new Map(),
    siteSpaces: new Map(),
    sectionOrder: [],
    defaultSection: null,
    spaceOrder: {},
    defaultSiteSpace: {},
    groups: new Set(),
    groupOf: {},
    shareLinks: new Map(),
  }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'SiteCreated':
        return {
          ...state,
          site: {
            organizationId: event.data.organizationId,
            title: event.data.title,
            defaultLevel: 'inherit',
            deleted: false,
            published: false,
            hostname: null,
            keyGeneration: 0,
          },
        };
      case 'SiteUpdated': {
        const { hostname, title, defaultLevel } = event.data.changes;
        const site = state.site!;
        return {
          ...state,
          site: {
            ...site,
            hostname: hostname !== undefined ? hostname : site.hostname,
            title: title ?? site.title,
            defaultLevel: defaultLevel !== undefined ? defaultLevel : site.defaultLevel,
          },
        };
      }
      case 'SiteShareLinkCreated':
        return { ...state, shareLinks: new Map(state.shareLinks).set(event.data.shareLinkId, { name: event.data.name, active: true }) };
      case 'SiteShareLinkUpdated': {
        const link = state.shareLinks.get(event.data.shareLinkId)!;
        return { ...state, shareLinks: new Map(state.shareLinks).set(event.data.shareLinkId, { ...link, ...event.data.changes }) };
      }
      case 'SiteShareLinkDeleted':
        return { ...state, shareLinks: without(state.shareLinks, event.data.shareLinkId) };
      case 'SiteVisitorAuthConfigured':
        return state;
      case 'SiteVisitorKeyRotated':
        return { ...state, site: { ...state.site!, keyGeneration: event.data.keyGeneration } };
      case 'SitePublished':
        return { ...state, site: { ...state.site!, published: true } };
      case 'SiteUnpublished':
        return { ...state, site: { ...state.site!, published: false } };
      case 'SiteDeleted':
        return { ...state, site: { ...state.site!, deleted: true } };
      case 'SiteSectionAdded': {
        const { sectionId, title, path } = event.data;
        return {
          ...state,
          sections: new Map(state.sections).set(sectionId, { title, path }),
          sectionOrder: [...state.sectionOrder, sectionId],
          defaultSection: event.data.default ? sectionId : state.defaultSection,
        };
      }
      case 'SiteSectionUpdated': {
        const section = state.sections.get(event.data.sectionId)!;
        const { title, path } = event.data.changes;
        return {
          ...state,
          sections: new Map(state.sections).set(event.data.sectionId, { title: title ?? section.title, path: path ?? section.path }),
        };
      }
      case 'SiteSectionRemoved': {
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
      }
      case 'SiteDefaultSectionSet':
        return { ...state, defaultSection: event.data.sectionId };
      case 'SiteSpaceAdded': {
        const { siteSpaceId, spaceId, sectionId, path } = event.data;
        const scope = scopeOf(sectionId);
        return {
          ...state,
          siteSpaces: new Map(state.siteSpaces).set(siteSpaceId, { spaceId, sectionId, path }),
          spaceOrder: { ...state.spaceOrder, [scope]: [...(state.spaceOrder[scope] ?? []), siteSpaceId] },
          defaultSiteSpace: event.data.default ? { ...state.defaultSiteSpace, [scope]: siteSpaceId } : state.defaultSiteSpace,
        };
      }
      case 'SiteSpaceUpdated': {
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
      }
      case 'SiteSpaceRemoved': {
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
      }
      case 'SiteDefaultSiteSpaceSet':
        return { ...state, defaultSiteSpace: { ...state.defaultSiteSpace, [scopeOf(event.data.sectionId)]: event.data.siteSpaceId } };
      case 'SiteRootSpacesSectioned': {
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
      }
      case 'SiteStructureSorted':
        return {
          ...state,
          sectionOrder: event.data.sections.length > 0 ? event.data.sections : state.sectionOrder,
          spaceOrder: { ...state.spaceOrder, ...event.data.siteSpaces },
        };
      case 'SiteSectionGroupAdded': {
        const groupOf = { ...state.groupOf };
        for (const sectionId of event.data.sections) groupOf[sectionId] = event.data.groupId;
        return { ...state, groups: new Set(state.groups).add(event.data.groupId), groupOf };
      }
      case 'SiteSectionGroupUpdated':
      case 'SiteAdaptiveSchemaSet':
        return state;
      case 'SiteSectionGroupRemoved': {
        const groups = new Set(state.groups);
        groups.delete(event.data.groupId);
        return {
          ...state,
          groups,
          groupOf: Object.fromEntries(Object.entries(state.groupOf).filter(([, groupId]) => groupId !== event.data.groupId)),
        };
      }
      case 'SiteSectionGrouped':
        return { ...state, groupOf: { ...state.groupOf, [event.data.sectionId]: event.data.groupId } };
      case 'SiteSectionUngrouped': {
        const { [event.data.sectionId]: _left, ...groupOf } = state.groupOf;
        return { ...state, groupOf };
      }
    }
  },
  decide: (command, state) => {
    const id = command.siteId;
    if (command.kind === 'CreateSite') {
      if (state.site) return [];
      if (!command.allowed) return DomainError.forbidden('creating a site needs the create role in the organization');
      const about = { siteId: id, organizationId: command.organizationId };
      const events: SiteEvent[] = [
        {
          type: 'SiteCreated',
          data: {
            ...about,
            type: command.type,
            title: command.title,
            visibility: command.visibility,
            createdBy: command.by,
            createdAt: command.now,
          },
        },
      ];
      const taken = new Set<string>();
      command.siteSpaces.forEach((siteSpace, index) => {
        const path = uniquePath(siteSpace.path, taken);
        taken.add(path);
        events.push({
          type: 'SiteSpaceAdded',
          data: {
            ...about,
            siteSpaceId: siteSpace.siteSpaceId,
            spaceId: siteSpace.spaceId,
            sectionId: null,
            path,
            default: index === 0,
            addedAt: command.now,
          },
        });
      });
      return events;
    }
    const site = changeableSite(command, state);
    if (site instanceof DomainError) return site;
    const about = { siteId: id, organizationId: site.organizationId };
    const scopePaths = (scope: string, except?: string) =>
      new Set((state.spaceOrder[scope] ?? []).filter((other) => other !== except).map((other) => state.siteSpaces.get(other)!.path));
    const sectionPaths = (except?: string) =>
      new Set([...state.sections].filter(([other]) => other !== except).map(([, section]) => section.path));
    switch (command.kind) {
      case 'UpdateSite': {
        const events: SiteEvent[] = [];
        if (Object.keys(command.changes).length > 0)
          events.push({ type: 'SiteUpdated', data: { ...about, changes: command.changes, updatedAt: command.now } });
        if (command.defaultSiteSection !== undefined && command.defaultSiteSection !== state.defaultSection) {
          if (!state.sections.has(command.defaultSiteSection))
            return DomainError.notFound(`no section ${command.defaultSiteSection} in site ${id}`);
          events.push({ type: 'SiteDefaultSectionSet', data: { ...about, sectionId: command.defaultSiteSection } });
        }
        if (command.defaultSiteSpace !== undefined) {
          const siteSpace = state.siteSpaces.get(command.defaultSiteSpace);
          const defaultScope = command.defaultSiteSection ?? state.defaultSection;
          if (!siteSpace) return DomainError.notFound(`no site space ${command.defaultSiteSpace} in site ${id}`);
          if (siteSpace.sectionId !== null && siteSpace.sectionId !== defaultScope)
            return DomainError.invalid(
              `defaultSiteSpace must be at the root or in the default section; ${command.defaultSiteSpace} is in section ${siteSpace.sectionId}`,
            );
          if (state.defaultSiteSpace[scopeOf(siteSpace.sectionId)] !== command.defaultSiteSpace)
            events.push({
              type: 'SiteDefaultSiteSpaceSet',
              data: { ...about, siteSpaceId: command.defaultSiteSpace, sectionId: siteSpace.sectionId },
            });
        }
        return events;
      }
      case 'PublishSite':
        if (site.published === command.published) return [];
        return [
          command.published
            ? { type: 'SitePublished', data: { ...about, publishedAt: command.now } }
            : { type: 'SiteUnpublished', data: { ...about, unpublishedAt: command.now } },
        ];
      case 'DeleteSite':
        return [{ type: 'SiteDeleted', data: { ...about, deletedAt: command.now } }];
      case 'AddSection': {
        if (state.sections.has(command.sectionId)) return [];
        if (command.groupId !== undefined && !state.groups.has(command.groupId))
          return DomainError.notFound(`no section group ${command.groupId} in site ${id}`);
        const events: SiteEvent[] = [];
        const taken = sectionPaths();
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
      }
      case 'UpdateSection': {
        const section = state.sections.get(command.sectionId);
        if (!section) return DomainError.notFound(`no section ${command.sectionId} in site ${id}`);
        if (command.changes.path !== undefined && sectionPaths(command.sectionId).has(command.changes.path))
          return DomainError.conflict(`another section of site ${id} has the path ${command.changes.path}`);
        if (typeof command.group === 'string' && !state.groups.has(command.group))
          return DomainError.notFound(`no section group ${command.group} in site ${id}`);
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
      }
      case 'RemoveSection': {
        if (!state.sections.has(command.sectionId)) return DomainError.notFound(`no section ${command.sectionId} in site ${id}`);
        const events: SiteEvent[] = [
          { type: 'SiteSectionRemoved', data: { ...about, sectionId: command.sectionId, removedAt: command.now } },
        ];
        // The default goes to the next section: a site with sections always has one default.
        const next = state.sectionOrder.find((other) => other !== command.sectionId);
        if (state.defaultSection === command.sectionId && next !== undefined)
          events.push({ type: 'SiteDefaultSectionSet', data: { ...about, sectionId: next } });
        return events;
      }
      case 'MoveSection': {
        if (!state.sections.has(command.sectionId)) return DomainError.notFound(`no section ${command.sectionId} in site ${id}`);
        const order = placed(state.sectionOrder, command.sectionId, command.position);
        if (!order) return DomainError.invalid('position must name a section of the site');
        if (sameOrder(order, state.sectionOrder)) return [];
        return [{ type: 'SiteStructureSorted', data: { ...about, sections: order, siteSpaces: {} } }];
      }
      case 'AddSiteSpace': {
        if (state.siteSpaces.has(command.siteSpaceId)) return [];
        const sectionId = command.sectionId ?? state.defaultSection;
        if (sectionId !== null && !state.sections.has(sectionId)) return DomainError.notFound(`no section ${sectionId} in site ${id}`);
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
              path: uniquePath(command.path, scopePaths(scope)),
              default: (state.spaceOrder[scope] ?? []).length === 0,
              ...(draft ? { draft } : {}),
              ...(title !== undefined ? { title } : {}),
              ...(pageId !== undefined ? { pageId } : {}),
              addedAt: command.now,
            },
          },
        ];
      }
      case 'UpdateSiteSpace': {
        const siteSpace = state.siteSpaces.get(command.siteSpaceId);
        if (!siteSpace) return DomainError.notFound(`no site space ${command.siteSpaceId} in site ${id}`);
        if (command.changes.path !== undefined && scopePaths(scopeOf(siteSpace.sectionId), command.siteSpaceId).has(command.changes.path))
          return DomainError.conflict(`another site space of that section has the path ${command.changes.path}`);
        if (Object.keys(command.changes).length === 0) return [];
        // Other content: the custom home page of the previous space goes unless a new one is given.
        const changes =
          command.changes.spaceId !== undefined && command.changes.spaceId !== siteSpace.spaceId && command.changes.pageId === undefined
            ? { ...command.changes, pageId: null }
            : command.changes;
        return [{ type: 'SiteSpaceUpdated', data: { ...about, siteSpaceId: command.siteSpaceId, changes, updatedAt: command.now } }];
      }
      case 'RemoveSiteSpace': {
        const siteSpace = state.siteSpaces.get(command.siteSpaceId);
        if (!siteSpace) return DomainError.notFound(`no site space ${command.siteSpaceId} in site ${id}`);
        const scope = scopeOf(siteSpace.sectionId);
        const events: SiteEvent[] = [
          { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: command.siteSpaceId, removedAt: command.now } },
        ];
        // The scope keeps a default while it has site spaces: the next one takes over.
        const next = (state.spaceOrder[scope] ?? []).find((other) => other !== command.siteSpaceId);
        if (state.defaultSiteSpace[scope] === command.siteSpaceId && next !== undefined)
          events.push({ type: 'SiteDefaultSiteSpaceSet', data: { ...about, siteSpaceId: next, sectionId: siteSpace.sectionId } });
        return events;
      }
      case 'AddSectionGroup': {
        if (state.groups.has(command.groupId)) return [];
        if (command.parent !== undefined) return nestingRefusal(command.parent, state.groups, id);
        const unknown = command.sections.find((sectionId) => !state.sections.has(sectionId));
        if (unknown !== undefined) return DomainError.notFound(`no section ${unknown} in site ${id}`);
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
      }
      case 'UpdateSectionGroup':
        if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${id}`);
        if (typeof command.parent === 'string') return nestingRefusal(command.parent, state.groups, id);
        if (Object.keys(command.changes).length === 0) return [];
        return [
          {
            type: 'SiteSectionGroupUpdated',
            data: { ...about, groupId: command.groupId, changes: command.changes, updatedAt: command.now },
          },
        ];
      case 'RemoveSectionGroup':
        if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${id}`);
        return [{ type: 'SiteSectionGroupRemoved', data: { ...about, groupId: command.groupId, removedAt: command.now } }];
      case 'GroupSection':
        if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${id}`);
        if (!state.sections.has(command.sectionId)) return DomainError.notFound(`no section ${command.sectionId} in site ${id}`);
        if (state.groupOf[command.sectionId] === command.groupId) return [];
        return [{ type: 'SiteSectionGrouped', data: { ...about, groupId: command.groupId, sectionId: command.sectionId } }];
      case 'UngroupSection':
        if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${id}`);
        if (state.groupOf[command.sectionId] !== command.groupId)
          return DomainError.notFound(`section ${command.sectionId} is not in section group ${command.groupId}`);
        return [{ type: 'SiteSectionUngrouped', data: { ...about, groupId: command.groupId, sectionId: command.sectionId } }];
      case 'MoveSectionGroup': {
        if (!state.groups.has(command.groupId)) return DomainError.notFound(`no section group ${command.groupId} in site ${id}`);
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
            if (!state.groups.has(anchor.id)) return DomainError.notFound(`no section group ${anchor.id} in site ${id}`);
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
      }
      case 'SortStructure': {
        const listed = command.sections.map((section) => section.id);
        if (command.sections.length > 0 || state.sections.size > 0) {
          if (
            new Set(listed).size !== listed.length ||
            listed.length !== state.sections.size ||
            listed.some((sectionId) => !state.sections.has(sectionId))
          ) {
            return DomainError.invalid(`structure must list every section of site ${id} exactly once`);
          }
          const misplaced = command.sections.find((section) => (state.groupOf[section.id] ?? null) !== section.group);
          if (misplaced)
            return DomainError.invalid(
              `section ${misplaced.id} is listed ${misplaced.group ? `in group ${misplaced.group}` : 'outside any group'}, which is not where it is`,
            );
        }
        for (const [scope, order] of Object.entries(command.siteSpaces)) {
          const actual = state.spaceOrder[scope] ?? [];
          if (scope !== '' && !state.sections.has(scope)) return DomainError.notFound(`no section ${scope} in site ${id}`);
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
      }
      case 'CreateShareLink':
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
      case 'UpdateShareLink': {
        const link = state.shareLinks.get(command.shareLinkId);
        if (!link) return DomainError.notFound(`no share link ${command.shareLinkId} in site ${id}`);
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(([member, value]) => value !== undefined && link[member as keyof typeof link] !== value),
        ) as SiteShareLinkChanges;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'SiteShareLinkUpdated', data: { ...about, shareLinkId: command.shareLinkId, changes, updatedAt: command.now } }];
      }
      case 'DeleteShareLink':
        if (!state.shareLinks.has(command.shareLinkId)) return DomainError.notFound(`no share link ${command.shareLinkId} in site ${id}`);
        return [{ type: 'SiteShareLinkDeleted', data: { ...about, shareLinkId: command.shareLinkId, deletedAt: command.now } }];
      case 'ConfigureVisitorAuth':
        // The issuer is checked on tokens of the JWKS URL's keys only: the site's own key has no other holder.
        if (command.issuer !== null && command.jwksUrl === null)
          return DomainError.invalid('issuer applies to tokens signed with the keys of a jwksUrl: set jwksUrl too');
        return [
          {
            type: 'SiteVisitorAuthConfigured',
            data: {
              ...about,
              jwksUrl: command.jwksUrl,
              ...(command.issuer !== null ? { issuer: command.issuer } : {}),
              updatedAt: command.now,
            },
          },
        ];
      case 'RotateVisitorKey':
        return [{ type: 'SiteVisitorKeyRotated', data: { ...about, keyGeneration: site.keyGeneration + 1, rotatedAt: command.now } }];
      case 'RemoveSpaceFromSite': {
        // Each site space of the space goes as RemoveSiteSpace would remove it, defaults moving on; a
        // section it leaves without site spaces goes as RemoveSection would (it would show nothing).
        // Once the space is gone from the site, deciding again appends nothing.
        const events: SiteEvent[] = [];
        let current = state;
        const apply = (removal: SiteEvent[] | DomainError): DomainError | null => {
          if (removal instanceof DomainError) return removal;
          for (const event of removal) current = siteDecider.evolve(current, event);
          events.push(...removal);
          return null;
        };
        const leftSections = new Set<string>();
        for (const [siteSpaceId, siteSpace] of state.siteSpaces) {
          if (siteSpace.spaceId !== command.spaceId) continue;
          if (siteSpace.sectionId !== null) leftSections.add(siteSpace.sectionId);
          const refused = apply(siteDecider.decide({ ...command, kind: 'RemoveSiteSpace', siteSpaceId }, current));
          if (refused) return refused;
        }
        for (const sectionId of leftSections) {
          if ((current.spaceOrder[sectionId] ?? []).length > 0) continue;
          const refused = apply(siteDecider.decide({ ...command, kind: 'RemoveSection', sectionId }, current));
          if (refused) return refused;
        }
        return events;
      }
      case 'SetAdaptiveSchema':
        return [{ type: 'SiteAdaptiveSchemaSet', data: { ...about, jsonSchema: command.jsonSchema, updatedAt: command.now } }];
      case 'MoveSiteSpace': {
        const siteSpace = state.siteSpaces.get(command.siteSpaceId);
        if (!siteSpace) return DomainError.notFound(`no site space ${command.siteSpaceId} in site ${id}`);
        const scope = scopeOf(siteSpace.sectionId);
        const current = state.spaceOrder[scope] ?? [];
        const order = placed(current, command.siteSpaceId, command.position);
        if (!order) return DomainError.invalid('position must name a site space of the same section');
        if (sameOrder(order, current)) return [];
        return [{ type: 'SiteStructureSorted', data: { ...about, sections: [...state.sectionOrder], siteSpaces: { [scope]: order } } }];
      }
    }
  },
};

// ---- hostname claim ---------------------------------------------------------------------------

export interface SiteHostnameState {
  holder: string | null;
}

export type SiteHostnameCommand =
  /** `verifiedDomains`: the domains the site's organization has verified (looked up by the handler). */
  | { kind: 'ClaimSiteHostname'; hostname: string; siteId: string; organizationId: string; verifiedDomains: readonly string[] }
  | { kind: 'ReleaseSiteHostname'; hostname: string; siteId: string };

/**
 * One custom hostname names one site at a time: claimed before the site takes it, released when the
 * site lets it go. Only a host name (no IP literal) in a domain the site's organization verified
 * may be claimed, so no organization can take, or block, another's name.
 */
export const siteHostnameDecider: Decider<SiteHostnameCommand, SiteHostnameEvent, SiteHostnameState> = {
  initialState: () => ({ holder: null }),
  evolve: (_state, event) => ({ holder: event.type === 'SiteHostnameClaimed' ? event.data.siteId : null }),
  decide(command, state) {
    if (command.kind === 'ClaimSiteHostname') {
      const shape = hostnameShapeProblem(command.hostname);
      if (shape !== null) return DomainError.invalid(shape);
      if (!inVerifiedDomain(command.hostname, command.verifiedDomains)) {
        return DomainError.forbidden(
          `hostname ${command.hostname} is not in a domain organization ${command.organizationId} has verified: verify the domain (POST /v1/orgs/${command.organizationId}/verified-domains) first`,
        );
      }
      if (state.holder === command.siteId) return [];
      if (state.holder !== null) return DomainError.conflict(`hostname '${command.hostname}' is taken by another site`);
      return [{ type: 'SiteHostnameClaimed', data: { hostname: command.hostname, siteId: command.siteId } }];
    }
    if (state.holder !== command.siteId) return [];
    return [{ type: 'SiteHostnameReleased', data: { hostname: command.hostname, siteId: command.siteId } }];
  },
};
