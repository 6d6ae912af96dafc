import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Get, Headers, Put, Res } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { Valid } from '#platform/http/validation';
import { etagHeader, ref } from '#platform/platform.schemas';
import { SetAdaptiveSchema } from './site.commands';
import { AdaptiveSchemaBody } from './site.dto';
import { GetSiteAdaptiveSchema, ListSiteTemplateConditions } from './site.queries';
import { SiteRoutes } from './site.routes';

/** A site's adaptive content: its schema of visitor claims and the conditions its templates may use, `/sites/{siteId}/adaptive-schema…`. */
@Controller('v1/orgs/:organizationId/sites')
@SiteRoutes()
export class SiteAdaptiveSchemaController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get(':siteId/adaptive-schema')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteAdaptiveSchema'), headers: etagHeader })
  async adaptiveSchema(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetSiteAdaptiveSchema(organizationId, siteId, caller)));
  }

  @Put(':siteId/adaptive-schema')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteAdaptiveSchema'), headers: etagHeader })
  async setAdaptiveSchema(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: AdaptiveSchemaBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new SetAdaptiveSchema(organizationId, siteId, body.jsonSchema, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteAdaptiveSchema(organizationId, siteId, caller)));
  }

  @Get(':siteId/adaptive-schema/template-conditions')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteTemplateConditions') })
  templateConditions(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteTemplateConditions(organizationId, siteId, caller));
  }
}
