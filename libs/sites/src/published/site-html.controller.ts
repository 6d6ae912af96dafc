import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#platform/http/auth';
import { PathId } from '#platform/http/id-param';
import { servedFileHeaders } from '#platform/http/served-file';
import { SITE_STYLESHEET } from './site-html.css';
import { ServePublishedSite, type SiteAnswer } from './site-html.queries';

/** No script, no frame, no plugin; styles and images from the site itself (images also over https). */
export const SITE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

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
  constructor(private readonly queryBus: QueryBus) {}

  @Get('sites/:siteId')
  root(@PathId('siteId', 'site') siteId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve(siteId, '', request, reply);
  }

  @Get('sites/:siteId/*')
  path(@PathId('siteId', 'site') siteId: string, @Param('*') path: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve(siteId, path, request, reply);
  }

  /** Any other path: the site whose hostname the request's Host names, else no route (the API's 404). */
  @Get('*')
  byHostname(@Param('*') path: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve(null, path, request, reply);
  }

  private async serve(siteId: string | null, path: string, request: FastifyRequest, reply: FastifyReply) {
    const response = await this.queryBus.execute(
      new ServePublishedSite(siteId, path, {
        ip: request.ip,
        hostname: request.hostname,
        url: request.url,
        protocol: request.protocol,
        query: (request.query ?? {}) as Record<string, unknown>,
        headers: request.headers,
      }),
    );
    if (response.kind === 'stylesheet') {
      return reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .header('x-content-type-options', 'nosniff')
        .send(SITE_STYLESHEET);
    }
    if (response.kind === 'remember') {
      return reply
        .status(303)
        .header('set-cookie', response.cookies)
        .header('cache-control', 'private, no-store')
        .header('referrer-policy', 'no-referrer')
        .header('location', response.location)
        .send();
    }
    return this.send(reply, response.answer);
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
