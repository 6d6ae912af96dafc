import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope } from '../../platform/src/http/list';
import type { OrganizationRole } from '../../platform/src/permissions';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { SITE_ORGANIZATIONS, SITE_SPACES, type SiteOrganizations, type SiteSpaces } from './sites-ports.port';
import { scopeOf } from './site.decider';
import { templateConditions } from './site.adaptive';
import { INHERITED_LEVEL, sitePermissions, siteRole } from './site.permissions';
import { SITES, type SectionDoc, type SectionGroupDoc, type SiteDoc, type SiteShareLinkDoc, type SiteSpaceDoc } from './site.projections';
import { SiteReaders, type ReaderAccess } from './site.readers';
import type { SiteType } from './site.events';
import { publishedCustomization } from './published/site-html.appearance';
import { sectionUrl, siteSpaceUrl } from './published/site-html.site';
import type { Versioned } from '../../platform/src/http/etag';

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
 * Who an answer is presented to: a member of the site's organization (their role) or a reader from
 * outside it (the published site's readers, share-key holders). It decides `permissions`, and the
 * Space objects the site spaces embed are presented with the same caller's permissions on them.
 */
interface Viewer {
  /** The member, as the spaces context needs them; null for readers outside the organization. */
  member: Caller | null;
  role: OrganizationRole;
}

/**
 * Every part of a site (sections, groups, site spaces, share links, settings) lives in the site's
 * stream: its revision is the ETag of each, and what a write of any of them names in If-Match.
 */
const versioned = <T>(site: SiteDoc, object: T): Versioned<T> => ({ object, streamRevision: site.streamRevision });

/** A reader outside the site's organization: no role, their own permissions only. */
const OUTSIDER: Viewer = { member: null, role: null };

/**
 * The site reads: members of the organization read its sites; the published content is read by
 * anyone the site's visibility lets in.
 */
@Injectable()
export class SiteQueries {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SITE_ORGANIZATIONS) private readonly organizations: SiteOrganizations,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly readers: SiteReaders,
  ) {}

  /** A live site of the organization the caller belongs to, or 404. */
  async site(organizationId: string, siteId: string, caller: Caller): Promise<SiteDoc> {
    return (await this.memberSite(organizationId, siteId, caller)).site;
  }

  /** A live site of the organization the caller belongs to, and the caller as a viewer of it; 404 otherwise. */
  private async memberSite(organizationId: string, siteId: string, caller: Caller): Promise<{ site: SiteDoc; viewer: Viewer }> {
    const standing = await this.requireMember(organizationId, caller);
    return { site: await this.live(organizationId, siteId), viewer: { member: caller, role: standing.role } };
  }

  /**
   * The site for a list of its structure: all of it for members of its organization; for anyone
   * else holding `shareKey`, the published site as that key's reader sees it; else 404.
   */
  private async siteOrShared(organizationId: string, siteId: string, caller: Caller, shareKey: string | undefined): Promise<{ site: SiteDoc; viewer: Viewer }> {
    const standing = await this.standing(organizationId, caller);
    if (standing?.member) return { site: await this.live(organizationId, siteId), viewer: { member: caller, role: standing.role } };
    if (shareKey === undefined) throw DomainError.notFound(`no organization ${organizationId}`);
    return { site: (await this.readers.readable({ siteId }, { shareKey }, organizationId)).site, viewer: OUTSIDER };
  }

  /** An administrator of the site (their organization role, as its `defaultLevel` raises it), or 403 (members) / 404 (anyone else). */
  private async administered(organizationId: string, siteId: string, caller: Caller): Promise<SiteDoc> {
    const standing = await this.requireMember(organizationId, caller);
    const site = await this.live(organizationId, siteId);
    if (siteRole(standing.role, site.defaultLevel) !== 'admin') throw DomainError.forbidden(`only admins of site ${siteId} may see its keys`);
    return site;
  }

  private async live(organizationId: string, siteId: string): Promise<SiteDoc> {
    const site = await this.reads.collection<SiteDoc>(SITES).get(siteId);
    if (!site || site.deleted || site.organizationId !== organizationId) throw DomainError.notFound(`no site ${siteId}`);
    return site;
  }

  async list(organizationId: string, caller: Caller, query: { space?: string; title?: string; published?: boolean; type?: SiteType[]; page?: string; limit?: number }) {
    const standing = await this.requireMember(organizationId, caller);
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
    return listEnvelope({ items: page.items.map((site) => this.present(site, viewer)), count: page.count, next: page.next });
  }

  async get(organizationId: string, siteId: string, caller: Caller) {
    return (await this.getWithRevision(organizationId, siteId, caller)).object;
  }

  /** The site and its ETag source (its stream revision), from one read. */
  async getWithRevision(organizationId: string, siteId: string, caller: Caller) {
    const { site, viewer } = await this.memberSite(organizationId, siteId, caller);
    return versioned(site, this.present(site, viewer));
  }

  async sections(organizationId: string, siteId: string, caller: Caller, paging: { page?: string; limit?: number; shareKey?: string }) {
    const { site, viewer } = await this.siteOrShared(organizationId, siteId, caller, paging.shareKey);
    const page = pageOf(site.sections, paging);
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((section) => this.presentSection(site, section, viewer))) });
  }

  async section(organizationId: string, siteId: string, sectionId: string, caller: Caller) {
    const { site, viewer } = await this.memberSite(organizationId, siteId, caller);
    const section = site.sections.find((candidate) => candidate.id === sectionId);
    if (!section) throw DomainError.notFound(`no section ${sectionId} in site ${siteId}`);
    return versioned(site, await this.presentSection(site, section, viewer));
  }

  async sectionGroups(organizationId: string, siteId: string, caller: Caller, paging: { page?: string; limit?: number }) {
    const { site, viewer } = await this.memberSite(organizationId, siteId, caller);
    const page = pageOf(site.groups ?? [], paging);
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((group) => this.presentGroup(site, group, viewer))) });
  }

  async sectionGroup(organizationId: string, siteId: string, groupId: string, caller: Caller) {
    const { site, viewer } = await this.memberSite(organizationId, siteId, caller);
    const group = (site.groups ?? []).find((candidate) => candidate.id === groupId);
    if (!group) throw DomainError.notFound(`no section group ${groupId} in site ${siteId}`);
    return versioned(site, await this.presentGroup(site, group, viewer));
  }

  /** The site's structure in order, drafts included: groups (at their first section's place) and ungrouped sections, or the root's site spaces. */
  async structure(organizationId: string, siteId: string, caller: Caller) {
    const { site, viewer } = await this.memberSite(organizationId, siteId, caller);
    return versioned(site, await this.presentStructure(site, viewer));
  }

  private async presentStructure(site: SiteDoc, viewer: Viewer) {
    if (site.sections.length === 0) {
      return { object: 'site-structure' as const, type: 'siteSpaces' as const, structure: await Promise.all(site.siteSpaces.filter((siteSpace) => siteSpace.sectionId === null).map((siteSpace) => this.presentSiteSpace(site, siteSpace, viewer))) };
    }
    const structure: unknown[] = [];
    const shown = new Set<string>();
    for (const section of site.sections) {
      const groupId = section.sectionGroup ?? null;
      if (groupId === null) structure.push({ type: 'section', ...(await this.presentSection(site, section, viewer)) });
      else if (!shown.has(groupId)) {
        shown.add(groupId);
        const group = (site.groups ?? []).find((candidate) => candidate.id === groupId);
        if (group) structure.push({ type: 'group', ...(await this.presentGroup(site, group, viewer)) });
      }
    }
    return { object: 'site-structure' as const, type: 'sections' as const, structure };
  }

  async adaptiveSchema(organizationId: string, siteId: string, caller: Caller) {
    const site = await this.site(organizationId, siteId, caller);
    const schema = site.adaptiveSchema ?? { jsonSchema: DEFAULT_ADAPTIVE_SCHEMA, updatedAt: site.createdAt };
    return versioned(site, { object: 'site-adaptive-schema' as const, jsonSchema: schema.jsonSchema, updatedAt: schema.updatedAt });
  }

  async templateConditions(organizationId: string, siteId: string, caller: Caller) {
    const { jsonSchema } = (await this.adaptiveSchema(organizationId, siteId, caller)).object;
    return { items: templateConditions(jsonSchema) };
  }

  async siteSpaces(organizationId: string, siteId: string, caller: Caller, query: { default?: boolean; page?: string; limit?: number; shareKey?: string }) {
    const { site, viewer } = await this.siteOrShared(organizationId, siteId, caller, query.shareKey);
    const isDefault = (siteSpace: SiteSpaceDoc) => site.defaultSiteSpace[scopeOf(siteSpace.sectionId)] === siteSpace.id;
    const matching = query.default === undefined ? site.siteSpaces : site.siteSpaces.filter((siteSpace) => isDefault(siteSpace) === query.default);
    const page = pageOf(matching, query);
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((siteSpace) => this.presentSiteSpace(site, siteSpace, viewer))) });
  }

  async siteSpace(organizationId: string, siteId: string, siteSpaceId: string, caller: Caller) {
    const { site, viewer } = await this.memberSite(organizationId, siteId, caller);
    const siteSpace = site.siteSpaces.find((candidate) => candidate.id === siteSpaceId);
    if (!siteSpace) throw DomainError.notFound(`no site space ${siteSpaceId} in site ${siteId}`);
    return versioned(site, await this.presentSiteSpace(site, siteSpace, viewer));
  }

  /**
   * `GET …/published`: the site and its structure as this reader sees them (live content only): a
   * member of the organization (with a token), a share-key holder, a visitor with a token, or
   * anyone. Its customization is the appearance the published site is rendered with, the same for
   * every site; it loads no integration scripts.
   */
  async published(organizationId: string, siteId: string, access: ReaderAccess, caller: Caller | undefined) {
    const standing = caller !== undefined ? await this.standing(organizationId, caller) : null;
    const viewer: Viewer = standing?.member ? { member: caller!, role: standing.role } : OUTSIDER;
    const { site } = await this.readers.readable({ siteId }, { ...access, member: standing?.member === true }, organizationId);
    const structure = site.sections.length > 0
      ? { type: 'sections' as const, structure: await Promise.all(site.sections.map((section) => this.presentSection(site, section, viewer))) }
      : { type: 'siteSpaces' as const, structure: await Promise.all(site.siteSpaces.map((siteSpace) => this.presentSiteSpace(site, siteSpace, viewer))) };
    return { object: 'published-content-site' as const, site: this.present(site, viewer), structure, customizations: { site: publishedCustomization(site), siteSpaces: {} }, scripts: [] };
  }

  // ---- share links and visitor authentication (administrators only: they show secrets) -------------

  async shareLinks(organizationId: string, siteId: string, caller: Caller, paging: { page?: string; limit?: number }) {
    const site = await this.administered(organizationId, siteId, caller);
    const page = pageOf(site.shareLinks ?? [], paging);
    return listEnvelope({ ...page, items: page.items.map((link) => this.presentShareLink(site, link)) });
  }

  async shareLink(organizationId: string, siteId: string, shareLinkId: string, caller: Caller) {
    const site = await this.administered(organizationId, siteId, caller);
    const link = (site.shareLinks ?? []).find((candidate) => candidate.id === shareLinkId);
    if (!link) throw DomainError.notFound(`no share link ${shareLinkId} in site ${siteId}`);
    return versioned(site, this.presentShareLink(site, link));
  }

  async visitorAuth(organizationId: string, siteId: string, caller: Caller) {
    const site = await this.administered(organizationId, siteId, caller);
    return versioned(site, {
      object: 'site-visitor-auth' as const,
      algorithms: site.visitorAuth?.jwksUrl ? ['HS256', 'RS256'] : ['HS256'],
      secret: this.readers.visitorKey(site),
      jwksUrl: site.visitorAuth?.jwksUrl ?? null,
      issuer: site.visitorAuth?.issuer ?? null,
      audience: site._id,
      urls: { published: this.publishedUrl(site) },
    });
  }

  private standing(organizationId: string, caller: Caller) {
    return caller.kind === 'user' ? this.organizations.roleOf(organizationId, caller.userId) : Promise.resolve(null);
  }

  /** The caller's standing in the organization, or 404 for people outside it. */
  private async requireMember(organizationId: string, caller: Caller) {
    const standing = await this.standing(organizationId, caller);
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return standing;
  }

  // ---- presenting ---------------------------------------------------------------------------------

  /** The published site's address: `/sites/{siteId}`, and its basename. */
  private publishedBase(site: SiteDoc): string {
    return `/sites/${site._id}${site.basename ? `/${site.basename}` : ''}`;
  }

  private publishedUrl(site: SiteDoc): string {
    return `${this.config.publicUrl}${this.publishedBase(site)}`;
  }

  /**
   * A Site. `urls.preview` is the site as it stands, drafts and unpublished changes included
   * (`GET …/structure`, for members); `urls.published` only while the site is published. `features`
   * is empty: the service has no plans, every feature is there on every type.
   */
  present(site: SiteDoc, viewer: Viewer) {
    const location = `${this.config.publicUrl}/v1/orgs/${site.organizationId}/sites/${site._id}`;
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
      ...(site.proxy !== null ? { proxy: { origin: site.proxy, target: this.publishedUrl(site) } } : {}),
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
      urls: { location, app: `${this.config.publicUrl}/o/${site.organizationId}/sites/${site._id}`, preview: `${location}/structure`, ...(site.published ? { published: this.publishedUrl(site) } : {}) },
    };
  }

  private presentShareLink(site: SiteDoc, link: SiteShareLinkDoc) {
    return {
      object: 'share-link' as const,
      id: link.id,
      name: link.name,
      key: link.key,
      active: link.active,
      createdAt: link.createdAt,
      urls: { location: `${this.config.publicUrl}/v1/orgs/${site.organizationId}/sites/${site._id}/share-links/${link.id}`, published: `${this.publishedUrl(site)}?shareKey=${link.key}` },
    };
  }

  /** Where something of the site is published: only while the site is, and only what is live. */
  private publishedAt(site: SiteDoc, live: boolean, path: (base: string) => string): { published?: string } {
    return site.published && live ? { published: `${this.config.publicUrl}${path(this.publishedBase(site))}` } : {};
  }

  private async presentSection(site: SiteDoc, section: SectionDoc, viewer: Viewer) {
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
      siteSpaces: await Promise.all(siteSpaces.map((siteSpace) => this.presentSiteSpace(site, siteSpace, viewer))),
      urls: this.publishedAt(site, !draft && !groupDraft, (base) => sectionUrl(base, site, section)),
    };
  }

  /** A section group: `children` are its sections (groups are not nested here); `sections`, the platform's older name for them, the same. */
  private async presentGroup(site: SiteDoc, group: SectionGroupDoc, viewer: Viewer) {
    const sections = await Promise.all(site.sections.filter((section) => section.sectionGroup === group.id).map((section) => this.presentSection(site, section, viewer)));
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

  private async presentSiteSpace(site: SiteDoc, siteSpace: SiteSpaceDoc, viewer: Viewer) {
    const space = await this.spaces.presentOnSite(siteSpace.spaceId, site.organizationId, viewer.member);
    const title = siteSpace.title ?? space?.title ?? (await this.spaces.spaceById(siteSpace.spaceId))?.title ?? '';
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
      urls: this.publishedAt(site, live, (base) => siteSpaceUrl(base, site, siteSpace)),
    };
  }
}
