import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '@nestjs/swagger';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, Public, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { CreateSamlProvider, DeleteSamlProvider, UpdateSamlProvider } from './saml-provider.commands';
import { CreateSamlProviderBody, UpdateSamlProviderBody } from './saml-provider.dto';
import type { SamlProviderChanges } from './saml-provider.events';
import { GetSamlProvider, ListSamlProviders, ListSsoOptions } from './saml-provider.queries';
import { Valid } from '#platform/http/validation';

/** SAML providers of an organization (admins only) and its public list of ways to sign in. */
@Controller('v1/orgs/:organizationId')
export class SamlProviderController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('saml')
  @ApiOkResponse({ description: 'OK', schema: listOf('SamlProvider') })
  list(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListSamlProviders(organizationId, caller, { page: query.page, limit: query.limit }));
  }

  @Post('saml')
  @ApiCreatedResponse({ description: 'created', schema: ref('SamlProvider'), headers: etagHeader })
  @HttpCode(201)
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateSamlProviderBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const providerId = await this.commandBus.execute(new CreateSamlProvider(organizationId, { ...body }, caller));
    return this.read(organizationId, providerId, caller, reply);
  }

  @Get('saml/:samlProviderId')
  @ApiOkResponse({ description: 'OK', schema: ref('SamlProvider'), headers: etagHeader })
  get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('samlProviderId', 'SAML provider') providerId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.read(organizationId, providerId, caller, reply);
  }

  /** `If-Match` with the ETag makes it conditional (412 when stale). */
  @Patch('saml/:samlProviderId')
  @ApiOkResponse({ description: 'OK', schema: ref('SamlProvider'), headers: etagHeader })
  async update(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('samlProviderId', 'SAML provider') providerId: string,
    @Body(Valid) body: UpdateSamlProviderBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const changes = { ...body } as SamlProviderChanges;
    await this.commandBus.execute(new UpdateSamlProvider(organizationId, providerId, changes, caller, parseIfMatch(ifMatch)));
    return this.read(organizationId, providerId, caller, reply);
  }

  @Delete('saml/:samlProviderId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async remove(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('samlProviderId', 'SAML provider') providerId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.commandBus.execute(new DeleteSamlProvider(organizationId, providerId, caller, parseIfMatch(ifMatch)));
  }

  /** `{ items: [{ id, label, startURL }] }`: public, since a login page shows it before anyone is signed in. */
  @Get('sso')
  @ApiOkResponse({ description: 'OK', schema: ref('SsoOptions') })
  @Public()
  sso(@PathId('organizationId', 'organization') organizationId: string) {
    return this.queryBus.execute(new ListSsoOptions(organizationId));
  }

  private async read(organizationId: string, providerId: string, caller: Caller, reply: FastifyReply) {
    const { provider, revision } = await this.queryBus.execute(new GetSamlProvider(organizationId, providerId, caller));
    void reply.header('etag', etagOf(revision));
    return provider;
  }
}
