import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { AddSiteSpace, MoveSiteSpace, RemoveSiteSpace, UpdateSiteSpace } from './site-spaces.commands';
import { AddSiteSpaceBody, MoveSiteSpaceBody, SiteSpaceListQuery, UpdateSiteSpaceBody } from './site.dto';
import { GetSiteSpace, ListSiteSpaces } from './site-spaces.queries';
import { idPosition, SiteRoutes } from './site.routes';

/** A site's site spaces (the interface's "Site spaces" table): `/sites/{siteId}/site-spaces…`, versioned by the site's stream. */
@Controller('v1/orgs/:organizationId/sites')
@SiteRoutes()
export class SiteSpacesController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get(':siteId/site-spaces')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteSpace') })
  siteSpaces(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: SiteSpaceListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteSpaces(organizationId, siteId, caller, query));
  }

  @Post(':siteId/site-spaces')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteSpace'), headers: etagHeader })
  async addSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: AddSiteSpaceBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const siteSpaceId = await this.commandBus.execute(new AddSiteSpace(organizationId, siteId, body, caller));
    return tagged(reply, await this.queryBus.execute(new GetSiteSpace(organizationId, siteId, siteSpaceId, caller)));
  }

  @Patch(':siteId/site-spaces/:siteSpaceId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSpace'), headers: etagHeader })
  async updateSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSpaceId', 'site space') siteSpaceId: string,
    @Body(Valid) body: UpdateSiteSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const changes = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    await this.commandBus.execute(new UpdateSiteSpace(organizationId, siteId, siteSpaceId, changes, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteSpace(organizationId, siteId, siteSpaceId, caller)));
  }

  @Delete(':siteId/site-spaces/:siteSpaceId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'removed' })
  async removeSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSpaceId', 'site space') siteSpaceId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveSiteSpace(organizationId, siteId, siteSpaceId, caller, parseIfMatch(ifMatch)));
  }

  /** Deprecated in the interface in favour of sorting the whole structure; kept as the interface has it. */
  @Post(':siteId/site-spaces/:siteSpaceId/move')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSpace'), headers: etagHeader })
  async moveSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSpaceId', 'site space') siteSpaceId: string,
    @Body(Valid) body: MoveSiteSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new MoveSiteSpace(
        organizationId,
        siteId,
        siteSpaceId,
        idPosition(body.position, (anchor) => anchor.siteSpace),
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteSpace(organizationId, siteId, siteSpaceId, caller)));
  }
}
