import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope } from '../../platform/src/http/list';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { SITE_ORGANIZATIONS, SITE_SPACES, type SiteOrganizations, type SiteSpaces } from './sites-ports.port';
import { scopeOf } from './site.decider';
import { templateConditions } from './site.adaptive';
import { SITES, type SectionDoc, type SectionGroupDoc, type SiteDoc, type SiteShareLinkDoc, type SiteSpaceDoc } from './site.projections';
import { SiteReaders, type ReaderAccess } from './site.readers';

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
    await this.requireMember(organizationId, caller);
    return this.live(organizationId, siteId);
  }

  /**
   * The site for a list of its structure: all of it for members of its organization; for anyone
   * else holding `shareKey`, the published site as that key's reader sees it; else 404.
   */
  private async siteOrShared(organizationId: string, siteId: string, caller: Caller, shareKey: string | undefined): Promise<SiteDoc> {
    const standing = await this.standing(organizationId, caller);
    if (standing?.member) return this.live(organizationId, siteId);
    if (shareKey === undefined) throw DomainError.notFound(`no organization ${organizationId}`);
    return (await this.readers.readable({ siteId }, { shareKey }, organizationId)).site;
  }

  /** An administrator of the site's organization, or 403 (members) / 404 (anyone else). */
  private async administered(organizationId: string, siteId: string, caller: Caller): Promise<SiteDoc> {
    const standing = await this.requireMember(organizationId, caller);
    const site = await this.live(organizationId, siteId);
    if (standing.role !== 'admin') throw DomainError.forbidden(`only admins of the organization may see the keys of site ${siteId}`);
    return site;
  }

  private async live(organizationId: string, siteId: string): Promise<SiteDoc> {
    const site = await this.reads.collection<SiteDoc>(SITES).get(siteId);
    if (!site || site.deleted || site.organizationId !== organizationId) throw DomainError.notFound(`no site ${siteId}`);
    return site;
  }

  async list(organizationId: string, caller: Caller, query: { space?: string; title?: string; published?: boolean; page?: string; limit?: number }) {
    await this.requireMember(organizationId, caller);
    const filter: Filter = {
      organizationId,
      deleted: { $exists: false },
      ...(query.space !== undefined ? { spaceIds: query.space } : {}),
      ...(query.title !== undefined ? { title: { $regex: escapeRegExp(query.title), $options: 'i' } } : {}),
      ...(query.published !== undefined ? { published: query.published } : {}),
    };
    const page = await this.reads.collection<SiteDoc>(SITES).find(filter, { sort: { createdAt: 1 }, limit: query.limit, after: query.page });
    return listEnvelope({ items: page.items.map((site) => this.present(site)), count: page.count, next: page.next });
  }

  async get(organizationId: string, siteId: string, caller: Caller) {
    return (await this.getWithRevision(organizationId, siteId, caller)).object;
  }

  /** The site and its ETag source (its stream revision), from one read. */
  async getWithRevision(organizationId: string, siteId: string, caller: Caller) {
    const site = await this.site(organizationId, siteId, caller);
    return { object: this.present(site), streamRevision: site.streamRevision };
  }

  async sections(organizationId: string, siteId: string, caller: Caller, paging: { page?: string; limit?: number; shareKey?: string }) {
    const site = await this.siteOrShared(organizationId, siteId, caller, paging.shareKey);
    const page = pageOf(site.sections, paging);
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((section) => this.presentSection(site, section, caller))) });
  }

  async section(organizationId: string, siteId: string, sectionId: string, caller: Caller) {
    const site = await this.site(organizationId, siteId, caller);
    const section = site.sections.find((candidate) => candidate.id === sectionId);
    if (!section) throw DomainError.notFound(`no section ${sectionId} in site ${siteId}`);
    return this.presentSection(site, section, caller);
  }

  async sectionGroups(organizationId: string, siteId: string, caller: Caller, paging: { page?: string; limit?: number }) {
    const site = await this.site(organizationId, siteId, caller);
    const page = pageOf(site.groups ?? [], paging);
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((group) => this.presentGroup(site, group, caller))) });
  }

  async sectionGroup(organizationId: string, siteId: string, groupId: string, caller: Caller) {
    const site = await this.site(organizationId, siteId, caller);
    const group = (site.groups ?? []).find((candidate) => candidate.id === groupId);
    if (!group) throw DomainError.notFound(`no section group ${groupId} in site ${siteId}`);
    return this.presentGroup(site, group, caller);
  }

  /** The site's structure in order: groups (at their first section's place) and ungrouped sections, or the root's site spaces. */
  async structure(organizationId: string, siteId: string, caller: Caller) {
    const site = await this.site(organizationId, siteId, caller);
    if (site.sections.length === 0) {
      return { object: 'site-structure' as const, type: 'siteSpaces' as const, structure: await Promise.all(site.siteSpaces.filter((siteSpace) => siteSpace.sectionId === null).map((siteSpace) => this.presentSiteSpace(site, siteSpace, caller))) };
    }
    const structure: unknown[] = [];
    const shown = new Set<string>();
    for (const section of site.sections) {
      const groupId = section.sectionGroup ?? null;
      if (groupId === null) structure.push({ type: 'section', ...(await this.presentSection(site, section, caller)) });
      else if (!shown.has(groupId)) {
        shown.add(groupId);
        const group = (site.groups ?? []).find((candidate) => candidate.id === groupId);
        if (group) structure.push({ type: 'group', ...(await this.presentGroup(site, group, caller)) });
      }
    }
    return { object: 'site-structure' as const, type: 'sections' as const, structure };
  }

  async adaptiveSchema(organizationId: string, siteId: string, caller: Caller) {
    const site = await this.site(organizationId, siteId, caller);
    const schema = site.adaptiveSchema ?? { jsonSchema: DEFAULT_ADAPTIVE_SCHEMA, updatedAt: site.createdAt };
    return { object: 'site-adaptive-schema' as const, jsonSchema: schema.jsonSchema, updatedAt: schema.updatedAt };
  }

  async templateConditions(organizationId: string, siteId: string, caller: Caller) {
    const { jsonSchema } = await this.adaptiveSchema(organizationId, siteId, caller);
    return { items: templateConditions(jsonSchema) };
  }

  async siteSpaces(organizationId: string, siteId: string, caller: Caller, query: { default?: boolean; page?: string; limit?: number; shareKey?: string }) {
    const site = await this.siteOrShared(organizationId, siteId, caller, query.shareKey);
    const isDefault = (siteSpace: SiteSpaceDoc) => site.defaultSiteSpace[scopeOf(siteSpace.sectionId)] === siteSpace.id;
    const matching = query.default === undefined ? site.siteSpaces : site.siteSpaces.filter((siteSpace) => isDefault(siteSpace) === query.default);
    const page = pageOf(matching, query);
    return listEnvelope({ ...page, items: await Promise.all(page.items.map((siteSpace) => this.presentSiteSpace(site, siteSpace, caller))) });
  }

  async siteSpace(organizationId: string, siteId: string, siteSpaceId: string, caller: Caller) {
    const site = await this.site(organizationId, siteId, caller);
    const siteSpace = site.siteSpaces.find((candidate) => candidate.id === siteSpaceId);
    if (!siteSpace) throw DomainError.notFound(`no site space ${siteSpaceId} in site ${siteId}`);
    return this.presentSiteSpace(site, siteSpace, caller);
  }

  /**
   * `GET …/published`: the site and its structure as this reader sees them: a member of the
   * organization (with a token), a share-key holder, a visitor with a token, or anyone.
   */
  async published(organizationId: string, siteId: string, access: ReaderAccess, caller: Caller | undefined) {
    const member = caller !== undefined && (await this.standing(organizationId, caller))?.member === true;
    const { site } = await this.readers.readable({ siteId }, { ...access, member }, organizationId);
    const reader: Caller = { kind: 'system', id: 'reader', label: 'reader of the published site' };
    const structure = site.sections.length > 0
      ? { type: 'sections' as const, structure: await Promise.all(site.sections.map((section) => this.presentSection(site, section, reader))) }
      : { type: 'siteSpaces' as const, structure: await Promise.all(site.siteSpaces.map((siteSpace) => this.presentSiteSpace(site, siteSpace, reader))) };
    return { object: 'published-content-site' as const, site: this.present(site), structure };
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
    return this.presentShareLink(site, link);
  }

  async visitorAuth(organizationId: string, siteId: string, caller: Caller) {
    const site = await this.administered(organizationId, siteId, caller);
    return {
      object: 'site-visitor-auth' as const,
      algorithms: site.visitorAuth?.jwksUrl ? ['HS256', 'RS256'] : ['HS256'],
      secret: this.readers.visitorKey(site),
      jwksUrl: site.visitorAuth?.jwksUrl ?? null,
      issuer: site.visitorAuth?.issuer ?? null,
      audience: site._id,
      urls: { published: this.publishedUrl(site) },
    };
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

  private publishedUrl(site: SiteDoc): string {
    return `${this.config.publicUrl}/sites/${site._id}${site.basename ? `/${site.basename}` : ''}`;
  }

  present(site: SiteDoc) {
    const location = `${this.config.publicUrl}/v1/orgs/${site.organizationId}/sites/${site._id}`;
    return {
      object: 'site' as const,
      id: site._id,
      type: site.type,
      title: site.title,
      ...(site.icon ? { icon: site.icon } : {}),
      ...(site.hostname ? { hostname: site.hostname } : {}),
      ...(site.basename !== null ? { basename: site.basename } : {}),
      ...(site.proxy !== null ? { proxy: { origin: this.config.publicUrl, target: site.proxy } } : {}),
      visibility: site.visibility,
      published: site.published,
      siteSpaces: site.siteSpaces.length,
      createdAt: site.createdAt,
      adaptiveContent: site.adaptiveContent,
      agentsContext: site.agentsContext,
      urls: { location, app: `${this.config.publicUrl}/o/${site.organizationId}/sites/${site._id}`, published: this.publishedUrl(site) },
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

  private async presentSection(site: SiteDoc, section: SectionDoc, caller: Caller) {
    const siteSpaces = site.siteSpaces.filter((siteSpace) => siteSpace.sectionId === section.id);
    return {
      object: 'site-section' as const,
      id: section.id,
      title: section.title,
      ...(section.description !== null ? { description: section.description } : {}),
      default: site.defaultSection === section.id,
      path: section.path,
      ...(section.condition !== null ? { condition: section.condition } : {}),
      ...(section.icon !== null ? { icon: section.icon } : {}),
      ...(section.sectionGroup ? { sectionGroup: section.sectionGroup } : {}),
      siteSpaces: await Promise.all(siteSpaces.map((siteSpace) => this.presentSiteSpace(site, siteSpace, caller))),
      urls: { published: `${this.publishedUrl(site)}/${section.path}` },
    };
  }

  private async presentGroup(site: SiteDoc, group: SectionGroupDoc, caller: Caller) {
    const sections = site.sections.filter((section) => section.sectionGroup === group.id);
    return {
      object: 'site-section-group' as const,
      id: group.id,
      title: group.title,
      ...(group.icon !== null ? { icon: group.icon } : {}),
      sections: await Promise.all(sections.map((section) => this.presentSection(site, section, caller))),
    };
  }

  private async presentSiteSpace(site: SiteDoc, siteSpace: SiteSpaceDoc, caller: Caller) {
    const space = caller.kind === 'user' ? await this.spaces.present(siteSpace.spaceId, caller) : null;
    const title = space && 'title' in space ? String((space as { title: unknown }).title) : ((await this.spaces.spaceById(siteSpace.spaceId))?.title ?? '');
    return {
      object: 'site-space' as const,
      id: siteSpace.id,
      path: siteSpace.path,
      ...(siteSpace.sectionId !== null ? { section: siteSpace.sectionId } : {}),
      ...(space ? { space } : {}),
      title,
      default: site.defaultSiteSpace[scopeOf(siteSpace.sectionId)] === siteSpace.id,
      ...(siteSpace.condition !== null ? { condition: siteSpace.condition } : {}),
    };
  }
}
