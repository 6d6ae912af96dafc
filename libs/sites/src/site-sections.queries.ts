import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { SITE_SPACES, type SiteSpaces } from './sites.needs';
import { SiteAccess } from './site.access';
import {
  pageOf,
  presentGroup,
  presentSection,
  presentStructure,
  versioned,
  type Presenting,
  type SiteSectionGroupView,
  type SiteSectionView,
  type SiteStructureView,
} from './site.presenter';

/*
 * The reads of a site's sections, section groups and structure: for members of its organization
 * (a section list also for the holder of a share key), versioned by the site's stream.
 */

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
    return listEnvelope({
      ...page,
      items: await Promise.all(page.items.map((section) => presentSection(site, section, viewer, presenting))),
    });
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

export const siteSectionQueryHandlers = [
  ListSiteSectionsHandler,
  GetSiteSectionHandler,
  ListSiteSectionGroupsHandler,
  GetSiteSectionGroupHandler,
  GetSiteStructureHandler,
];
