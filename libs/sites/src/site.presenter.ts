import type { Versioned } from '#platform/http/etag';
import { DomainError } from '#platform/errors';
import type { SiteSpaces } from './sites.needs';
import type { Viewer } from './site.access';
import { scopeOf } from './site.decider';
import { INHERITED_LEVEL, sitePermissions, siteRole } from './site.permissions';
import type { SectionDoc, SectionGroupDoc, SiteDoc, SiteShareLinkDoc, SiteSpaceDoc } from './site.projections';
import { publishedCustomization } from './published/site-html.appearance';
import { sectionUrl, siteSpaceUrl } from './published/site-html.site';

/*
 * How the site reads present a site and its parts (site.queries.ts, site-sections.queries.ts,
 * site-spaces.queries.ts, site-share-links.queries.ts): the objects of the interface, as one viewer
 * sees them.
 */

/** A site's adaptive schema before one is set: no claims. */
const DEFAULT_ADAPTIVE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {},
  additionalProperties: false,
};

/** `page` and `limit` over a list held in one document: the page token is an offset. */
export function pageOf<T>(items: readonly T[], paging: { page?: string; limit?: number }) {
  if (paging.page !== undefined && !/^\d{1,6}$/.test(paging.page)) throw DomainError.invalid('page is not a page token of this list');
  const start = paging.page === undefined ? 0 : Number(paging.page);
  const limit = paging.limit ?? 100;
  return {
    items: items.slice(start, start + limit),
    count: items.length,
    next: start + limit < items.length ? String(start + limit) : undefined,
  };
}

/**
 * Every part of a site (sections, groups, site spaces, share links, settings) lives in the site's
 * stream: its revision is the ETag of each, and what a write of any of them names in If-Match.
 */
export const versioned = <T>(site: SiteDoc, object: T): Versioned<T> => ({ object, streamRevision: site.streamRevision });

// ---- presenting -------------------------------------------------------------------------------------

/** What presenting a site needs: the service's public URL, and the spaces the site spaces embed. */
export interface Presenting {
  publicUrl: string;
  spaces: SiteSpaces;
}

/** The published site's address: `/sites/{siteId}`, and its basename. */
function publishedBase(site: SiteDoc): string {
  return `/sites/${site._id}${site.basename ? `/${site.basename}` : ''}`;
}

function publishedUrl(site: SiteDoc, publicUrl: string): string {
  return `${publicUrl}${publishedBase(site)}`;
}

/**
 * A Site. `urls.preview` is the site as it stands, drafts and unpublished changes included
 * (`GET …/structure`, for members); `urls.published` only while the site is published. `features`
 * is empty: the service has no plans, every feature is there on every type.
 */
export function presentSite(site: SiteDoc, viewer: Viewer, publicUrl: string) {
  const location = `${publicUrl}/v1/orgs/${site.organizationId}/sites/${site._id}`;
  const member = viewer.member !== null;
  return {
    object: 'site' as const,
    id: site._id,
    type: site.type,
    appliedType: site.type,
    title: site.title,
    ...(site.icon ? { icon: site.icon } : {}),
    ...(site.hostname ? { hostname: site.hostname } : {}),
    ...(site.basename !== null ? { basename: site.basename } : {}),
    // The proxy's address is what readers ask for; requests there go on to the site's published address here.
    ...(site.proxy !== null ? { proxy: { origin: site.proxy, target: publishedUrl(site, publicUrl) } } : {}),
    visibility: site.visibility,
    defaultLevel: site.defaultLevel === undefined ? INHERITED_LEVEL : site.defaultLevel,
    permissions: sitePermissions({ member, organizationRole: viewer.role, siteRole: siteRole(viewer.role, site.defaultLevel) }),
    published: site.published,
    siteSpaces: site.siteSpaces.length,
    createdAt: site.createdAt,
    adaptiveContent: site.adaptiveContent,
    ...(site.styleguide ? { styleguide: { kind: 'space' as const, space: site.styleguide } } : {}),
    agentsContext: site.agentsContext,
    features: [],
    urls: {
      location,
      app: `${publicUrl}/o/${site.organizationId}/sites/${site._id}`,
      preview: `${location}/structure`,
      ...(site.published ? { published: publishedUrl(site, publicUrl) } : {}),
    },
  };
}

