import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { LRUCache } from 'lru-cache';
import { CLOCK, type Clock } from '#platform/clock';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import { ApiError } from '#platform/http/error-envelope';
import { RateLimiter } from '#platform/http/rate-limit';
import {
  SITE_CONTENT,
  SITE_SPACES,
  SITE_VIEWS,
  type SiteContent,
  type SiteFile,
  type SitePage,
  type SiteSpaces,
  type SiteViews,
} from '../sites.needs';
import { SiteHostnames } from '../site.hostname-holders';
import { hostOf } from '../site.hostnames';
import type { SiteDoc, SiteSpaceDoc } from '../site.projections';
import { SiteReaders, type ReaderAccess } from '../site.readers';
import { notFoundPage, pageMain, renderShell, robotsTxt, searchMain, sitemapXml, type NavPage, type SiteShell } from './site-html.layout';
import { renderDocument } from './site-html.render';
import {
  pageAt,
  pageUrl,
  placeOf,
  readablePages,
  referencedSpaces,
  SEARCH_SEGMENT,
  sectionUrl,
  siteRefResolver,
  siteSpaceUrl,
  STYLESHEET_SEGMENT,
  type LoadedSiteSpace,
  type SitePlace,
} from './site-html.site';

/** Where the site is served: under `/sites/{siteId}` or on its own hostname. */
export type SiteAddress = { siteId: string } | { hostname: string };

/** The page a reader viewed, when the answer is a page (for SITE_VIEWS). */
export interface PageViewed {
  spaceId: string;
  pageId: string;
}

/** What a path of the site answers: an HTML page, a text file or a file's bytes; `cache`: whether shared caches may keep the answer ('public') or only the reader's browser ('private'; cacheOf). */
export type SiteAnswer =
  | {
      kind: 'html' | 'xml' | 'text' | 'css';
      status: 200 | 404;
      body: string;
      etag?: string;
      cache: 'public' | 'private';
      viewed?: PageViewed;
    }
  | { kind: 'file'; file: SiteFile; body: Readable; etag: string; cache: 'public' | 'private' }
  | { kind: 'not-modified'; etag: string; cache: 'public' | 'private'; viewed?: PageViewed };

/** Longest search query read (the API's search refuses longer ones). */
export const MAX_SITE_QUERY = 512;
/** Search results listed. */
const MAX_RESULTS = 50;

const SHARE_KEY_COOKIE = 'site_share_key';
const VISITOR_TOKEN_COOKIE = 'site_visitor_token';
/** Longest share key or visitor token read from a query or a cookie. */
const MAX_SECRET = 4096;
const MAX_SEGMENTS = 64;
/** Fastify's default `maxParamLength`: longer path parameters are refused with 414. */
const ROUTER_MAX_PARAM_LENGTH = 100;

/** What the published site's handler reads of a request. */
export interface SiteRequest {
  /** The client address (the trusted one: TRUST_PROXY_HOPS). */
  ip: string;
  /** The Host, without its port. */
  hostname: string;
  url: string;
  protocol: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * What the controller sends: the site's stylesheet; a 303 to the same address without the share
 * key or visitor token it carried, with the cookies that remember them; or the site's answer.
 */
export type SiteResponse =
  { kind: 'stylesheet' } | { kind: 'remember'; cookies: string[]; location: string } | { kind: 'answer'; answer: SiteAnswer };

/**
 * `GET /sites/{siteId}/…` (also under the site's basename; `siteId` given), and any other path on a
 * Host that is a site's hostname (`siteId` null): the published site as HTML (docs/api/sites.md,
 * The published site as HTML), pages with the site's navigation, search, files, the sitemap and
 * robots.txt, for whoever the site's visibility lets in. A path on no site's Host is no route (the
 * API's 404, or 414 for an over-long segment). Query parameters are read by name and unknown ones
 * ignored (links from elsewhere carry tracking parameters).
 */
export class ServePublishedSite extends Query<SiteResponse> {
  constructor(
    readonly siteId: string | null,
    readonly path: string,
    readonly request: SiteRequest,
  ) {
    super();
  }
}

/**
 * Content comes through the SITE_CONTENT port; who may read is SiteReaders' decision. A page a
 * reader viewed is told to SITE_VIEWS.
 */
@QueryHandler(ServePublishedSite)
export class ServePublishedSiteHandler implements IQueryHandler<ServePublishedSite> {
  /** Requests per client address (the trusted one: TRUST_PROXY_HOPS), so that nobody floods the readers' side. */
  private readonly limiter: RateLimiter;
  /** The service's own host name (PUBLIC_URL's), on which every site is served. */
  private readonly serviceHost: string;
  /** Pages' HTML by their ETag, which names every input of the HTML (`answer`). */
  private readonly rendered = new LRUCache<string, string>({
    maxSize: 32 * 1024 * 1024,
    sizeCalculation: (html, etag) => html.length + etag.length + 64,
  });

