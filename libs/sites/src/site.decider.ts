import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import { siteRole } from './site.permissions';
import type { SiteDefaultLevel, SiteEvent } from './site.events';
import { sectionEvolution, sectionRules } from './site-sections.decider';
import { shareLinkEvolution, shareLinkRules } from './site-share-links.decider';
import { siteSpaceEvolution, siteSpaceRules } from './site-spaces.decider';
import {
  scopeOf,
  uniquePath,
  type Acting,
  type SiteCommand,
  type SiteEvolution,
  type SiteEvolver,
  type SiteRule,
  type SiteRules,
  type SiteState,
} from './site-state.decider';

export {
  placed,
  scopeOf,
  siteStream,
  uniquePath,
  type GroupAnchor,
  type GroupPosition,
  type Position,
  type SectionState,
  type SiteCommand,
  type SiteSpaceState,
  type SiteState,
} from './site-state.decider';
export { siteHostnameDecider, siteHostnameStream, type SiteHostnameCommand, type SiteHostnameState } from './site-hostnames.decider';

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

/** A new site, with the spaces it starts with at its root (the first one its default). */
function createSite(command: Extract<SiteCommand, { kind: 'CreateSite' }>, state: SiteState): SiteEvent[] | DomainError {
  if (state.site) return [];
  if (!command.allowed) return DomainError.forbidden('creating a site needs the create role in the organization');
  const about = { siteId: command.siteId, organizationId: command.organizationId };
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

/** The site itself: its settings, publishing, deletion, visitor authentication, adaptive schema, and the spaces leaving it. */
const siteRules: SiteRules<
  'UpdateSite' | 'PublishSite' | 'DeleteSite' | 'ConfigureVisitorAuth' | 'RotateVisitorKey' | 'SetAdaptiveSchema' | 'RemoveSpaceFromSite'
> = {
  UpdateSite: (command, state, { about }) => {
    const events: SiteEvent[] = [];
    if (Object.keys(command.changes).length > 0)
      events.push({ type: 'SiteUpdated', data: { ...about, changes: command.changes, updatedAt: command.now } });
    if (command.defaultSiteSection !== undefined && command.defaultSiteSection !== state.defaultSection) {
      if (!state.sections.has(command.defaultSiteSection))
        return DomainError.notFound(`no section ${command.defaultSiteSection} in site ${command.siteId}`);
      events.push({ type: 'SiteDefaultSectionSet', data: { ...about, sectionId: command.defaultSiteSection } });
    }
    if (command.defaultSiteSpace !== undefined) {
      const siteSpace = state.siteSpaces.get(command.defaultSiteSpace);
      const defaultScope = command.defaultSiteSection ?? state.defaultSection;
      if (!siteSpace) return DomainError.notFound(`no site space ${command.defaultSiteSpace} in site ${command.siteId}`);
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
  },
  PublishSite: (command, _state, { site, about }) => {
    if (site.published === command.published) return [];
    return [
      command.published
        ? { type: 'SitePublished', data: { ...about, publishedAt: command.now } }
        : { type: 'SiteUnpublished', data: { ...about, unpublishedAt: command.now } },
    ];
  },
  DeleteSite: (command, _state, { about }) => [{ type: 'SiteDeleted', data: { ...about, deletedAt: command.now } }],
  ConfigureVisitorAuth: (command, _state, { about }) => {
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
  },
  RotateVisitorKey: (command, _state, { site, about }) => [
    { type: 'SiteVisitorKeyRotated', data: { ...about, keyGeneration: site.keyGeneration + 1, rotatedAt: command.now } },
  ],
  SetAdaptiveSchema: (command, _state, { about }) => [
    { type: 'SiteAdaptiveSchemaSet', data: { ...about, jsonSchema: command.jsonSchema, updatedAt: command.now } },
  ],
  RemoveSpaceFromSite: (command, state) => {
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
  },
};

const siteEvolution: SiteEvolution<
  | 'SiteCreated'
  | 'SiteUpdated'
  | 'SiteVisitorAuthConfigured'
  | 'SiteVisitorKeyRotated'
  | 'SitePublished'
  | 'SiteUnpublished'
  | 'SiteDeleted'
  | 'SiteAdaptiveSchemaSet'
> = {
  SiteCreated: (state, event) => ({
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
  }),
  SiteUpdated: (state, event) => {
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
  },
  SiteVisitorAuthConfigured: (state) => state,
  SiteVisitorKeyRotated: (state, event) => ({ ...state, site: { ...state.site!, keyGeneration: event.data.keyGeneration } }),
  SitePublished: (state) => ({ ...state, site: { ...state.site!, published: true } }),
  SiteUnpublished: (state) => ({ ...state, site: { ...state.site!, published: false } }),
  SiteDeleted: (state) => ({ ...state, site: { ...state.site!, deleted: true } }),
  SiteAdaptiveSchemaSet: (state) => state,
};

type ChangeKind = Exclude<SiteCommand['kind'], 'CreateSite'>;
// Typed as every kind and every event type: a kind or a type no part decides or evolves does not compile.
const RULES: SiteRules<ChangeKind> = { ...siteRules, ...sectionRules, ...siteSpaceRules, ...shareLinkRules };
const EVOLUTION: SiteEvolution<SiteEvent['type']> = { ...siteEvolution, ...sectionEvolution, ...siteSpaceEvolution, ...shareLinkEvolution };
const ruleOf = <K extends ChangeKind>(kind: K): SiteRule<K> => RULES[kind];
const evolutionOf = <T extends SiteEvent['type']>(type: T): SiteEvolver<T> => EVOLUTION[type];

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
  evolve: (state, event) => evolutionOf(event.type)(state, event),
  decide: (command, state) => {
    if (command.kind === 'CreateSite') return createSite(command, state);
    const site = changeableSite(command, state);
    if (site instanceof DomainError) return site;
    return ruleOf(command.kind)(command, state, { site, about: { siteId: command.siteId, organizationId: site.organizationId } });
  },
};