export type SiteView = ReturnType<typeof presentSite>;
export type SiteSectionView = Awaited<ReturnType<typeof presentSection>>;
export type SiteSectionGroupView = Awaited<ReturnType<typeof presentGroup>>;
export type SiteSpaceView = Awaited<ReturnType<typeof presentSiteSpace>>;
export type SiteStructureView = Awaited<ReturnType<typeof presentStructure>>;
export type ShareLinkView = ReturnType<typeof presentShareLink>;
export type PublishedSiteView = Awaited<ReturnType<typeof presentPublishedSite>>;
export type VisitorAuthView = ReturnType<typeof presentVisitorAuth>;
export type AdaptiveSchemaView = ReturnType<typeof adaptiveSchemaOf>['object'];

export function presentShareLink(site: SiteDoc, link: SiteShareLinkDoc, publicUrl: string) {
  return {
    object: 'share-link' as const,
    id: link.id,
    name: link.name,
    key: link.key,
    active: link.active,
    createdAt: link.createdAt,
    urls: {
      location: `${publicUrl}/v1/orgs/${site.organizationId}/sites/${site._id}/share-links/${link.id}`,
      published: `${publishedUrl(site, publicUrl)}?shareKey=${link.key}`,
    },
  };
}

/** Where something of the site is published: only while the site is, and only what is live. */
function publishedAt(site: SiteDoc, live: boolean, path: (base: string) => string, publicUrl: string): { published?: string } {
  return site.published && live ? { published: `${publicUrl}${path(publishedBase(site))}` } : {};
}

export async function presentSection(site: SiteDoc, section: SectionDoc, viewer: Viewer, presenting: Presenting) {
  const siteSpaces = site.siteSpaces.filter((siteSpace) => siteSpace.sectionId === section.id);
  const draft = section.draft === true;
  const groupDraft = section.sectionGroup
    ? (site.groups ?? []).some((group) => group.id === section.sectionGroup && group.draft === true)
    : false;
  return {
    object: 'site-section' as const,
    id: section.id,
    title: section.title,
    ...(section.description !== null ? { description: section.description } : {}),
    default: site.defaultSection === section.id,
    draft,
    path: section.path,
    ...(section.condition !== null ? { condition: section.condition } : {}),
    ...(section.icon !== null ? { icon: section.icon } : {}),
    ...(section.sectionGroup ? { sectionGroup: section.sectionGroup } : {}),
    siteSpaces: await Promise.all(siteSpaces.map((siteSpace) => presentSiteSpace(site, siteSpace, viewer, presenting))),
    urls: publishedAt(site, !draft && !groupDraft, (base) => sectionUrl(base, site, section), presenting.publicUrl),
  };
}

/** A section group: `children` are its sections (groups are not nested here); `sections`, the platform's older name for them, the same. */
export async function presentGroup(site: SiteDoc, group: SectionGroupDoc, viewer: Viewer, presenting: Presenting) {
  const sections = await Promise.all(
    site.sections
      .filter((section) => section.sectionGroup === group.id)
      .map((section) => presentSection(site, section, viewer, presenting)),
  );
  return {
    object: 'site-section-group' as const,
    id: group.id,
    title: group.title,
    ...(group.icon !== null ? { icon: group.icon } : {}),
    draft: group.draft === true,
    sections,
    children: sections,
  };
}

