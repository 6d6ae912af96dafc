import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Header, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, OptionalCaller, Public, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { CreateSite, DeleteSite, PublishSite, UpdateSite } from './site.commands';
import { CreateSiteBody, PublishedSiteQuery, SiteListQuery, UpdateSiteBody } from './site.dto';
import { GetPublishedSite, GetSite, ListSites } from './site.queries';
import { SiteRoutes } from './site.routes';

/**
 * Docs sites: `/v1/orgs/{organizationId}/sites` and `/sites/{siteId}` (the interface's "Docs sites"
 * table), with publishing as an extension. The site's parts have controllers of their own, under the
 * same prefix: share links, visitor authentication, sections (with their groups and the structure),
 * the adaptive schema and site spaces.
 * Every part of a site is versioned by the site's stream: single objects answer its `ETag`, and
 * every write but a creation accepts it as `If-Match` (412 when stale).
 */
@Controller('v1/orgs/:organizationId/sites')
@SiteRoutes()
export class SiteController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('Site') })
  list(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: SiteListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSites(organizationId, caller, query));
  }

  @Post()
  @ApiCreatedResponse({ description: 'created', schema: ref('Site'), headers: etagHeader })
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateSiteBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const siteId = await this.commandBus.execute(new CreateSite(organizationId, body, caller));
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Get(':siteId')
  @ApiOkResponse({ description: 'OK', schema: ref('Site'), headers: etagHeader })
  async get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Patch(':siteId')
  @ApiOkResponse({ description: 'OK', schema: ref('Site'), headers: etagHeader })
  async update(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: UpdateSiteBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { defaultSiteSpace, defaultSiteSection, ...members } = body;
    const changes = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
    await this.commandBus.execute(
      new UpdateSite(
        organizationId,
        siteId,
        changes,
        {
          ...(defaultSiteSpace !== undefined ? { defaultSiteSpace } : {}),
          ...(defaultSiteSection !== undefined ? { defaultSiteSection } : {}),
        },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Delete(':siteId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted' })
  async delete(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteSite(organizationId, siteId, caller, parseIfMatch(ifMatch)));
  }

  /** Publishing (extension): the site becomes reachable by the audience its visibility defines. */
  @Post(':siteId/publish')
  @HttpCode(200)
  @ApiOkResponse({ description: 'published', schema: ref('Site'), headers: etagHeader })
  async publish(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new PublishSite(organizationId, siteId, true, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Post(':siteId/unpublish')
  @HttpCode(200)
  @ApiOkResponse({ description: 'unpublished', schema: ref('Site'), headers: etagHeader })
  async unpublish(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new PublishSite(organizationId, siteId, false, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  /** The published site and its structure, as its reader sees it (members of the organization see every visibility). */
  @Get(':siteId/published')
  @Public()
  // The answer depends on the reader (their token, share key or visitor token): no shared cache keeps it.
  @Header('Cache-Control', 'private, no-store')
  @Header('Vary', 'Authorization')
  @ApiOkResponse({ description: 'OK', schema: ref('PublishedContentSite') })
  published(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: PublishedSiteQuery,
    @OptionalCaller() caller: Caller | undefined,
  ) {
    return this.queryBus.execute(
      new GetPublishedSite(organizationId, siteId, { shareKey: query.shareKey, visitorToken: query.jwt_token }, caller),
    );
  }
}
