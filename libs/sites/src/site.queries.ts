import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import type { Versioned } from '../../platform/src/http/etag';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { SITE_SPACES, type SiteSpaces } from './sites-ports.port';
import { OUTSIDER, SiteAccess, type Viewer } from './site.access';
import { scopeOf } from './site.decider';
import { templateConditions } from './site.adaptive';
import { INHERITED_LEVEL, sitePermissions, siteRole } from './site.permissions';
import { SITES, type SectionDoc, type SectionGroupDoc, type SiteDoc, type SiteShareLinkDoc, type SiteSpaceDoc } from './site.projections';
import { SiteReaders, type ReaderAccess } from './site.readers';
import type { SiteType } from './site.events';
import { publishedCustomization } from './published/site-html.appearance';
import { sectionUrl, siteSpaceUrl } from './published/site-html.site';

/*
 * The site reads: members of the organization read its sites; the published content is read by
 * anyone the site's visibility lets in. Who may read what is SiteAccess's decision.
 */

/** A site's adaptive schema before one is set: no claims. */
const DEFAULT_ADAPTIVE_SCHEMA = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {}, additionalProperties: false };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `page` and `limit` over a list held in one document: the page token is an offset. */
function pageOf<T>(items: readonly T[], paging: { page?: string; limit?: number }) {
  if (paging.page !== undefined && !/^\d{1,6}$/.test(paging.page)) throw DomainError.invalid('page is not a page token of this list');
  const start = paging.page === undefined ? 0 : Number(paging.page);
  const limit = paging.limit ?? 100;
  return { items: items.slice(start, start + limit), count: items.length, next: start + limit < items.length ? String(start + limit) : undefined };
}

/**
 * Every part of a site (sections, groups, site spaces, share links, settings) lives in the site's
 * stream: its revision is the ETag of each, and what a write of any of them names in If-Match.
 */
const versioned = <T>(site: SiteDoc, object: T): Versioned<T> => ({ object, streamRevision: site.streamRevision });

// ---- presenting -------------------------------------------------------------------------------------

/** What presenting a site needs: the service's public URL, and the spaces the site spaces embed. */
interface Presenting {
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
function presentSite(site: SiteDoc, viewer: Viewer, publicUrl: string) {
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
    urls: { location, app: `${publicUrl}/o/${site.organizationId}/sites/${site._id}`, preview: `${location}/structure`, ...(site.published ? { published: publishedUrl(site, publicUrl) } : {}) },
  };
}

export type SiteView = ReturnType<typeof presentSite>;
export type SiteSectionView = Awaited<ReturnType<typeof presentSection>>;
export type SiteSectionGroupView = Awaited<ReturnType<typeof presentGroup>>;
export type SiteSpaceView = Awaited<ReturnType<typeof presentSiteSpace>>;
export type SiteStructureView = Awaited<ReturnType<typeof presentStructure>>;
type ShareLinkView = ReturnType<typeof presentShareLink>;
type PublishedSiteView = Awaited<ReturnType<typeof presentPublishedSite>>;
type VisitorAuthView = ReturnType<typeof presentVisitorAuth>;
type AdaptiveSchemaView = ReturnType<typeof adaptiveSchemaOf>['object'];

function presentShareLink(site: SiteDoc, link: SiteShareLinkDoc, publicUrl: string) {
  return {
    object: 'share-link' as const,
    id: link.id,
    name: link.name,
    key: link.key,
    active: link.active,
    createdAt: link.createdAt,
    urls: { location: `${publicUrl}/v1/orgs/${site.organizationId}/sites/${site._id}/share-links/${link.id}`, published: `${publishedUrl(site, publicUrl)}?shareKey=${link.key}` },
  };
}

/** Where something of the site is published: only while the site is, and only what is live. */
function publishedAt(site: SiteDoc, live: boolean, path: (base: string) => string, publicUrl: string): { published?: string } {
  return site.published && live ? { published: `${publicUrl}${path(publishedBase(site))}` } : {};
}