  constructor(
    private readonly readers: SiteReaders,
    private readonly hostnames: SiteHostnames,
    @Inject(SITE_CONTENT) private readonly content: SiteContent,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
    @Inject(SITE_VIEWS) private readonly views: SiteViews,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.limiter = new RateLimiter(config.sitesRateLimitPerMinute, clock);
    this.serviceHost = new URL(config.publicUrl).hostname.toLowerCase();
  }

  execute({ siteId, path, request }: ServePublishedSite): Promise<SiteResponse> {
    if (siteId !== null) return this.serve({ siteId }, `/sites/${siteId}`, path, request);
    const hostname = (request.hostname ?? '').toLowerCase();
    const own = new URL(this.config.publicUrl).hostname.toLowerCase();
    // What the router answers when no route matches: a segment too long for a route parameter
    // (which, with the controller's wildcard, the router no longer refuses itself) is 414, anything else 404.
    const routeMiss = () => {
      const path = request.url.split('?')[0];
      if (path.split('/').some((segment) => segment.length > ROUTER_MAX_PARAM_LENGTH))
        return new ApiError(414, 'a path segment of the request URL is too long');
      return DomainError.notFound(`no route GET ${path.slice(0, 200)}`);
    };
    if (hostname === '' || hostname === own || request.url.startsWith('/v1/') || !/^[a-z0-9.-]{1,512}$/.test(hostname)) throw routeMiss();
    return this.serve({ hostname }, '', path, request, routeMiss);
  }

