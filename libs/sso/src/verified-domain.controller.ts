import { Body, Controller, createParamDecorator, Delete, Get, Headers, HttpCode, Post, Res, type ExecutionContext } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { DomainError } from '#platform/errors';
import { AdminOnly, CurrentCaller, type Caller } from '#platform/http/auth';
import { PathId } from '#platform/http/id-param';
import { Valid } from '#platform/http/validation';
import { closedObject, dateTime, etagHeader, listOf, type JsonSchema } from '#platform/platform.schemas';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { AddVerifiedDomain, RemoveVerifiedDomain, VerifyDomainByAdmin, VerifyDomainByDns } from './verified-domain.commands';
import { GetVerifiedDomain, ListVerifiedDomains } from './verified-domain.queries';
import { normalizeDomain } from './verified-domain.decider';

/** `POST /v1/orgs/{organizationId}/verified-domains`. */
export class AddVerifiedDomainBody {
  /** A domain name such as `example.com` (case does not matter). */
  @IsString()
  @MaxLength(254)
  domain!: string;
}

/** The verified-domain resource (VerifiedDomainObject), for the OpenAPI document. */
const VERIFIED_DOMAIN: JsonSchema = closedObject(
  {
    object: { type: 'string', enum: ['verified-domain'] },
    domain: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'verified'] },
    txtRecord: closedObject({ name: { type: 'string' }, value: { type: 'string' } }),
    verifiedAt: dateTime,
    method: { type: 'string', enum: ['dns-txt', 'admin'] },
  },
  ['verifiedAt', 'method'],
);

/** `{domain}` in a path, lower-cased; 404 for anything that cannot be a domain name. */
const PathDomain = () =>
  createParamDecorator(
    (_: unknown, context: ExecutionContext) => {
      const raw = context.switchToHttp().getRequest<{ params: Record<string, unknown> }>().params.domain;
      const domain = normalizeDomain(raw);
      if (domain === null) throw DomainError.notFound(`no domain ${JSON.stringify(String(raw).slice(0, 64))}`);
      return domain;
    },
    [
      (target: object, key: string | symbol | undefined) => {
        if (key !== undefined)
          ApiParam({ name: 'domain', type: String, required: true })(target, key, Object.getOwnPropertyDescriptor(target, key)!);
      },
    ],
  )();

/**
 * E-mail domains of an organization (admins only). A verified domain lets the organization's SAML
 * providers create accounts for its addresses and sign in accounts that have them. A domain answers
 * the ETag of the organization's domain stream (where all its domains live), and its writes accept
 * it as `If-Match` (412 when stale).
 */
@Controller('v1/orgs/:organizationId/verified-domains')
export class VerifiedDomainController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'the domains, in the order they were added', schema: listOf(VERIFIED_DOMAIN) })
  list(@PathId('organizationId', 'organization') organizationId: string, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListVerifiedDomains(organizationId, caller));
  }

  /** 201 with the TXT record to publish. */
  @Post()
  @ApiCreatedResponse({ description: 'added, pending until its TXT record is found', schema: VERIFIED_DOMAIN, headers: etagHeader })
  @HttpCode(201)
  async add(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: AddVerifiedDomainBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const domain = normalizeDomain(body.domain);
    if (domain === null) throw DomainError.invalid('domain must be a domain name such as example.com');
    return tagged(reply, await this.commandBus.execute(new AddVerifiedDomain(organizationId, domain, caller)));
  }

  @Get(':domain')
  @ApiOkResponse({ description: 'the domain', schema: VERIFIED_DOMAIN, headers: etagHeader })
  async get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathDomain() domain: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetVerifiedDomain(organizationId, domain, caller)));
  }

  @Post(':domain/verify')
  @ApiOkResponse({ description: 'verified (409 while the TXT record is missing)', schema: VERIFIED_DOMAIN, headers: etagHeader })
  @HttpCode(200)
  async verify(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathDomain() domain: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.commandBus.execute(new VerifyDomainByDns(organizationId, domain, caller, parseIfMatch(ifMatch))));
  }

  @Delete(':domain')
  @ApiNoContentResponse({ description: 'removed' })
  @HttpCode(204)
  async remove(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathDomain() domain: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.commandBus.execute(new RemoveVerifiedDomain(organizationId, domain, caller, parseIfMatch(ifMatch)));
  }
}

/** The service administrator verifies a domain without DNS (a support case, an air-gapped install). */
@Controller('v1/admin/orgs/:organizationId/verified-domains')
@AdminOnly()
export class AdminVerifiedDomainController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post(':domain')
  @ApiOkResponse({ description: 'verified by the administrator', schema: VERIFIED_DOMAIN })
  @HttpCode(200)
  verify(@PathId('organizationId', 'organization') organizationId: string, @PathDomain() domain: string, @CurrentCaller() caller: Caller) {
    return this.commandBus.execute(new VerifyDomainByAdmin(organizationId, domain, caller));
  }
}
