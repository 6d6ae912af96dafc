import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { SiteAccess } from './site.access';
import { pageOf, presentShareLink, versioned, type ShareLinkView } from './site.presenter';

/* The reads of a site's share links: for its administrators only (they show the keys), versioned by the site's stream. */

// ---- share links (administrators only: they show secrets) -------------------------------------------

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

export const siteShareLinkQueryHandlers = [ListSiteShareLinksHandler, GetSiteShareLinkHandler];