  private async serve(
    address: SiteAddress,
    prefix: string,
    path: string,
    request: SiteRequest,
    unknownSite?: () => Error,
  ): Promise<SiteResponse> {
    const allowance = this.limiter.take(request.ip);
    if (!allowance.allowed) {
      throw new ApiError(429, `rate limit of ${this.limiter.perMinute} requests per minute to the published sites exceeded`, {
        'Retry-After': String(this.limiter.retryAfter(allowance)),
      });
    }
    if ('siteId' in address && !(await this.servedOnHost(address.siteId, request))) return { kind: 'answer', answer: notFound() };
    const segments = String(path ?? '')
      .split('/')
      .filter((segment) => segment !== '');
    if (segments.length > MAX_SEGMENTS) return { kind: 'answer', answer: notFound() };
    if (segments[segments.length - 1] === STYLESHEET_SEGMENT && segments.length <= 2) return { kind: 'stylesheet' };
    const query = request.query;
    const cookies = parseCookies(headerOf(request.headers.cookie));
    const given = { shareKey: secret(query.shareKey), visitorToken: secret(query.jwt_token) };
    const access: ReaderAccess = {
      shareKey: given.shareKey ?? secret(cookies.get(SHARE_KEY_COOKIE)),
      visitorToken: given.visitorToken ?? secret(cookies.get(VISITOR_TOKEN_COOKIE)),
    };
    let read;
    try {
      read = await this.readers.readable(address, withoutUndefined(access));
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) {
        if (unknownSite) throw unknownSite();
        return { kind: 'answer', answer: notFound() };
      }
      throw error;
    }
    if (given.shareKey !== undefined || given.visitorToken !== undefined) {
      // Remembered in a cookie of the site's path, and taken out of the address bar (and of Referer headers).
      const cookiePath = prefix === '' ? '/' : prefix;
      const secure = this.config.publicUrl.startsWith('https:') ? '; Secure' : '';
      const set: string[] = [];
      if (given.shareKey !== undefined)
        set.push(`${SHARE_KEY_COOKIE}=${encodeURIComponent(given.shareKey)}; Path=${cookiePath}; HttpOnly; SameSite=Lax${secure}`);
      if (given.visitorToken !== undefined)
        set.push(`${VISITOR_TOKEN_COOKIE}=${encodeURIComponent(given.visitorToken)}; Path=${cookiePath}; HttpOnly; SameSite=Lax${secure}`);
      return { kind: 'remember', cookies: set, location: withoutSecrets(request.url) };
    }
    try {
      const answer = await this.answer(address, prefix, segments, read, {
        query: typeof query.q === 'string' ? query.q : undefined,
        ifNoneMatch: headerOf(request.headers['if-none-match']),
      });
      if ((answer.kind === 'html' || answer.kind === 'not-modified') && answer.viewed) {
        // Told, not awaited: a view never holds up or fails the reader.
        const origin = 'hostname' in address ? `${request.protocol}://${address.hostname}` : this.config.publicUrl;
        void this.views.viewed({
          organizationId: read.site.organizationId,
          siteId: read.site._id,
          ...answer.viewed,
          url: `${origin}${withoutSecrets(request.url)}`,
          referrer: headerOf(request.headers.referer),
          visitor: { claims: read.claims, ip: request.ip, userAgent: headerOf(request.headers['user-agent']) },
        });
      }
      return { kind: 'answer', answer };
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) return { kind: 'answer', answer: notFound() };
      throw error;
    }
  }

  /**
   * On a site's custom hostname only that site is served: another site's `/sites/{siteId}` there
   * would publish one organization's pages under another's name. Any other Host serves every site.
   */
  private async servedOnHost(siteId: string, request: SiteRequest): Promise<boolean> {
    const host = hostOf(request.hostname);
    if (host === this.serviceHost) return true;
    const holder = await this.hostnames.holder(host);
    return holder === null || holder === siteId;
  }

  /**
   * What a path of the site answers. `prefix` is where the site is mounted (`/sites/{siteId}`, or ''
   * on its hostname); `segments` the path after it; `ifNoneMatch` the request's validator.
   */
  private async answer(
    address: SiteAddress,
    prefix: string,
    segments: readonly string[],
    read: { site: SiteDoc; claims: Record<string, unknown> },
    request: { query?: string; ifNoneMatch?: string },
  ): Promise<SiteAnswer> {
    const { site, claims } = read;
    let rest = [...segments];
    let base = prefix;
    if (site.basename && rest[0] === site.basename && 'siteId' in address) rest = rest.slice(1);
    if (site.basename && 'siteId' in address) base = `${prefix}/${site.basename}`;
    const cache = cacheOf(site, claims);
    if (rest.length === 1 && rest[0] === 'robots.txt')
      return {
        kind: 'text',
        status: 200,
        body: robotsTxt(site.visibility === 'public' ? `${this.origin(address)}${base}/sitemap.xml` : null),
        cache,
      };
    if (rest.length === 1 && rest[0] === 'sitemap.xml') {
      if (site.visibility !== 'public') throw DomainError.notFound('no sitemap for this site');
      return { kind: 'xml', status: 200, body: await this.sitemap(address, base, site, claims), cache };
    }
    const place = placeOf(site, rest);
    if (!place) throw DomainError.notFound('no such page');
    const current = await this.load(base, site, place.siteSpace, claims);
    if (!current) throw DomainError.notFound('no such page');
    const etag = `"${site.streamRevision}.${current.content.revisionId}.${claimsDigest(claims)}"`;
    if (place.rest.kind === 'file') {
      const found = await this.content.file(current.content.spaceId, current.content.revisionId, place.rest.fileId);
      if (!found) throw DomainError.notFound('no such file');
      if (matches(request.ifNoneMatch, etag)) return { kind: 'not-modified', etag, cache };
      return { kind: 'file', file: found.file, body: found.body, etag, cache };
    }
    if (place.rest.kind === 'search') {
      const query = (request.query ?? '').slice(0, MAX_SITE_QUERY).trim();
      return { kind: 'html', status: 200, body: await this.searchPage(base, site, place, current, query), cache };
    }
    const page =
      place.rest.path === '' && place.siteSpace.pageId
        ? (homePage(current.pages, place.siteSpace.pageId) ?? pageAt(current.pages, ''))
        : pageAt(current.pages, place.rest.path);
    if (!page) throw DomainError.notFound('no such page');
    const viewed = { spaceId: current.content.spaceId, pageId: page.id };
    const document = await this.content.document(current.content.spaceId, current.content.revisionId, page.id);
    const others = await this.others(base, site, current, referencedSpaces(document, current.content.spaceId), claims);
    const variants = await this.variants(base, site, place);
    // Everything the page's HTML is made of besides the site's revision and this space's content:
    // the reader's claims, the specs' versions of the operations it shows, the revisions of the
    // other spaces it links to, the titles of the spaces among its variants, which site and where.
    const inputs = [
      claimsDigest(claims),
      specVersions(document),
      others.map((other) => [other.content.spaceId, other.content.revisionId]),
      variants.map((variant) => variant.title),
      [site._id, base, place.section?.id ?? '', place.siteSpace.id, page.id],
    ];
    const pageEtag = `"${site.streamRevision}.${current.content.revisionId}.${digest(inputs)}"`;
    if (matches(request.ifNoneMatch, pageEtag)) return { kind: 'not-modified', etag: pageEtag, cache, viewed };
    // The ETag names every input, so the HTML rendered for it is reused while it stands: rendering the
    // page and its navigation was most of this route's time.
    let body = this.rendered.get(pageEtag);
    if (body === undefined) {
      const main = renderDocument(document, { resolve: siteRefResolver(current, others) });
      const shell = this.shell(base, site, place, current, page.id, variants);
      const noIndex = site.visibility !== 'public' || page.noIndex === true || page.noRobotsIndex === true;
      body = renderShell({ ...shell, title: page.title, noIndex, main: pageMain(page.title, page.description, main) });
      this.rendered.set(pageEtag, body);
    }
    return { kind: 'html', status: 200, body, etag: pageEtag, cache, viewed };
  }

  // ---- parts --------------------------------------------------------------------------------------

  private origin(address: SiteAddress): string {
    if ('siteId' in address) return this.config.publicUrl;
    return `${new URL(this.config.publicUrl).protocol}//${address.hostname}`;
  }

  /** A site space's content as the reader sees it; null when its space is gone. */
  private async load(
    base: string,
    site: SiteDoc,
    siteSpace: SiteSpaceDoc,
    claims: Record<string, unknown>,
  ): Promise<LoadedSiteSpace | null> {
    // A space that went to another organization is not published by this one's site, even before
    // the site-transferred-spaces reactor has removed its site spaces.
    const space = await this.spaces.spaceById(siteSpace.spaceId);
    if (!space || space.organizationId !== site.organizationId) return null;
    const content = await this.content.content(siteSpace.spaceId);
    if (!content) return null;
    return { siteSpace, url: siteSpaceUrl(base, site, siteSpace), content, pages: readablePages(content, claims) };
  }

  /** The site spaces (other than the current one) showing the spaces a body links to. */
  private async others(
    base: string,
    site: SiteDoc,
    current: LoadedSiteSpace,
    spaceIds: ReadonlySet<string>,
    claims: Record<string, unknown>,
  ): Promise<LoadedSiteSpace[]> {
    const wanted = site.siteSpaces.filter((siteSpace) => siteSpace.id !== current.siteSpace.id && spaceIds.has(siteSpace.spaceId));
    const unique = [...new Map(wanted.map((siteSpace) => [siteSpace.spaceId, siteSpace])).values()].slice(0, 20);
    const loaded = await Promise.all(unique.map((siteSpace) => this.load(base, site, siteSpace, claims)));
    return loaded.filter((entry): entry is LoadedSiteSpace => entry !== null);
  }

  /** The site spaces of the place's section, each with its title: the variants the page offers (hidden ones left out, unless it is the current one). */
  private variants(base: string, site: SiteDoc, place: SitePlace): Promise<SiteShell['variants']> {
    const inScope = site.siteSpaces.filter(
      (siteSpace) =>
        siteSpace.sectionId === place.siteSpace.sectionId && (siteSpace.hidden !== true || siteSpace.id === place.siteSpace.id),
    );
    return Promise.all(
      inScope.map(async (siteSpace) => ({
        title: siteSpace.title || (await this.spaces.spaceById(siteSpace.spaceId))?.title || siteSpace.path,
        href: siteSpaceUrl(base, site, siteSpace),
        current: siteSpace.id === place.siteSpace.id,
      })),
    );
  }

  private shell(
    base: string,
    site: SiteDoc,
    place: SitePlace,
    current: LoadedSiteSpace,
    currentPageId: string | null,
    variants: SiteShell['variants'],
  ): Omit<SiteShell, 'title' | 'noIndex' | 'main'> {
    const groups = new Map((site.groups ?? []).map((group) => [group.id, group.title]));
    const sections = site.sections.map((section) => {
      const group = section.sectionGroup ? groups.get(section.sectionGroup) : undefined;
      return {
        title: section.title,
        href: sectionUrl(base, site, section),
        current: section.id === place.section?.id,
        ...(group !== undefined ? { group } : {}),
      };
    });
    const resolve = siteRefResolver(current, []);
    return {
      siteTitle: site.title,
      homeHref: base === '' ? '/' : base,
      stylesheetHref: `${base}/${STYLESHEET_SEGMENT}`,
      searchAction: `${current.url === '/' ? '' : current.url}/${SEARCH_SEGMENT}`,
      sections,
      variants,
      pages: navTree(current.pages, current.url, currentPageId, (page) => {
        const target = page.target ? resolve(page.target) : page.href ? resolve({ kind: 'url', url: page.href }) : null;
        return target?.href ?? null;
      }),
    };
  }

  private async searchPage(base: string, site: SiteDoc, place: SitePlace, current: LoadedSiteSpace, query: string): Promise<string> {
    const readable = new Map(current.pages.map((page) => [page.id, page]));
    const hits = query === '' ? [] : await this.content.search(current.content.spaceId, current.content.revisionId, query);
    const results = hits
      .filter((hit) => readable.has(hit.id))
      .slice(0, MAX_RESULTS)
      .map((hit) => ({
        title: hit.title,
        href: pageUrl(current.url, readable.get(hit.id)!),
        snippet: hit.sections[0]?.body ?? hit.description ?? '',
      }));
    const shell = this.shell(base, site, place, current, null, await this.variants(base, site, place));
    return renderShell({
      ...shell,
      query,
      title: query === '' ? 'Search' : `Search: ${query}`,
      noIndex: true,
      main: searchMain(query, results),
    });
  }

  private async sitemap(address: SiteAddress, base: string, site: SiteDoc, claims: Record<string, unknown>): Promise<string> {
    const origin = this.origin(address);
    const loaded = await Promise.all(site.siteSpaces.map((siteSpace) => this.load(base, site, siteSpace, claims)));
    const urls = loaded.flatMap((entry) =>
      entry
        ? entry.pages
            .filter((page) => page.type === 'document' && !page.hidden && !page.noIndex && !page.noRobotsIndex)
            .map((page) => `${origin}${pageUrl(entry.url, page)}`)
        : [],
    );
    return sitemapXml(urls);
  }
}

