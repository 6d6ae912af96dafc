import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { SITE_SPACES, type SiteSpaces } from './sites.needs';
import { OUTSIDER, SiteAccess, type Viewer } from './site.access';
import { templateConditions } from './site.adaptive';
import { SITES, type SiteDoc } from './site.projections';
import { SiteReaders, type ReaderAccess } from './site.readers';
import type { SiteType } from './site.events';
import {
  adaptiveSchemaOf,
  presentPublishedSite,
  presentSite,
  presentVisitorAuth,
  versioned,
  type AdaptiveSchemaView,
  type Presenting,
  type PublishedSiteView,
  type SiteView,
  type VisitorAuthView,
} from './site.presenter';

/*
 * The site reads: members of the organization read its sites; the published content is read by
 * anyone the site's visibility lets in. Who may read what is SiteAccess's decision. The site's
 * parts are read in site-sections.queries.ts, site-spaces.queries.ts and
 * site-share-links.queries.ts; what the reads answer is presented in site.presenter.ts.
 */

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
    const page = await this.reads
      .collection<SiteDoc>(SITES)
      .find(filter, { sort: { createdAt: 1 }, limit: query.limit, after: query.page });
    const viewer: Viewer = { member: caller, role: standing.role };
    return listEnvelope({
      items: page.items.map((site) => presentSite(site, viewer, this.config.publicUrl)),
      count: page.count,
      next: page.next,
    });
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

/**
 * A site by id, deleted ones included, whoever asks (no access check: the asking context checks
 * its own): its organization and whether it is deleted; null when there is none. For the
 * INTEGRATION_SITES port (SitesForIntegrations).
 */
export class FindSite extends Query<{ id: string; organizationId: string; deleted: boolean } | null> {
  constructor(readonly siteId: string) {
    super();
  }
}

@QueryHandler(FindSite)
export class FindSiteHandler implements IQueryHandler<FindSite> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ siteId }: FindSite) {
    const site = await this.reads.collection<SiteDoc>(SITES).get(siteId);
    return site ? { id: site._id, organizationId: site.organizationId, deleted: site.deleted === true } : null;
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

// ---- visitor authentication (administrators only: it shows the site's key) -------------------------

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
  FindSiteHandler,
  GetSiteAdaptiveSchemaHandler,
  ListSiteTemplateConditionsHandler,
  GetSiteVisitorAuthHandler,
];
