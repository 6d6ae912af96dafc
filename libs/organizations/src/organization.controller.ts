import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { CachedRead } from '#platform/http/response-cache';
import { ListQuery } from '#platform/http/list';
import { CreateOrganization, UpdateOrganization } from './organization.commands';
import { CreateOrganizationBody, UpdateOrganizationBody } from './organization.dto';
import type { OrganizationChanges } from './organization.events';
import { GetOrganization, GetUserProfile, ListOrganizations, ListOrganizationsByEmailDomain } from './organization.queries';
import { Valid } from '#platform/http/validation';
import { mergeRulesOf } from '#platform/merge-rules';

@Controller('v1')
export class OrganizationController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /** `POST /v1/orgs` (extension) → 201: the caller becomes its admin. */
  @Post('orgs')
  @ApiCreatedResponse({ description: 'created', schema: ref('Organization'), headers: etagHeader })
  @HttpCode(201)
  async create(
    @Body(Valid) body: CreateOrganizationBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const organizationId = await this.commandBus.execute(new CreateOrganization(body.title, body.emailDomains ?? [], caller));
    return this.read(organizationId, caller, reply);
  }

  /** `GET /v1/orgs`: the organizations the caller belongs to. */
  @Get('orgs')
  @ApiOkResponse({ description: 'OK', schema: listOf('Organization') })
  @CachedRead()
  list(@Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListOrganizations(caller, { page: query.page, limit: query.limit }));
  }

  @Get('orgs/:organizationId')
  @ApiOkResponse({ description: 'OK', schema: ref('Organization'), headers: etagHeader })
  @CachedRead()
  get(
    @PathId('organizationId', 'organization') organizationId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.read(organizationId, caller, reply);
  }

  /** Admins only; `If-Match` with the ETag makes it conditional (412 when stale). */
  @Patch('orgs/:organizationId')
  @ApiOkResponse({ description: 'OK', schema: ref('Organization'), headers: etagHeader })
  async update(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: UpdateOrganizationBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const changes = { ...body } as OrganizationChanges;
    if (body.mergeRules !== undefined) changes.mergeRules = mergeRulesOf(body.mergeRules);
    await this.commandBus.execute(new UpdateOrganization(organizationId, changes, caller, parseIfMatch(ifMatch)));
    return this.read(organizationId, caller, reply);
  }

  @Get('email-domains/:emailDomain/orgs')
  @ApiOkResponse({ description: 'OK', schema: ref('OrganizationsByEmailDomain') })
  @CachedRead()
  byEmailDomain(@Param('emailDomain') emailDomain: string, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListOrganizationsByEmailDomain(emailDomain, caller));
  }

  @Get('users/:userId')
  @ApiOkResponse({ description: 'OK', schema: ref('User') })
  @CachedRead()
  user(@PathId('userId', 'user') userId: string, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new GetUserProfile(userId, caller));
  }

  private async read(organizationId: string, caller: Caller, reply: FastifyReply) {
    const { organization, revision } = await this.queryBus.execute(new GetOrganization(organizationId, caller));
    void reply.header('etag', etagOf(revision));
    return organization;
  }
}
