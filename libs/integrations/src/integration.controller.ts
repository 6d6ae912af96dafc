import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiProduces, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { decompressFromEncodedURIComponent } from 'lz-string';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { DomainError } from '../../platform/src/errors';
import { CurrentCaller, OptionalCaller, Public, type Caller } from '../../platform/src/http/auth';
import { PathId } from '../../platform/src/http/id-param';
import { ListQuery } from '../../platform/src/http/list';
import { Valid } from '../../platform/src/http/validation';
import { listOf, ref } from '../../platform/src/platform.schemas';
import { IntegrationCommands } from './integration.commands';
import { AddSpaceInstallationBody, DevModeBody, InstallationListQuery, InstallBody, IntegrationListQuery, PublishIntegrationBody, RenderBody, RenderQuery, SpaceInstallationBody, SpaceInstallationListQuery, UpdateInstallationBody } from './integration.dto';
import { IntegrationQueries } from './integration.queries';
import { IntegrationRuntime } from './integration.runtime';
import { IntegrationSecrets } from './integration.secrets';

const NAME = /^[a-zA-Z0-9-_.]{1,100}$/;

/** `{integrationName}`: the interface's pattern, 404 for anything else (checked before a store sees it). */
function integrationName(value: string): string {
  if (!NAME.test(value) || value === '.' || value === '..') throw DomainError.notFound(`no integration ${JSON.stringify(value.slice(0, 100))}`);
  return value;
}
const nameParam = ApiParam({ name: 'integrationName', required: true, schema: { type: 'string', pattern: NAME.source } });

/**
 * Integrations: `/v1/integrations…` (the interface's "Integrations" table), with installations,
 * space installations and the development tunnel's signing secret as extensions.
 */
