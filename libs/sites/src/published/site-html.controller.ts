import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLOCK, type Clock } from '../../../platform/src/clock';
import { APP_CONFIG, type AppConfig } from '../../../platform/src/config';
import { DomainError } from '../../../platform/src/errors';
import { Public } from '../../../platform/src/http/auth';
import { ApiError } from '../../../platform/src/http/error-envelope';
import { PathId } from '../../../platform/src/http/id-param';
import { RateLimiter } from '../../../platform/src/http/rate-limit';
import { servedFileHeaders } from '../../../platform/src/http/served-file';
import { Inject } from '@nestjs/common';
import { SITE_STYLESHEET } from './site-html.css';
import { SITE_VIEWS, type SiteViews } from '../site-views.port';
import { SiteHostnames } from '../site.hostname-holders';
import { hostOf } from '../site.hostnames';
import { SiteHtmlQueries, type SiteAccess, type SiteAddress, type SiteAnswer } from './site-html.queries';

/** No script, no frame, no plugin; styles and images from the site itself (images also over https). */
export const SITE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const SHARE_KEY_COOKIE = 'site_share_key';
const VISITOR_TOKEN_COOKIE = 'site_visitor_token';
/** Longest share key or visitor token read from a query or a cookie. */
const MAX_SECRET = 4096;
const MAX_SEGMENTS = 64;
/** Fastify's default `maxParamLength`: longer path parameters are refused with 414. */
const ROUTER_MAX_PARAM_LENGTH = 100;

/**
 * The published site as HTML, for browsers: `GET /sites/{siteId}/…` (also under the site's
 * basename), and any other path on a Host that is a site's hostname. Not part of the API: no
 * token, no JSON, left out of the OpenAPI document. Query parameters are read by name and unknown
 * ones ignored (links from elsewhere carry tracking parameters); none of them is a DTO's.
 */
@ApiExcludeController()
@Controller()
@Public()
export class SiteHtmlController {
  /** Requests per client address (the trusted one: TRUST_PROXY_HOPS), so that nobody floods the readers' side. */
  private readonly limiter: RateLimiter;
  /** The service's own host name (PUBLIC_URL's), on which every site is served. */
  private readonly serviceHost: string;

