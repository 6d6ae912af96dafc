import { Body, Controller, Delete, Get, Headers, HttpCode, Post, Put, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiProduces, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DomainError } from '#platform/errors';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { CreateOpenapiSpec, DeleteOpenapiSpec, PutOpenapiSpec, type SourceBody } from './openapi.commands';
import { CreateSpecBody, PutSpecBody, type SpecSourceBody } from './openapi.dto';
import {
  GetOpenapiSpec,
  GetOpenapiSpecContent,
  GetOpenapiSpecId,
  GetOpenapiSpecVersion,
  GetOpenapiSpecVersionRaw,
  ListOpenapiSpecs,
  ListOpenapiSpecVersions,
} from './openapi.queries';

/** Exactly one of `url` and `text`. */
function sourceOf(source: SpecSourceBody): SourceBody {
  if ((source.url === undefined) === (source.text === undefined))
    throw DomainError.invalid('source must be { url } or { text }, exactly one of them');
  return source.url !== undefined ? { url: source.url } : { text: source.text! };
}

/** How raw bytes are served: as data, never as a page of this origin. */
function servedType(contentType: string): string {
  if (/json/i.test(contentType)) return 'application/json; charset=utf-8';
  if (/yaml|yml/i.test(contentType)) return 'application/yaml; charset=utf-8';
  return 'text/plain; charset=utf-8';
}

/**
 * OpenAPI specs: `/v1/orgs/{organizationId}/openapi…` (the interface's "OpenAPI specs" table), and
 * the raw bytes of a version (extension: the `url` of a version and of its content).
 */
@Controller('v1/orgs/:organizationId/openapi')
export class OpenapiController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('OpenAPISpec') })
  list(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListOpenapiSpecs(organizationId, caller, query));
  }

  @Post()
  @ApiCreatedResponse({ description: 'created; processing follows (processingState)', schema: ref('OpenAPISpec'), headers: etagHeader })
  @ApiConflictResponse({ description: 'the organization has a spec with this slug', schema: ref('ErrorEnvelope') })
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateSpecBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new CreateOpenapiSpec(organizationId, body.slug, sourceOf(body.source), caller));
    return this.answer(organizationId, body.slug, caller, reply);
  }

  @Get(':specSlug')
  @ApiOkResponse({ description: 'OK', schema: ref('OpenAPISpec'), headers: etagHeader })
  get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer(organizationId, slug, caller, reply);
  }

  @Put(':specSlug')
  @ApiOkResponse({
    description: 'created or updated; processing follows (processingState)',
    schema: ref('OpenAPISpec'),
    headers: etagHeader,
  })
  async put(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @Body(Valid) body: PutSpecBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new PutOpenapiSpec(organizationId, slug, sourceOf(body.source), caller, parseIfMatch(ifMatch)));
    return this.answer(organizationId, slug, caller, reply);
  }

  @Delete(':specSlug')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted' })
  async delete(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    const specId = await this.queryBus.execute(new GetOpenapiSpecId(organizationId, slug, caller));
    await this.commandBus.execute(new DeleteOpenapiSpec(organizationId, specId, caller, parseIfMatch(ifMatch)));
  }

  @Get(':specSlug/versions')
  @ApiOkResponse({ description: 'OK, newest first', schema: listOf('OpenAPISpecVersion') })
  versions(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListOpenapiSpecVersions(organizationId, slug, caller, query));
  }

  @Get(':specSlug/versions/latest')
  @ApiOkResponse({ description: 'OK', schema: ref('OpenAPISpecVersion') })
  latest(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetOpenapiSpecVersion(organizationId, slug, 'latest', caller));
  }

  @Get(':specSlug/versions/latest/content')
  @ApiOkResponse({ description: 'OK', schema: ref('OpenAPISpecContent') })
  latestContent(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetOpenapiSpecContent(organizationId, slug, 'latest', caller));
  }

  @Get(':specSlug/versions/:versionId')
  @ApiOkResponse({ description: 'OK', schema: ref('OpenAPISpecVersion') })
  version(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @PathId('versionId', 'version') versionId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetOpenapiSpecVersion(organizationId, slug, { id: versionId }, caller));
  }

  @Get(':specSlug/versions/:versionId/content')
  @ApiOkResponse({ description: 'OK', schema: ref('OpenAPISpecContent') })
  content(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @PathId('versionId', 'version') versionId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetOpenapiSpecContent(organizationId, slug, { id: versionId }, caller));
  }

  /** The version's raw bytes as fetched or given (extension), for members of the organization. */
  @Get(':specSlug/versions/:versionId/raw')
  @ApiProduces('application/json', 'application/yaml', 'text/plain')
  @ApiOkResponse({ description: 'the document as fetched or given', schema: { type: 'string', format: 'binary' } })
  async raw(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('specSlug', 'OpenAPI spec') slug: string,
    @PathId('versionId', 'version') versionId: string,
    @CurrentCaller() caller: Caller,
    @Res() reply: FastifyReply,
  ) {
    const { contentType, body } = await this.queryBus.execute(new GetOpenapiSpecVersionRaw(organizationId, slug, versionId, caller));
    void reply
      .header('content-type', servedType(contentType))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(body);
  }

  private async answer(organizationId: string, slug: string, caller: Caller, reply: FastifyReply) {
    const { object, streamRevision } = await this.queryBus.execute(new GetOpenapiSpec(organizationId, slug, caller));
    void reply.header('etag', etagOf(streamRevision));
    return object;
  }
}