/** A site space's custom home page: a document page the reader may read (else null, and its first page is shown). */
export function homePage(pages: readonly SitePage[], pageId: string): SitePage | null {
  return pages.find((page) => page.id === pageId && page.type === 'document') ?? null;
}

/** The pages as navigation: hidden pages left out, groups as headings, link pages to their targets. */
export function navTree(
  pages: readonly SitePage[],
  spaceUrl: string,
  currentPageId: string | null,
  linkHref: (page: SitePage) => string | null,
): NavPage[] {
  const byParent = new Map<string | null, SitePage[]>();
  for (const page of pages) {
    if (page.hidden) continue;
    const siblings = byParent.get(page.parentId) ?? [];
    siblings.push(page);
    byParent.set(page.parentId, siblings);
  }
  const build = (parentId: string | null, depth: number): NavPage[] =>
    depth > 32
      ? []
      : (byParent.get(parentId) ?? []).flatMap((page): NavPage[] => {
          const children = build(page.id, depth + 1);
          const emoji = page.emoji ? { emoji: page.emoji } : {};
          if (page.type === 'group') return [{ title: page.title, href: null, current: false, external: false, ...emoji, children }];
          if (page.type === 'link') {
            const href = linkHref(page);
            return href === null
              ? []
              : [{ title: page.title, href, current: false, external: /^[a-z][a-z0-9+.-]*:/i.test(href), ...emoji, children: [] }];
          }
          return [
            { title: page.title, href: pageUrl(spaceUrl, page), current: page.id === currentPageId, external: false, ...emoji, children },
          ];
        });
  return build(null, 0);
}