  constructor(
    private readonly queries: SiteHtmlQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SITE_VIEWS) private readonly views: SiteViews,
    private readonly hostnames: SiteHostnames,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.limiter = new RateLimiter(config.sitesRateLimitPerMinute, clock);
    this.serviceHost = new URL(config.publicUrl).hostname.toLowerCase();
  }

  @Get('sites/:siteId')
  root(@PathId('siteId', 'site') siteId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve({ siteId }, `/sites/${siteId}`, '', request, reply);
  }

  @Get('sites/:siteId/*')
  path(@PathId('siteId', 'site') siteId: string, @Param('*') path: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve({ siteId }, `/sites/${siteId}`, path, request, reply);
  }

  /**
   * On a site's custom hostname only that site is served: another site's `/sites/{siteId}` there
   * would publish one organization's pages under another's name. Any other Host serves every site.
   */
  private async servedOnHost(siteId: string, request: FastifyRequest): Promise<boolean> {
    const host = hostOf(request.hostname);
    if (host === this.serviceHost) return true;
    const holder = await this.hostnames.holder(host);
    return holder === null || holder === siteId;
  }

  /** Any other path: the site whose hostname the request's Host names, else no route (the API's 404). */
  @Get('*')
  byHostname(@Param('*') path: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const hostname = (request.hostname ?? '').toLowerCase();
    const own = new URL(this.config.publicUrl).hostname.toLowerCase();
    // What the router answers when no route matches: a segment too long for a route parameter
    // (which, with this wildcard, the router no longer refuses itself) is 414, anything else 404.
    const routeMiss = () => {
      const path = request.url.split('?')[0];
      if (path.split('/').some((segment) => segment.length > ROUTER_MAX_PARAM_LENGTH)) return new ApiError(414, 'a path segment of the request URL is too long');
      return DomainError.notFound(`no route GET ${path.slice(0, 200)}`);
    };
    if (hostname === '' || hostname === own || request.url.startsWith('/v1/') || !/^[a-z0-9.-]{1,512}$/.test(hostname)) throw routeMiss();
    return this.serve({ hostname }, '', path, request, reply, routeMiss);
  }

  private async serve(address: SiteAddress, prefix: string, path: string, request: FastifyRequest, reply: FastifyReply, unknownSite?: () => Error) {
    const allowance = this.limiter.take(request.ip);
    if (!allowance.allowed) {
      throw new ApiError(429, `rate limit of ${this.limiter.perMinute} requests per minute to the published sites exceeded`, { 'Retry-After': String(this.limiter.retryAfter(allowance)) });
    }
    if ('siteId' in address && !(await this.servedOnHost(address.siteId, request))) return this.send(reply, this.queries.notFound());
    const segments = String(path ?? '')
      .split('/')
      .filter((segment) => segment !== '');
    if (segments.length > MAX_SEGMENTS) return this.send(reply, this.queries.notFound());
    if (this.queries.stylesheetSegment(segments)) {
      return reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(SITE_STYLESHEET);
    }
    const query = (request.query ?? {}) as Record<string, unknown>;
    const cookies = parseCookies(request.headers.cookie);
    const given = { shareKey: secret(query.shareKey), visitorToken: secret(query.jwt_token) };
    const access: SiteAccess = { shareKey: given.shareKey ?? secret(cookies.get(SHARE_KEY_COOKIE)), visitorToken: given.visitorToken ?? secret(cookies.get(VISITOR_TOKEN_COOKIE)) };
    let read;
    try {
      read = await this.queries.site(address, withoutUndefined(access));
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) {
        if (unknownSite) throw unknownSite();
        return this.send(reply, this.queries.notFound());
      }
      throw error;
    }
    if (given.shareKey !== undefined || given.visitorToken !== undefined) {
      // Remembered in a cookie of the site's path, and taken out of the address bar (and of Referer headers).
      const cookiePath = prefix === '' ? '/' : prefix;
      const secure = this.config.publicUrl.startsWith('https:') ? '; Secure' : '';
      const set: string[] = [];
      if (given.shareKey !== undefined) set.push(`${SHARE_KEY_COOKIE}=${encodeURIComponent(given.shareKey)}; Path=${cookiePath}; HttpOnly; SameSite=Lax${secure}`);
      if (given.visitorToken !== undefined) set.push(`${VISITOR_TOKEN_COOKIE}=${encodeURIComponent(given.visitorToken)}; Path=${cookiePath}; HttpOnly; SameSite=Lax${secure}`);
      return reply.status(303).header('set-cookie', set).header('cache-control', 'private, no-store').header('referrer-policy', 'no-referrer').header('location', withoutSecrets(request.url)).send();
    }
    try {
      const answer = await this.queries.answer(address, prefix, segments, read, { query: typeof query.q === 'string' ? query.q : undefined, ifNoneMatch: headerOf(request.headers['if-none-match']) });
      if ((answer.kind === 'html' || answer.kind === 'not-modified') && answer.viewed) {
        // Told, not awaited: a view never holds up or fails the reader.
        const origin = 'hostname' in address ? `${request.protocol}://${address.hostname}` : this.config.publicUrl;
        void this.views.viewed({ organizationId: read.site.organizationId, siteId: read.site._id, ...answer.viewed, url: `${origin}${withoutSecrets(request.url)}`, referrer: headerOf(request.headers.referer), visitor: { claims: read.claims, ip: request.ip, userAgent: headerOf(request.headers['user-agent']) } });
      }
      return this.send(reply, answer);
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) return this.send(reply, this.queries.notFound());
      throw error;
    }
  }

  private send(reply: FastifyReply, answer: SiteAnswer) {
    // Whoever presents a visitor token or a share key (in a cookie) may get another answer than
    // whoever does not: every answer varies on Cookie, and those made for one reader stay out of
    // shared caches (SiteAnswer.cache). Nothing here reads Authorization.
    void reply
      .header('cache-control', answer.cache === 'public' ? 'public, max-age=60' : 'private, no-store')
      .header('vary', 'Cookie')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY');
    if (answer.kind === 'not-modified') return reply.status(304).header('etag', answer.etag).send();
    if (answer.kind === 'file') return reply.headers(servedFileHeaders(answer.file)).header('etag', answer.etag).send(answer.body);
    const type = { html: 'text/html', xml: 'application/xml', text: 'text/plain', css: 'text/css' }[answer.kind];
    void reply.status(answer.status).header('content-type', `${type}; charset=utf-8`);
    if (answer.kind === 'html') void reply.header('content-security-policy', SITE_CSP);
    if (answer.etag !== undefined) void reply.header('etag', answer.etag);
    return reply.send(answer.body);
  }
}

function secret(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= MAX_SECRET ? value : undefined;
}

function withoutUndefined(access: SiteAccess): SiteAccess {
  return { ...(access.shareKey !== undefined ? { shareKey: access.shareKey } : {}), ...(access.visitorToken !== undefined ? { visitorToken: access.visitorToken } : {}) };
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