async function presentSection(site: SiteDoc, section: SectionDoc, viewer: Viewer, presenting: Presenting) {
  const siteSpaces = site.siteSpaces.filter((siteSpace) => siteSpace.sectionId === section.id);
  const draft = section.draft === true;
  const groupDraft = section.sectionGroup ? (site.groups ?? []).some((group) => group.id === section.sectionGroup && group.draft === true) : false;
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
async function presentGroup(site: SiteDoc, group: SectionGroupDoc, viewer: Viewer, presenting: Presenting) {
  const sections = await Promise.all(site.sections.filter((section) => section.sectionGroup === group.id).map((section) => presentSection(site, section, viewer, presenting)));
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

async function presentSiteSpace(site: SiteDoc, siteSpace: SiteSpaceDoc, viewer: Viewer, { publicUrl, spaces }: Presenting) {
  const space = await spaces.presentOnSite(siteSpace.spaceId, site.organizationId, viewer.member);
  const title = siteSpace.title ?? space?.title ?? (await spaces.spaceById(siteSpace.spaceId))?.title ?? '';
  const draft = siteSpace.draft === true;
  const section = siteSpace.sectionId === null ? null : site.sections.find((candidate) => candidate.id === siteSpace.sectionId);
  const live = !draft && (section === null || (section !== undefined && section.draft !== true && !(site.groups ?? []).some((group) => group.id === section.sectionGroup && group.draft === true)));
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
async function presentStructure(site: SiteDoc, viewer: Viewer, presenting: Presenting) {
  if (site.sections.length === 0) {
    return { object: 'site-structure' as const, type: 'siteSpaces' as const, structure: await Promise.all(site.siteSpaces.filter((siteSpace) => siteSpace.sectionId === null).map((siteSpace) => presentSiteSpace(site, siteSpace, viewer, presenting))) };
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
async function presentPublishedSite(site: SiteDoc, viewer: Viewer, presenting: Presenting) {
  const structure =
    site.sections.length > 0
      ? { type: 'sections' as const, structure: await Promise.all(site.sections.map((section) => presentSection(site, section, viewer, presenting))) }
      : { type: 'siteSpaces' as const, structure: await Promise.all(site.siteSpaces.map((siteSpace) => presentSiteSpace(site, siteSpace, viewer, presenting))) };
  return { object: 'published-content-site' as const, site: presentSite(site, viewer, presenting.publicUrl), structure, customizations: { site: publishedCustomization(site), siteSpaces: {} }, scripts: [] };
}

/** The site's visitor authentication settings, with its HS256 key (`secret`): for its administrators only. */
function presentVisitorAuth(site: SiteDoc, secret: string, publicUrl: string) {
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
function adaptiveSchemaOf(site: SiteDoc) {
  const schema = site.adaptiveSchema ?? { jsonSchema: DEFAULT_ADAPTIVE_SCHEMA, updatedAt: site.createdAt };
  return versioned(site, { object: 'site-adaptive-schema' as const, jsonSchema: schema.jsonSchema, updatedAt: schema.updatedAt });
}

// ---- the site ---------------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites`: the organization's live sites, oldest first, filtered as the query says. */
export class ListSites extends Query<ListEnvelope<SiteView>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly query: { space?: string; title?: string; published?: boolean; type?: SiteType[]; page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListSites)
export class ListSitesHandler implements IQueryHandler<ListSites> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, caller, query }: ListSites) {
    const standing = await this.access.requireMember(organizationId, caller);
    const filter: Filter = {
      organizationId,
      deleted: { $exists: false },
      ...(query.space !== undefined ? { spaceIds: query.space } : {}),
      ...(query.title !== undefined ? { title: { $regex: escapeRegExp(query.title), $options: 'i' } } : {}),
      ...(query.published !== undefined ? { published: query.published } : {}),
      ...(query.type !== undefined ? { type: { $in: [...new Set(query.type)] } } : {}),
    };
    const page = await this.reads.collection<SiteDoc>(SITES).find(filter, { sort: { createdAt: 1 }, limit: query.limit, after: query.page });
    const viewer: Viewer = { member: caller, role: standing.role };
    return listEnvelope({ items: page.items.map((site) => presentSite(site, viewer, this.config.publicUrl)), count: page.count, next: page.next });
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}`: the site and its ETag source (its stream revision), from one read. */
export class GetSite extends Query<Versioned<SiteView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSite)
export class GetSiteHandler implements IQueryHandler<GetSite> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, caller }: GetSite) {
    const { site, viewer } = await this.access.memberSite(organizationId, siteId, caller);
    return versioned(site, presentSite(site, viewer, this.config.publicUrl));
  }
}

/**
 * `GET /orgs/{organizationId}/sites/{siteId}/published`: the site and its structure as this reader
 * sees them (live content only): a member of the organization (with a token), a share-key holder,
 * a visitor with a token, or anyone. Its customization is the appearance the published site is
 * rendered with, the same for every site; it loads no integration scripts.
 */
export class GetPublishedSite extends Query<PublishedSiteView> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly access: ReaderAccess,
    readonly caller: Caller | undefined,
  ) {
    super();
  }
}

@QueryHandler(GetPublishedSite)
export class GetPublishedSiteHandler implements IQueryHandler<GetPublishedSite> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
    private readonly readers: SiteReaders,
  ) {}

  async execute({ organizationId, siteId, access, caller }: GetPublishedSite) {
    const presenting: Presenting = { publicUrl: this.config.publicUrl, spaces: this.spaces };
    const standing = caller !== undefined ? await this.access.standing(organizationId, caller) : null;
    const viewer: Viewer = standing?.member ? { member: caller!, role: standing.role } : OUTSIDER;
    const { site } = await this.readers.readable({ siteId }, { ...access, member: standing?.member === true }, organizationId);
    return presentPublishedSite(site, viewer, presenting);
  }
}

// ---- sections and section groups ------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites/{siteId}/sections`: for members, or for the holder of `shareKey` the published sections. */
export class ListSiteSections extends Query<ListEnvelope<SiteSectionView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number; shareKey?: string },
  ) {
    super();
  }
}

@QueryHandler(ListSiteSections)
export class ListSiteSectionsHandler implements IQueryHandler<ListSiteSections> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, caller, paging }: ListSiteSections) {
    const { site, viewer } = await this.access.siteOrShared(organizationId, siteId, caller, paging.shareKey);
    const page = pageOf(site.sections, paging);
    const presenting: Presenting = { publicUrl: this.config.publicUrl, spaces: this.spaces };
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((section) => presentSection(site, section, viewer, presenting))) });
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}` (and the answer of its writes), versioned by the site. */
export class GetSiteSection extends Query<Versioned<SiteSectionView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly sectionId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSiteSection)
export class GetSiteSectionHandler implements IQueryHandler<GetSiteSection> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, sectionId, caller }: GetSiteSection) {
    const { site, viewer } = await this.access.memberSite(organizationId, siteId, caller);
    const section = site.sections.find((candidate) => candidate.id === sectionId);
    if (!section) throw DomainError.notFound(`no section ${sectionId} in site ${siteId}`);
    return versioned(site, await presentSection(site, section, viewer, { publicUrl: this.config.publicUrl, spaces: this.spaces }));
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/section-groups` */
export class ListSiteSectionGroups extends Query<ListEnvelope<SiteSectionGroupView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListSiteSectionGroups)
export class ListSiteSectionGroupsHandler implements IQueryHandler<ListSiteSectionGroups> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, caller, paging }: ListSiteSectionGroups) {
    const { site, viewer } = await this.access.memberSite(organizationId, siteId, caller);
    const page = pageOf(site.groups ?? [], paging);
    const presenting: Presenting = { publicUrl: this.config.publicUrl, spaces: this.spaces };
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((group) => presentGroup(site, group, viewer, presenting))) });
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}` (and the answer of its writes), versioned by the site. */
export class GetSiteSectionGroup extends Query<Versioned<SiteSectionGroupView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly groupId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSiteSectionGroup)
export class GetSiteSectionGroupHandler implements IQueryHandler<GetSiteSectionGroup> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, groupId, caller }: GetSiteSectionGroup) {
    const { site, viewer } = await this.access.memberSite(organizationId, siteId, caller);
    const group = (site.groups ?? []).find((candidate) => candidate.id === groupId);
    if (!group) throw DomainError.notFound(`no section group ${groupId} in site ${siteId}`);
    return versioned(site, await presentGroup(site, group, viewer, { publicUrl: this.config.publicUrl, spaces: this.spaces }));
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/structure`: the site's structure in order, drafts included, versioned by the site. */
export class GetSiteStructure extends Query<Versioned<SiteStructureView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSiteStructure)
export class GetSiteStructureHandler implements IQueryHandler<GetSiteStructure> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, caller }: GetSiteStructure) {
    const { site, viewer } = await this.access.memberSite(organizationId, siteId, caller);
    return versioned(site, await presentStructure(site, viewer, { publicUrl: this.config.publicUrl, spaces: this.spaces }));
  }
}

