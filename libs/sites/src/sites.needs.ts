/*
 * What the sites context needs of other contexts: every port it consumes (the interfaces, the types
 * they speak in and their `Symbol` tokens), each bound at the composition root
 * (libs/composition/src/contexts.ts) to an adapter the provider lists in its manifest's `provides`.
 * The types are as narrow as sites need them, so the context imports nothing of its providers.
 */
import type { Readable } from 'node:stream';
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';

/* Of organizations (SITE_ORGANIZATIONS, bound to OrganizationsForSites). */

/** What sites need of organizations: the caller's role (who reads, creates and administers sites). */
export interface SiteOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const SITE_ORGANIZATIONS = Symbol('SITE_ORGANIZATIONS');

/* Of spaces (SITE_SPACES, bound to SpacesForSites). */

/** What sites need of spaces: a space's organization and title (adding it), its Space object (embedded in site spaces), and a new space. */
export interface SiteSpaces {
  spaceById(spaceId: string): Promise<{ id: string; organizationId: string; title: string; deleted: boolean } | null>;
  /**
   * The Space object a site of `organizationId` shows, for one of its readers (null: a reader
   * outside the organization), with that reader's own permissions on the space; null when it is
   * not a live space of that organization.
   */
  presentOnSite(
    spaceId: string,
    organizationId: string,
    caller: Caller | null,
  ): Promise<{ object: 'space'; id: string; title: string } | null>;
  /** Creates a space for a new site (`spaces: 'new'`), as the caller; its id. */
  createSpace(organizationId: string, title: string, caller: Caller): Promise<string>;
}

export const SITE_SPACES = Symbol('SITE_SPACES');

/* Of single sign-on (SITE_DOMAINS, bound to VerifiedDomainsForSites). */

/** What sites need of single sign-on's verified domains: the domains an organization proved it controls (a site's custom hostname must be one of them or under one). */
export interface SiteDomains {
  verifiedDomains(organizationId: string): Promise<readonly string[]>;
}

export const SITE_DOMAINS = Symbol('SITE_DOMAINS');

/* Of content (SITE_CONTENT, bound to ContentForSites). */

/*
 * What the published HTML site needs of content: a space's primary content (its revision and page
 * tree), a page's body, a file's bytes and the space's search. The types are as narrow as the
 * renderer reads them; bodies are untrusted JSON, which the renderer checks member by member.
 */

/** A reference a link, an image or a content-ref block points at (the content model's references). */
export interface SiteContentRef {
  kind: string;
  page?: string;
  space?: string;
  file?: string;
  anchor?: string;
  url?: string;
  [member: string]: unknown;
}

/** A node of a page body: a block, an inline, a text (with leaves) or the document itself. */
export interface SiteDocumentNode {
  object: string;
  type?: string;
  key?: string;
  data?: Record<string, unknown>;
  nodes?: SiteDocumentNode[];
  leaves?: Array<{ text: string; marks?: Array<{ type: string; data?: Record<string, unknown> }> }>;
}

export interface SitePage {
  id: string;
  type: 'document' | 'group' | 'link';
  title: string;
  /** Slugs from the root joined by '/'; link pages have none. */
  path: string;
  parentId: string | null;
  depth: number;
  emoji?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** Adaptive content: an expression over visitor claims. */
  condition?: string;
  /** Link pages. */
  target?: SiteContentRef;
  href?: string;
}

export interface SiteFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
}

/** A space's primary content: its head revision and its pages in tree order (pre-order). */
export interface SiteSpaceContent {
  spaceId: string;
  revisionId: string;
  pages: SitePage[];
  files: SiteFile[];
}

export interface SiteSearchHit {
  id: string;
  title: string;
  path: string;
  description?: string;
  sections: Array<{ id: string; title: string; path: string; body: string }>;
}

export interface SiteContent {
  /** The space's primary content; null when the space does not exist or is deleted. */
  content(spaceId: string): Promise<SiteSpaceContent | null>;
  /** A document page's body in a revision, with the space's and the page's variables substituted; null when absent. */
  document(spaceId: string, revisionId: string, pageId: string): Promise<SiteDocumentNode | null>;
  /** A file of a revision and its bytes; null when absent. */
  file(spaceId: string, revisionId: string, fileId: string): Promise<{ file: SiteFile; body: Readable } | null>;
  /** Pages of a revision matching the query, best first (pages hidden from search are not indexed). */
  search(spaceId: string, revisionId: string, query: string): Promise<SiteSearchHit[]>;
}

export const SITE_CONTENT = Symbol('SITE_CONTENT');

/* Of integrations (SITE_VIEWS, bound to IntegrationsForSites). */

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
  viewed(view: {
    organizationId: string;
    siteId: string;
    spaceId: string;
    pageId: string | null;
    url: string;
    referrer?: string;
    visitor: { claims: Record<string, unknown>; ip?: string; userAgent?: string };
  }): Promise<void>;
}

export const SITE_VIEWS = Symbol('SITE_VIEWS');