export async function presentSiteSpace(site: SiteDoc, siteSpace: SiteSpaceDoc, viewer: Viewer, { publicUrl, spaces }: Presenting) {
  const space = await spaces.presentOnSite(siteSpace.spaceId, site.organizationId, viewer.member);
  const title = siteSpace.title ?? space?.title ?? (await spaces.spaceById(siteSpace.spaceId))?.title ?? '';
  const draft = siteSpace.draft === true;
  const section = siteSpace.sectionId === null ? null : site.sections.find((candidate) => candidate.id === siteSpace.sectionId);
  const live =
    !draft &&
    (section === null ||
      (section !== undefined &&
        section.draft !== true &&
        !(site.groups ?? []).some((group) => group.id === section.sectionGroup && group.draft === true)));
  return {
    object: 'site-space' as const,
    id: siteSpace.id,
    path: siteSpace.path,
    ...(siteSpace.sectionId !== null ? { section: siteSpace.sectionId } : {}),
    ...(space ? { space } : {}),
    title,
    default: site.defaultSiteSpace[scopeOf(siteSpace.sectionId)] === siteSpace.id,
    ...(siteSpace.condition !== null ? { condition: siteSpace.condition } : {}),
    ...(siteSpace.pageId ? { pageId: siteSpace.pageId } : {}),
    draft,
    ...(siteSpace.hidden ? { hidden: true } : {}),
    urls: publishedAt(site, live, (base) => siteSpaceUrl(base, site, siteSpace), publicUrl),
  };
}

/** The site's structure in order, drafts included: groups (at their first section's place) and ungrouped sections, or the root's site spaces. */
export async function presentStructure(site: SiteDoc, viewer: Viewer, presenting: Presenting) {
  if (site.sections.length === 0) {
    return {
      object: 'site-structure' as const,
      type: 'siteSpaces' as const,
      structure: await Promise.all(
        site.siteSpaces
          .filter((siteSpace) => siteSpace.sectionId === null)
          .map((siteSpace) => presentSiteSpace(site, siteSpace, viewer, presenting)),
      ),
    };
  }
  const structure: unknown[] = [];
  const shown = new Set<string>();
  for (const section of site.sections) {
    const groupId = section.sectionGroup ?? null;
    if (groupId === null) structure.push({ type: 'section', ...(await presentSection(site, section, viewer, presenting)) });
    else if (!shown.has(groupId)) {
      shown.add(groupId);
      const group = (site.groups ?? []).find((candidate) => candidate.id === groupId);
      if (group) structure.push({ type: 'group', ...(await presentGroup(site, group, viewer, presenting)) });
    }
  }
  return { object: 'site-structure' as const, type: 'sections' as const, structure };
}

/** The published site as one reader sees it (`seenBy`), with its structure and the appearance it is rendered with. */
export async function presentPublishedSite(site: SiteDoc, viewer: Viewer, presenting: Presenting) {
  const structure =
    site.sections.length > 0
      ? {
          type: 'sections' as const,
          structure: await Promise.all(site.sections.map((section) => presentSection(site, section, viewer, presenting))),
        }
      : {
          type: 'siteSpaces' as const,
          structure: await Promise.all(site.siteSpaces.map((siteSpace) => presentSiteSpace(site, siteSpace, viewer, presenting))),
        };
  return {
    object: 'published-content-site' as const,
    site: presentSite(site, viewer, presenting.publicUrl),
    structure,
    customizations: { site: publishedCustomization(site), siteSpaces: {} },
    scripts: [],
  };
}

/** The site's visitor authentication settings, with its HS256 key (`secret`): for its administrators only. */
export function presentVisitorAuth(site: SiteDoc, secret: string, publicUrl: string) {
  return {
    object: 'site-visitor-auth' as const,
    algorithms: site.visitorAuth?.jwksUrl ? ['HS256', 'RS256'] : ['HS256'],
    secret,
    jwksUrl: site.visitorAuth?.jwksUrl ?? null,
    issuer: site.visitorAuth?.issuer ?? null,
    audience: site._id,
    urls: { published: publishedUrl(site, publicUrl) },
  };
}

/** The site's adaptive schema object (the default one before any is set), versioned by the site. */
export function adaptiveSchemaOf(site: SiteDoc) {
  const schema = site.adaptiveSchema ?? { jsonSchema: DEFAULT_ADAPTIVE_SCHEMA, updatedAt: site.createdAt };
  return versioned(site, { object: 'site-adaptive-schema' as const, jsonSchema: schema.jsonSchema, updatedAt: schema.updatedAt });
}