// ---- adaptive content ---------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites/{siteId}/adaptive-schema`, versioned by the site. */
export class GetSiteAdaptiveSchema extends Query<Versioned<AdaptiveSchemaView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSiteAdaptiveSchema)
export class GetSiteAdaptiveSchemaHandler implements IQueryHandler<GetSiteAdaptiveSchema> {
  constructor(private readonly access: SiteAccess) {}

  async execute({ organizationId, siteId, caller }: GetSiteAdaptiveSchema) {
    return adaptiveSchemaOf((await this.access.memberSite(organizationId, siteId, caller)).site);
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions`: the conditions the adaptive schema's claims allow. */
export class ListSiteTemplateConditions extends Query<{ items: ReturnType<typeof templateConditions> }> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListSiteTemplateConditions)
export class ListSiteTemplateConditionsHandler implements IQueryHandler<ListSiteTemplateConditions> {
  constructor(private readonly access: SiteAccess) {}

  async execute({ organizationId, siteId, caller }: ListSiteTemplateConditions) {
    const { jsonSchema } = adaptiveSchemaOf((await this.access.memberSite(organizationId, siteId, caller)).site).object;
    return { items: templateConditions(jsonSchema) };
  }
}

// ---- site spaces --------------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites/{siteId}/site-spaces`: for members, or for the holder of `shareKey` the published site spaces; `default` filters on being a default. */
export class ListSiteSpaces extends Query<ListEnvelope<SiteSpaceView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
    readonly query: { default?: boolean; page?: string; limit?: number; shareKey?: string },
  ) {
    super();
  }
}

