import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Caller } from '../../platform/src/http/auth';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { SITES, type SiteDoc } from './site.projections';
import { GetSite } from './site.queries';

/** Implements integrations' INTEGRATION_SITES port: a site's organization (installing on it), and its Site object as the caller may see it. */
@Injectable()
export class SitesForIntegrations {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly queryBus: QueryBus,
  ) {}

  async siteById(siteId: string): Promise<{ id: string; organizationId: string; deleted: boolean } | null> {
    const site = await this.reads.collection<SiteDoc>(SITES).get(siteId);
    return site ? { id: site._id, organizationId: site.organizationId, deleted: site.deleted === true } : null;
  }

  /** The Site object for a member of its organization; null for anyone else, or when the site is gone. */
  async present(siteId: string, caller: Caller) {
    const site = await this.siteById(siteId);
    if (!site || site.deleted) return null;
    try {
      return (await this.queryBus.execute(new GetSite(site.organizationId, siteId, caller))).object;
    } catch {
      return null;
    }
  }
}
