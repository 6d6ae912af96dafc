import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { SITE_SPACES, type SiteSpaces } from './sites.needs';
import { SiteAccess } from './site.access';
import { scopeOf } from './site.decider';
import type { SiteSpaceDoc } from './site.projections';
import { pageOf, presentSiteSpace, versioned, type Presenting, type SiteSpaceView } from './site.presenter';

/*
 * The reads of a site's site spaces: for members of its organization (the list also for the holder
 * of a share key), versioned by the site's stream.
 */

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
    const matching =
      query.default === undefined ? site.siteSpaces : site.siteSpaces.filter((siteSpace) => isDefault(siteSpace) === query.default);
    const page = pageOf(matching, query);
    const presenting: Presenting = { publicUrl: this.config.publicUrl, spaces: this.spaces };
    return listEnvelope({
      ...page,
      items: await Promise.all(page.items.map((siteSpace) => presentSiteSpace(site, siteSpace, viewer, presenting))),
    });
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

export const siteSpaceQueryHandlers = [ListSiteSpacesHandler, GetSiteSpaceHandler];
