import { multiDocumentProjection, type ProjectedDoc, type Recorded } from '#read-store/projections/projection';
import type { SpaceEvent } from '#spaces';
import { scopeOf } from './site.decider';
import type { SiteDefaultLevel, SiteEvent, SiteIcon, SiteType, SiteVisibility } from './site.events';

export const SITES = 'sites';

export interface SectionDoc {
  id: string;
  title: string;
  path: string;
  icon: string | null;
  description: string | null;
  condition: string | null;
  /** The section group it belongs to, if any. */
  sectionGroup?: string | null;
  /** Not live: left out of the published site (absent: live). */
  draft?: boolean;
}

export interface SectionGroupDoc {
  id: string;
  title: string;
  icon: string | null;
  draft?: boolean;
}

export interface SiteSpaceDoc {
  id: string;
  spaceId: string;
  sectionId: string | null;
  path: string;
  condition: string | null;
  draft?: boolean;
  /** Left out of the site's navigation, still served at its URL. */
  hidden?: boolean;
  /** The site's own title for it (absent or null: its space's title). */
  title?: string | null;
  /** The page shown at its root (absent or null: the space's first page). */
  pageId?: string | null;
}

export interface SiteShareLinkDoc {
  id: string;
  /** The secret a reader presents as `shareKey`. */
  key: string;
  name: string;
  active: boolean;
  createdAt: string;
}

/** A site with its whole structure: one document, as one stream decides it. */
export interface SiteDoc extends ProjectedDoc {
  organizationId: string;
  type: SiteType;
  title: string;
  visibility: SiteVisibility;
  basename: string | null;
  adaptiveContent: { enabled: boolean };
  agentsContext: 'excluded' | 'included';
  proxy: string | null;
  published: boolean;
  createdAt: string;
  updatedAt: string;
  sections: SectionDoc[];
  siteSpaces: SiteSpaceDoc[];
  defaultSection: string | null;
  /** Default site space per scope (`''` the root, else the section id). */
  defaultSiteSpace: Record<string, string>;
  /** Section groups, in the order they were added (a group shows where its first section is). */
  groups?: SectionGroupDoc[];
  adaptiveSchema?: { jsonSchema: Record<string, unknown>; updatedAt: string } | null;
  /** The spaces the site shows (the `space` filter of the list). */
  spaceIds: string[];
  hostname?: string | null;
  icon?: SiteIcon | null;
  /** Absent on sites created before it was kept: `inherit`. */
  defaultLevel?: SiteDefaultLevel;
  /** The space holding the site's style guide. */
  styleguide?: string | null;
  shareLinks?: SiteShareLinkDoc[];
  /** Visitor authentication: the generation of the site's HS256 key, the JWKS URL of RS256 keys and the issuer their tokens must name (absent: any). */
  visitorAuth?: { jwksUrl: string | null; issuer?: string | null; keyGeneration: number };
  /** Revision of the `site-<id>` stream: the ETag. */
  streamRevision: number;
  deleted?: true;
}

const spaceIdsOf = (siteSpaces: readonly SiteSpaceDoc[]) => [...new Set(siteSpaces.map((siteSpace) => siteSpace.spaceId))];

