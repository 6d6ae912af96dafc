/**
 * What sites tell of readers: a reader viewed a page of a published site. Views are not changes to
 * a site, and they are frequent: whoever implements this decides whether a view is worth keeping,
 * and never makes the reader wait or fail (`viewed` returns at once and does not throw).
 *
 * Integrations implement it and need sites' SitesForIntegrations in turn (docs/adding-a-context.md,
 * Two contexts that need each other): inject SITE_VIEWS only where readers are served (the
 * published site's ServePublishedSiteHandler), never into what SitesForIntegrations reaches
 * (SiteReaders, SiteAccess, the handlers of the queries it dispatches).
 */
export interface SiteViews {
  /** `referrer`, `visitor.ip`, `visitor.userAgent`: the request's Referer, client address and User-Agent, as they came (the implementer decides what of them it keeps). */
  viewed(view: { organizationId: string; siteId: string; spaceId: string; pageId: string | null; url: string; referrer?: string; visitor: { claims: Record<string, unknown>; ip?: string; userAgent?: string } }): Promise<void>;
}

export const SITE_VIEWS = Symbol('SITE_VIEWS');
