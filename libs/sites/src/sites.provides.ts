/**
 * What the sites context provides to other contexts: its implementations of ports they declare
 * (integrations), matched structurally so that the consumer does not import this context; the
 * composition root binds them. Each injects only the buses and dispatches the context's own
 * queries and commands.
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import { FindSite, GetSite } from './site.queries';

/** Implements integrations' INTEGRATION_SITES port: a site's organization (installing on it), and its Site object as the caller may see it. */
@Injectable()
export class SitesForIntegrations {
  constructor(private readonly queryBus: QueryBus) {}

  siteById(siteId: string): Promise<{ id: string; organizationId: string; deleted: boolean } | null> {
    return this.queryBus.execute(new FindSite(siteId));
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