/** The sites' read model: one document per site, with its structure in order. */
export const siteProjection = multiDocumentProjection<SiteEvent | SpaceEvent>({
  name: 'sites',
  collections: [SITES],
  indexes: [
    { collection: SITES, fields: { organizationId: 1, createdAt: 1 } },
    { collection: SITES, fields: { spaceIds: 1 } },
    { collection: SITES, fields: { hostname: 1 } },
  ],
  handles: [
    'SiteCreated',
    'SiteUpdated',
    'SitePublished',
    'SiteUnpublished',
    'SiteDeleted',
    'SiteSectionAdded',
    'SiteSectionUpdated',
    'SiteSectionRemoved',
    'SiteDefaultSectionSet',
    'SiteSpaceAdded',
    'SiteSpaceUpdated',
    'SiteSpaceRemoved',
    'SiteDefaultSiteSpaceSet',
    'SiteRootSpacesSectioned',
    'SiteStructureSorted',
    'SiteSectionGroupAdded',
    'SiteSectionGroupUpdated',
    'SiteSectionGroupRemoved',
    'SiteSectionGrouped',
    'SiteSectionUngrouped',
    'SiteAdaptiveSchemaSet',
    'SiteShareLinkCreated',
    'SiteShareLinkUpdated',
    'SiteShareLinkDeleted',
    'SiteVisitorAuthConfigured',
    'SiteVisitorKeyRotated',
  ],
  guard: (event) => ({ collection: SITES, id: (event.data as { siteId: string }).siteId }),
  async apply(event: Recorded<SiteEvent | SpaceEvent>, documents) {
    const sites = documents.collection<SiteDoc>(SITES);
    const data = event.data as SiteEvent['data'];
    if (event.type === 'SiteCreated') {
      const { siteId, organizationId, type, title, visibility, createdAt } = event.data;
      await sites.put({
        _id: siteId,
        organizationId,
        type,
        title,
        visibility,
        basename: null,
        adaptiveContent: { enabled: false },
        agentsContext: 'excluded',
        proxy: null,
        published: false,
        createdAt,
        updatedAt: createdAt,
        sections: [],
        siteSpaces: [],
        defaultSection: null,
        defaultSiteSpace: {},
        spaceIds: [],
        streamRevision: event.revision,
      });
      return;
    }
    const site = await sites.get(data.siteId);
    if (!site) return;
    let next: SiteDoc = { ...site, streamRevision: event.revision };
    switch (event.type) {
      case 'SiteUpdated': {
        const { proxy, ...changes } = event.data.changes;
        next = { ...next, ...changes, ...(proxy !== undefined ? { proxy } : {}), updatedAt: event.data.updatedAt };
        break;
      }
      case 'SitePublished':
        next = { ...next, published: true, updatedAt: event.data.publishedAt };
        break;
      case 'SiteUnpublished':
        next = { ...next, published: false, updatedAt: event.data.unpublishedAt };
        break;
      case 'SiteDeleted':
        next = { ...next, deleted: true, updatedAt: event.data.deletedAt };
        break;
      case 'SiteSectionAdded': {
        const { sectionId, title, icon, path } = event.data;
        next = {
          ...next,
          sections: [
            ...next.sections,
            { id: sectionId, title, path, icon, description: null, condition: null, ...(event.data.draft ? { draft: true } : {}) },
          ],
          ...(event.data.default ? { defaultSection: sectionId } : {}),
        };
        break;
      }
      case 'SiteSectionUpdated':
        next = {
          ...next,
          sections: next.sections.map((section) => (section.id === event.data.sectionId ? { ...section, ...event.data.changes } : section)),
        };
        break;
      case 'SiteSectionRemoved': {
        const { sectionId } = event.data;
        const { [sectionId]: _dropped, ...defaults } = next.defaultSiteSpace;
        next = {
          ...next,
          sections: next.sections.filter((section) => section.id !== sectionId),
          siteSpaces: next.siteSpaces.filter((siteSpace) => siteSpace.sectionId !== sectionId),
          defaultSiteSpace: defaults,
          defaultSection: next.defaultSection === sectionId ? null : next.defaultSection,
        };
        break;
      }
      case 'SiteDefaultSectionSet':
        next = { ...next, defaultSection: event.data.sectionId };
        break;
      case 'SiteSpaceAdded': {
        const { siteSpaceId, spaceId, sectionId, path, draft, title, pageId } = event.data;
        const siteSpace: SiteSpaceDoc = {
          id: siteSpaceId,
          spaceId,
          sectionId,
          path,
          condition: null,
          ...(draft ? { draft } : {}),
          ...(title !== undefined ? { title } : {}),
          ...(pageId !== undefined ? { pageId } : {}),
        };
        next = {
          ...next,
          siteSpaces: [...next.siteSpaces, siteSpace],
          ...(event.data.default ? { defaultSiteSpace: { ...next.defaultSiteSpace, [scopeOf(sectionId)]: siteSpaceId } } : {}),
        };
        break;
      }
      case 'SiteRootSpacesSectioned': {
        const { sectionId } = event.data;
        const { '': rootDefault, ...defaults } = next.defaultSiteSpace;
        next = {
          ...next,
          siteSpaces: next.siteSpaces.map((siteSpace) => (siteSpace.sectionId === null ? { ...siteSpace, sectionId } : siteSpace)),
          defaultSiteSpace: rootDefault !== undefined ? { ...defaults, [sectionId]: rootDefault } : defaults,
        };
        break;
      }
      case 'SiteSpaceUpdated':
        next = {
          ...next,
          siteSpaces: next.siteSpaces.map((siteSpace) =>
            siteSpace.id === event.data.siteSpaceId ? { ...siteSpace, ...event.data.changes } : siteSpace,
          ),
        };
        break;
      case 'SiteSpaceRemoved': {
        const removed = next.siteSpaces.find((siteSpace) => siteSpace.id === event.data.siteSpaceId);
        const defaults = { ...next.defaultSiteSpace };
        if (removed && defaults[scopeOf(removed.sectionId)] === removed.id) delete defaults[scopeOf(removed.sectionId)];
        next = {
          ...next,
          siteSpaces: next.siteSpaces.filter((siteSpace) => siteSpace.id !== event.data.siteSpaceId),
          defaultSiteSpace: defaults,
        };
        break;
      }
      case 'SiteDefaultSiteSpaceSet':
        next = { ...next, defaultSiteSpace: { ...next.defaultSiteSpace, [scopeOf(event.data.sectionId)]: event.data.siteSpaceId } };
        break;
      case 'SiteStructureSorted': {
        const rank = (order: readonly string[] | undefined, id: string) => (order ? order.indexOf(id) : -1);
        const sections =
          event.data.sections.length > 0
            ? [...next.sections].sort((a, b) => rank(event.data.sections, a.id) - rank(event.data.sections, b.id))
            : next.sections;
        // Each sorted scope's site spaces take, in the new order, the places they held in the list.
        let siteSpaces = next.siteSpaces;
        for (const [scope, order] of Object.entries(event.data.siteSpaces)) {
          const inScope = siteSpaces
            .filter((siteSpace) => scopeOf(siteSpace.sectionId) === scope)
            .sort((a, b) => rank(order, a.id) - rank(order, b.id));
          let taken = 0;
          siteSpaces = siteSpaces.map((siteSpace) => (scopeOf(siteSpace.sectionId) === scope ? inScope[taken++] : siteSpace));
        }
        next = { ...next, sections, siteSpaces };
        break;
      }
    }
    const grouped = (sectionIds: readonly string[], groupId: string | null) =>
      next.sections.map((section) => (sectionIds.includes(section.id) ? { ...section, sectionGroup: groupId } : section));
    switch (event.type) {
      case 'SiteSectionGroupAdded':
        next = {
          ...next,
          groups: [
            ...(next.groups ?? []),
            { id: event.data.groupId, title: event.data.title, icon: event.data.icon, ...(event.data.draft ? { draft: true } : {}) },
          ],
          sections: grouped(event.data.sections, event.data.groupId),
        };
        break;
      case 'SiteSectionGroupUpdated':
        next = {
          ...next,
          groups: (next.groups ?? []).map((group) => (group.id === event.data.groupId ? { ...group, ...event.data.changes } : group)),
        };
        break;
      case 'SiteSectionGroupRemoved': {
        const groupId = event.data.groupId;
        next = {
          ...next,
          groups: (next.groups ?? []).filter((group) => group.id !== groupId),
          sections: next.sections.map((section) => (section.sectionGroup === groupId ? { ...section, sectionGroup: null } : section)),
        };
        break;
      }
      case 'SiteSectionGrouped':
        next = { ...next, sections: grouped([event.data.sectionId], event.data.groupId) };
        break;
      case 'SiteSectionUngrouped':
        next = { ...next, sections: grouped([event.data.sectionId], null) };
        break;
      case 'SiteAdaptiveSchemaSet':
        next = { ...next, adaptiveSchema: { jsonSchema: event.data.jsonSchema, updatedAt: event.data.updatedAt } };
        break;
      case 'SiteShareLinkCreated': {
        const { shareLinkId, key, name, createdAt } = event.data;
        next = { ...next, shareLinks: [...(next.shareLinks ?? []), { id: shareLinkId, key, name, active: true, createdAt }] };
        break;
      }
      case 'SiteShareLinkUpdated':
        next = {
          ...next,
          shareLinks: (next.shareLinks ?? []).map((link) =>
            link.id === event.data.shareLinkId ? { ...link, ...event.data.changes } : link,
          ),
        };
        break;
      case 'SiteShareLinkDeleted':
        next = { ...next, shareLinks: (next.shareLinks ?? []).filter((link) => link.id !== event.data.shareLinkId) };
        break;
      case 'SiteVisitorAuthConfigured':
        next = {
          ...next,
          visitorAuth: {
            keyGeneration: next.visitorAuth?.keyGeneration ?? 0,
            jwksUrl: event.data.jwksUrl,
            issuer: event.data.issuer ?? null,
          },
        };
        break;
      case 'SiteVisitorKeyRotated':
        next = {
          ...next,
          visitorAuth: {
            jwksUrl: next.visitorAuth?.jwksUrl ?? null,
            issuer: next.visitorAuth?.issuer ?? null,
            keyGeneration: event.data.keyGeneration,
          },
        };
        break;
    }
    await sites.put({ ...next, spaceIds: spaceIdsOf(next.siteSpaces) });
  },
});