@Controller('v1/integrations')
export class IntegrationController {
  constructor(
    private readonly commands: IntegrationCommands,
    private readonly queries: IntegrationQueries,
    private readonly runtime: IntegrationRuntime,
    private readonly secrets: IntegrationSecrets,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('Integration') })
  list(@Query(Valid) query: IntegrationListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.list(caller, query);
  }

  @Get(':integrationName')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('Integration') })
  get(@Param('integrationName') name: string, @CurrentCaller() caller: Caller) {
    return this.queries.get(integrationName(name), caller);
  }

  @Post(':integrationName')
  @HttpCode(200)
  @nameParam
  @ApiOkResponse({ description: 'published (version + 1)', schema: ref('Integration') })
  async publish(@Param('integrationName') name: string, @Body(Valid) body: PublishIntegrationBody, @CurrentCaller() caller: Caller) {
    await this.commands.publish(integrationName(name), body, caller);
    return this.queries.get(name, caller);
  }

  @Delete(':integrationName')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'deleted, and uninstalled everywhere' })
  async delete(@Param('integrationName') name: string, @CurrentCaller() caller: Caller) {
    await this.commands.delete(integrationName(name), caller);
  }

  /** Icons and preview images (extension): public, like the images they are. */
  @Get(':integrationName/assets/:hash')
  @Public()
  @nameParam
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the image', schema: { type: 'string', format: 'binary' } })
  async asset(@Param('integrationName') name: string, @Param('hash') hash: string, @OptionalCaller() caller: Caller | undefined, @Res() reply: FastifyReply) {
    const { integration } = await this.queries.visible(integrationName(name), caller ?? { kind: 'system', id: 'anonymous', label: 'anonymous' });
    const { icon, previewImages } = integration.definition;
    if (hash !== icon && !previewImages.includes(hash)) throw DomainError.notFound(`no asset ${hash.slice(0, 80)} of integration ${name}`);
    const bytes = await this.blobs.read(hash);
    return reply.header('content-type', imageType(bytes)).header('x-content-type-options', 'nosniff').header('content-security-policy', "default-src 'none'; sandbox").header('cache-control', 'public, max-age=86400, immutable').send(bytes);
  }

  @Get(':integrationName/installations')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: listOf('IntegrationInstallation') })
  installations(@Param('integrationName') name: string, @Query(Valid) query: InstallationListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.installations(integrationName(name), caller, query);
  }

  @Post(':integrationName/installations')
  @nameParam
  @ApiCreatedResponse({ description: 'installed (an organization installs an integration once: installing again answers the installation)', schema: ref('IntegrationInstallation') })
  async install(@Param('integrationName') name: string, @Body(Valid) body: InstallBody, @CurrentCaller() caller: Caller) {
    const installationId = await this.commands.install(integrationName(name), body.organization, caller);
    return this.queries.installation(name, installationId, caller);
  }

  @Get(':integrationName/installations/:installationId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationInstallation') })
  installation(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @CurrentCaller() caller: Caller) {
    return this.queries.installation(integrationName(name), installationId, caller);
  }

  @Patch(':integrationName/installations/:installationId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationInstallation') })
  async updateInstallation(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @Body(Valid) body: UpdateInstallationBody, @CurrentCaller() caller: Caller) {
    await this.commands.updateInstallation(integrationName(name), installationId, body, caller);
    return this.queries.installation(name, installationId, caller);
  }

  @Delete(':integrationName/installations/:installationId')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'uninstalled' })
  async uninstall(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @CurrentCaller() caller: Caller) {
    await this.commands.uninstall(integrationName(name), installationId, caller);
  }

  @Get(':integrationName/installations/:installationId/spaces')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: listOf('IntegrationSpaceInstallation') })
  installationSpaces(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @Query(Valid) query: SpaceInstallationListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.spaceInstallations(integrationName(name), caller, { ...query, installationId });
  }

  @Post(':integrationName/installations/:installationId/spaces')
  @nameParam
  @ApiCreatedResponse({ description: 'installed on the space', schema: ref('IntegrationSpaceInstallation') })
  async installOnSpace(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @Body(Valid) body: AddSpaceInstallationBody, @CurrentCaller() caller: Caller) {
    const { space, ...changes } = body;
    await this.commands.setSpaceInstallation(integrationName(name), installationId, space, changes, caller);
    return this.queries.spaceInstallation(name, installationId, space, caller);
  }

  @Get(':integrationName/installations/:installationId/spaces/:spaceId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationSpaceInstallation') })
  spaceInstallation(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @PathId('spaceId', 'space') spaceId: string, @CurrentCaller() caller: Caller) {
    return this.queries.spaceInstallation(integrationName(name), installationId, spaceId, caller);
  }

  @Patch(':integrationName/installations/:installationId/spaces/:spaceId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationSpaceInstallation') })
  async updateSpaceInstallation(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @PathId('spaceId', 'space') spaceId: string, @Body(Valid) body: SpaceInstallationBody, @CurrentCaller() caller: Caller) {
    await this.queries.spaceInstallation(integrationName(name), installationId, spaceId, caller);
    await this.commands.setSpaceInstallation(name, installationId, spaceId, body, caller);
    return this.queries.spaceInstallation(name, installationId, spaceId, caller);
  }

  @Delete(':integrationName/installations/:installationId/spaces/:spaceId')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'uninstalled from the space' })
  async uninstallFromSpace(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @PathId('spaceId', 'space') spaceId: string, @CurrentCaller() caller: Caller) {
    await this.commands.removeSpaceInstallation(integrationName(name), installationId, spaceId, caller);
  }

  @Get(':integrationName/spaces')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: listOf('IntegrationSpaceInstallation') })
  spaces(@Param('integrationName') name: string, @Query(Valid) query: SpaceInstallationListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.spaceInstallations(integrationName(name), caller, query);
  }

  /** Docs sites do not exist yet in this service: an integration is installed on none. */
  @Get(':integrationName/sites')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: listOf('IntegrationSpaceInstallation') })
  async sites(@Param('integrationName') name: string, @Query(Valid) query: SpaceInstallationListQuery, @CurrentCaller() caller: Caller) {
    await this.queries.visible(integrationName(name), caller);
    if (query.page !== undefined) throw DomainError.invalid('page is not a page token of this list');
    return { count: 0, items: [] };
  }

  @Get(':integrationName/events')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: listOf('IntegrationEvent') })
  events(@Param('integrationName') name: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.events(integrationName(name), caller, query);
  }

  @Get(':integrationName/events/:eventId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationEventTrace') })
  event(@Param('integrationName') name: string, @PathId('eventId', 'event') eventId: string, @CurrentCaller() caller: Caller) {
    return this.queries.event(integrationName(name), eventId, caller);
  }

  @Put(':integrationName/dev')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'development mode on: events go to the tunnel' })
  async setDev(@Param('integrationName') name: string, @Body(Valid) body: DevModeBody, @CurrentCaller() caller: Caller) {
    await this.commands.setDevMode(integrationName(name), body.tunnelUrl, body.all ?? false, caller);
  }

  @Delete(':integrationName/dev')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'development mode off' })
  async clearDev(@Param('integrationName') name: string, @CurrentCaller() caller: Caller) {
    await this.commands.clearDevMode(integrationName(name), caller);
  }

  /** The tunnel and the secret its deliveries are signed with (extension): the owner's admins only. */
  @Get(':integrationName/dev')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationDevMode') })
  async getDev(@Param('integrationName') name: string, @CurrentCaller() caller: Caller) {
    const integration = await this.queries.requireOwnerAdmin(integrationName(name), caller);
    const state = await this.commands.integration(name);
    return { tunnelUrl: integration.dev?.tunnelUrl ?? null, all: integration.dev?.all ?? false, signingSecret: this.secrets.open(state.published!.signingSecret) };
  }

  @Post(':integrationName/render')
  @HttpCode(200)
  @nameParam
  @ApiOkResponse({ description: 'the rendered element', schema: ref('RenderedElement') })
  @ApiUnprocessableEntityResponse({ description: 'the script could not render the component (unknown component, script error or limit)', schema: ref('ErrorEnvelope') })
  async render(@Param('integrationName') name: string, @Body(Valid) body: RenderBody, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.rendered(name, body, caller, reply);
  }

  @Get(':integrationName/render')
  @nameParam
  @ApiOkResponse({ description: 'the rendered element', schema: ref('RenderedElement') })
  @ApiUnprocessableEntityResponse({ description: 'the script could not render the component (unknown component, script error or limit)', schema: ref('ErrorEnvelope') })
  async renderCompressed(@Param('integrationName') name: string, @Query(Valid) query: RenderQuery, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    let request: unknown;
    try {
      request = JSON.parse(decompressFromEncodedURIComponent(query.request) ?? '');
    } catch {
      throw DomainError.invalid('request must be lz-string compressed JSON (URI-component encoding)');
    }
    const body = request as RenderBody;
    if (typeof body !== 'object' || body === null || typeof body.componentId !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(body.componentId)) throw DomainError.invalid('request.componentId must be a component id');
    return this.rendered(name, body, caller, reply);
  }

  private async rendered(name: string, body: RenderBody, caller: Caller, reply: FastifyReply) {
    const { integration } = await this.queries.visible(integrationName(name), caller);
    const answer = await this.runtime.render(integration, { componentId: body.componentId, props: plain(body.props), state: plain(body.state), context: plain(body.context), ...(body.action !== undefined ? { action: body.action } : {}) });
    if (integration.definition.contentSecurityPolicy) void reply.header('content-security-policy', integration.definition.contentSecurityPolicy);
    return answer;
  }
}

const plain = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

function imageType(bytes: Buffer): string {
  if (bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return 'application/octet-stream';
}