@QueryHandler(ListSiteSpaces)
export class ListSiteSpacesHandler implements IQueryHandler<ListSiteSpaces> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, caller, query }: ListSiteSpaces) {
    const { site, viewer } = await this.access.siteOrShared(organizationId, siteId, caller, query.shareKey);
    const isDefault = (siteSpace: SiteSpaceDoc) => site.defaultSiteSpace[scopeOf(siteSpace.sectionId)] === siteSpace.id;
    const matching = query.default === undefined ? site.siteSpaces : site.siteSpaces.filter((siteSpace) => isDefault(siteSpace) === query.default);
    const page = pageOf(matching, query);
    const presenting: Presenting = { publicUrl: this.config.publicUrl, spaces: this.spaces };
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((siteSpace) => presentSiteSpace(site, siteSpace, viewer, presenting))) });
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}` (and the answer of its writes), versioned by the site. */
export class GetSiteSpace extends Query<Versioned<SiteSpaceView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly siteSpaceId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSiteSpace)
export class GetSiteSpaceHandler implements IQueryHandler<GetSiteSpace> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, siteSpaceId, caller }: GetSiteSpace) {
    const { site, viewer } = await this.access.memberSite(organizationId, siteId, caller);
    const siteSpace = site.siteSpaces.find((candidate) => candidate.id === siteSpaceId);
    if (!siteSpace) throw DomainError.notFound(`no site space ${siteSpaceId} in site ${siteId}`);
    return versioned(site, await presentSiteSpace(site, siteSpace, viewer, { publicUrl: this.config.publicUrl, spaces: this.spaces }));
  }
}

// ---- share links and visitor authentication (administrators only: they show secrets) -------------

/** `GET /orgs/{organizationId}/sites/{siteId}/share-links` */
export class ListSiteShareLinks extends Query<ListEnvelope<ShareLinkView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListSiteShareLinks)
export class ListSiteShareLinksHandler implements IQueryHandler<ListSiteShareLinks> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, caller, paging }: ListSiteShareLinks) {
    const site = await this.access.administered(organizationId, siteId, caller);
    const page = pageOf(site.shareLinks ?? [], paging);
    return listEnvelope({ ...page, items: page.items.map((link) => presentShareLink(site, link, this.config.publicUrl)) });
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}` (and the answer of its writes), versioned by the site. */
export class GetSiteShareLink extends Query<Versioned<ShareLinkView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly shareLinkId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSiteShareLink)
export class GetSiteShareLinkHandler implements IQueryHandler<GetSiteShareLink> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: SiteAccess,
  ) {}

  async execute({ organizationId, siteId, shareLinkId, caller }: GetSiteShareLink) {
    const site = await this.access.administered(organizationId, siteId, caller);
    const link = (site.shareLinks ?? []).find((candidate) => candidate.id === shareLinkId);
    if (!link) throw DomainError.notFound(`no share link ${shareLinkId} in site ${siteId}`);
    return versioned(site, presentShareLink(site, link, this.config.publicUrl));
  }
}

/** `GET /orgs/{organizationId}/sites/{siteId}/visitor-auth` (and the answer of its writes): the site's HS256 key for visitor tokens and its JWKS URL, versioned by the site. */
export class GetSiteVisitorAuth extends Query<Versioned<VisitorAuthView>> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSiteVisitorAuth)
export class GetSiteVisitorAuthHandler implements IQueryHandler<GetSiteVisitorAuth> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: SiteAccess,
    private readonly readers: SiteReaders,
  ) {}

  async execute({ organizationId, siteId, caller }: GetSiteVisitorAuth) {
    const site = await this.access.administered(organizationId, siteId, caller);
    return versioned(site, presentVisitorAuth(site, this.readers.visitorKey(site), this.config.publicUrl));
  }
}

export const siteQueryHandlers = [
  ListSitesHandler,
  GetSiteHandler,
  GetPublishedSiteHandler,
  ListSiteSectionsHandler,
  GetSiteSectionHandler,
  ListSiteSectionGroupsHandler,
  GetSiteSectionGroupHandler,
  GetSiteStructureHandler,
  GetSiteAdaptiveSchemaHandler,
  ListSiteTemplateConditionsHandler,
  ListSiteSpacesHandler,
  GetSiteSpaceHandler,
  ListSiteShareLinksHandler,
  GetSiteShareLinkHandler,
  GetSiteVisitorAuthHandler,
];