/**
 * Who may keep an answer: shared caches only when it is the same for every reader, that is on a
 * site anyone may read and for a reader without claims (a visitor token's claims may open site
 * spaces and pages that others do not see). A share key changes nothing on such a site.
 */
export function cacheOf(site: Pick<SiteDoc, 'visibility'>, claims: Record<string, unknown>): 'public' | 'private' {
  return (site.visibility === 'public' || site.visibility === 'unlisted') && Object.keys(claims).length === 0 ? 'public' : 'private';
}

function claimsDigest(claims: Record<string, unknown>): string {
  // Most readers carry no claims: their digest is computed once.
  if (Object.keys(claims).length === 0) return NO_CLAIMS_DIGEST;
  return createHash('sha256').update(JSON.stringify(claims)).digest('base64url').slice(0, 12);
}
const NO_CLAIMS_DIGEST = createHash('sha256').update('{}').digest('base64url').slice(0, 12);

/** Whether an If-None-Match header names the ETag (a list, `*`, weak or strong). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((part) => part.trim().replace(/^W\//, ''))
    .some((part) => part === '*' || part === etag);
}

/** The spec versions the document's resolved operations come from, sorted: a page showing operations changes with them. */
function specVersions(document: unknown): string[] {
  const versions = new Set<string>();
  const visit = (node: unknown, depth: number) => {
    if (depth > 64 || typeof node !== 'object' || node === null) return;
    const { data, nodes } = node as { data?: { operation?: { specVersion?: unknown } }; nodes?: unknown };
    if (typeof data?.operation?.specVersion === 'string') versions.add(data.operation.specVersion);
    if (Array.isArray(nodes)) for (const child of nodes) visit(child, depth + 1);
  };
  visit(document, 0);
  return [...versions].sort();
}

