import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Get, Headers, HttpCode, Post, Put, Res } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { Valid } from '#platform/http/validation';
import { etagHeader, ref } from '#platform/platform.schemas';
import { ConfigureVisitorAuth, RotateVisitorKey } from './site.commands';
import { VisitorAuthBody } from './site.dto';
import { GetSiteVisitorAuth } from './site.queries';
import { SiteRoutes } from './site.routes';

/** A site's visitor authentication (extension): `/sites/{siteId}/visitor-auth…`, versioned by the site's stream. */
@Controller('v1/orgs/:organizationId/sites')
@SiteRoutes()
export class SiteVisitorAuthController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /** The site's HS256 key for visitor tokens and its JWKS URL (administrators only). */
  @Get(':siteId/visitor-auth')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteVisitorAuth'), headers: etagHeader })
  async visitorAuth(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetSiteVisitorAuth(organizationId, siteId, caller)));
  }

  @Put(':siteId/visitor-auth')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteVisitorAuth'), headers: etagHeader })
  async configureVisitorAuth(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: VisitorAuthBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new ConfigureVisitorAuth(
        organizationId,
        siteId,
        { jwksUrl: body.jwksUrl ?? null, issuer: body.issuer ?? null },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteVisitorAuth(organizationId, siteId, caller)));
  }

  /** A new HS256 key: tokens signed with the previous one stop opening the site. */
  @Post(':siteId/visitor-auth/rotate')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the new key', schema: ref('SiteVisitorAuth'), headers: etagHeader })
  async rotateVisitorKey(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new RotateVisitorKey(organizationId, siteId, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteVisitorAuth(organizationId, siteId, caller)));
  }
}
