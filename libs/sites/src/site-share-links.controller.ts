import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { CreateSiteShareLink, DeleteSiteShareLink, UpdateSiteShareLink } from './site-share-links.commands';
import { CreateShareLinkBody, UpdateShareLinkBody } from './site.dto';
import { GetSiteShareLink, ListSiteShareLinks } from './site-share-links.queries';
import { SiteRoutes } from './site.routes';

/** A site's share links (extension, at the platform's paths): `/sites/{siteId}/share-links…`, versioned by the site's stream. */
@Controller('v1/orgs/:organizationId/sites')
@SiteRoutes()
export class SiteShareLinksController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get(':siteId/share-links')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteShareLink') })
  shareLinks(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteShareLinks(organizationId, siteId, caller, query));
  }

  /** → 201 with the share link; its `key` is the `shareKey` readers of a share-link site present. */
  @Post(':siteId/share-links')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteShareLink'), headers: etagHeader })
  async createShareLink(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: CreateShareLinkBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const shareLinkId = await this.commandBus.execute(new CreateSiteShareLink(organizationId, siteId, body.name, caller));
    return tagged(reply, await this.queryBus.execute(new GetSiteShareLink(organizationId, siteId, shareLinkId, caller)));
  }

  @Patch(':siteId/share-links/:shareLinkId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteShareLink'), headers: etagHeader })
  async updateShareLink(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('shareLinkId', 'shareLink') shareLinkId: string,
    @Body(Valid) body: UpdateShareLinkBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new UpdateSiteShareLink(
        organizationId,
        siteId,
        shareLinkId,
        { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.active !== undefined ? { active: body.active } : {}) },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteShareLink(organizationId, siteId, shareLinkId, caller)));
  }

  @Delete(':siteId/share-links/:shareLinkId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted: its key no longer opens the site' })
  async deleteShareLink(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('shareLinkId', 'shareLink') shareLinkId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteSiteShareLink(organizationId, siteId, shareLinkId, caller, parseIfMatch(ifMatch)));
  }
}