/** A short digest of nested lists of strings (as JSON, so that no two different lists give the same text). */
function digest(inputs: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(inputs)).digest('base64url').slice(0, 22);
}

/** The published site's 404 page. */
function notFound(): SiteAnswer {
  return { kind: 'html', status: 404, body: notFoundPage(), cache: 'private' };
}

function secret(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= MAX_SECRET ? value : undefined;
}

function withoutUndefined(access: ReaderAccess): ReaderAccess {
  return {
    ...(access.shareKey !== undefined ? { shareKey: access.shareKey } : {}),
    ...(access.visitorToken !== undefined ? { visitorToken: access.visitorToken } : {}),
  };
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** The cookies of a Cookie header (first value of each name; values percent-decoded when they can be). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').slice(0, 16_384).split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    const name = part.slice(0, separator).trim();
    if (cookies.has(name)) continue;
    const raw = part.slice(separator + 1).trim();
    try {
      cookies.set(name, decodeURIComponent(raw));
    } catch {
      cookies.set(name, raw);
    }
  }
  return cookies;
}

/** The request's URL without `shareKey` and `jwt_token`. */
export function withoutSecrets(url: string): string {
  const [path, search = ''] = url.split(/\?(.*)/s, 2);
  const params = new URLSearchParams(search);
  params.delete('shareKey');
  params.delete('jwt_token');
  const rest = params.toString();
  // A path starting with `//` or `/\` would be read by the browser as another host.
  return `${path.replace(/^[/\\]+/, '/')}${rest ? `?${rest}` : ''}`;
}
