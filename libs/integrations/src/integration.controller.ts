import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Patch, Post, Put, Query, Res, type Type } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiProduces, ApiResetContentResponse, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { decompressFromEncodedURIComponent } from 'lz-string';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { DomainError } from '../../platform/src/errors';
import { CurrentCaller, OptionalCaller, Public, type Caller } from '../../platform/src/http/auth';
import { parseIfMatch, tagged } from '../../platform/src/http/etag';
import { PathId } from '../../platform/src/http/id-param';
import { ListQuery } from '../../platform/src/http/list';
import { Valid } from '../../platform/src/http/validation';
import { etagHeader, listOf, ref } from '../../platform/src/platform.schemas';
import { IntegrationCommands } from './integration.commands';
import { policyText } from './integration.content-security-policy';
import { addPlaceInstallationBody, DevModeBody, InstallationListQuery, InstallBody, IntegrationListQuery, PlaceInstallationBody, PlaceInstallationListQuery, PublishIntegrationBody, RenderBody, RenderQuery, UpdateInstallationBody } from './integration.dto';
import type { InstallationPlace } from './integration.events';
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
 * Integrations: `/v1/integrations…` (the interface's "Integrations" table), with installations
 * and the development tunnel's signing secret as extensions; installations on spaces and sites are
 * the place controllers below.
 * An integration and its `/dev` are versioned by the integration's stream, an installation and its
 * space and site installations by the installation's: single objects answer that `ETag`, and every
 * write but a creation accepts it as `If-Match` (412 when stale).
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
  @ApiOkResponse({ description: 'OK', schema: ref('Integration'), headers: etagHeader })
  async get(@Param('integrationName') name: string, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    return tagged(reply, await this.queries.get(integrationName(name), caller));
  }

  @Post(':integrationName')
  @HttpCode(200)
  @nameParam
  @ApiOkResponse({ description: 'published (version + 1)', schema: ref('Integration'), headers: etagHeader })
  async publish(@Param('integrationName') name: string, @Body(Valid) body: PublishIntegrationBody, @Headers('if-match') ifMatch: string | undefined, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.commands.publish(integrationName(name), body, caller, parseIfMatch(ifMatch));
    return tagged(reply, await this.queries.get(name, caller));
  }

  @Delete(':integrationName')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'deleted, and uninstalled everywhere' })
  async delete(@Param('integrationName') name: string, @Headers('if-match') ifMatch: string | undefined, @CurrentCaller() caller: Caller) {
    await this.commands.delete(integrationName(name), caller, parseIfMatch(ifMatch));
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
  @ApiCreatedResponse({ description: 'installed (an organization installs an integration once: installing again answers the installation)', schema: ref('IntegrationInstallation'), headers: etagHeader })
  async install(@Param('integrationName') name: string, @Body(Valid) body: InstallBody, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    const installationId = await this.commands.install(integrationName(name), body.organization, caller);
    return tagged(reply, await this.queries.installation(name, installationId, caller));
  }

  @Get(':integrationName/installations/:installationId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationInstallation'), headers: etagHeader })
  async installation(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    return tagged(reply, await this.queries.installation(integrationName(name), installationId, caller));
  }

  @Patch(':integrationName/installations/:installationId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationInstallation'), headers: etagHeader })
  async updateInstallation(
    @Param('integrationName') name: string,
    @PathId('installationId', 'installation') installationId: string,
    @Body(Valid) body: UpdateInstallationBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commands.updateInstallation(integrationName(name), installationId, body, caller, parseIfMatch(ifMatch));
    return tagged(reply, await this.queries.installation(name, installationId, caller));
  }

  @Delete(':integrationName/installations/:installationId')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'uninstalled' })
  async uninstall(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @Headers('if-match') ifMatch: string | undefined, @CurrentCaller() caller: Caller) {
    await this.commands.uninstall(integrationName(name), installationId, caller, parseIfMatch(ifMatch));
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
  async setDev(@Param('integrationName') name: string, @Body(Valid) body: DevModeBody, @Headers('if-match') ifMatch: string | undefined, @CurrentCaller() caller: Caller) {
    await this.commands.setDevMode(integrationName(name), body.tunnelUrl, body.all ?? false, caller, parseIfMatch(ifMatch));
  }

  @Delete(':integrationName/dev')
  @HttpCode(205)
  @nameParam
  @ApiResetContentResponse({ description: 'development mode off' })
  async clearDev(@Param('integrationName') name: string, @Headers('if-match') ifMatch: string | undefined, @CurrentCaller() caller: Caller) {
    await this.commands.clearDevMode(integrationName(name), caller, parseIfMatch(ifMatch));
  }

  /** The tunnel and the secret its deliveries are signed with (extension): the owner's admins only. */
  @Get(':integrationName/dev')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationDevMode'), headers: etagHeader })
  async getDev(@Param('integrationName') name: string, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    const { object: dev, streamRevision } = await this.queries.devMode(integrationName(name), caller);
    // The signing secret is set at the first publication and never changes: the revision of the tunnel's read versions the whole answer.
    const state = await this.commands.integration(name);
    return tagged(reply, { object: { ...dev, signingSecret: this.secrets.open(state.published!.signingSecret) }, streamRevision });
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
    const policy = policyText(integration.definition.contentSecurityPolicy);
    if (policy) void reply.header('content-security-policy', policy);
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


/**
 * An installation's routes on one kind of place (extensions at the platform's paths, besides the
 * interface's `GET /integrations/{name}/spaces|sites`): install on a space or a site, read, change
 * and remove it there, list them per installation and across installations. Spaces and sites are
 * the same routes over a different place, so one definition makes both controllers.
 */
function placeInstallationRoutes(place: InstallationPlace): Type {
  class AddPlaceInstallationBody extends PlaceInstallationBody {}
  addPlaceInstallationBody(AddPlaceInstallationBody, place);
  const idParam = `${place}Id`;
  const one = `:integrationName/installations/:installationId/${place}s/:${idParam}`;
  const schema = `Integration${place[0].toUpperCase()}${place.slice(1)}Installation`;

  @Controller('v1/integrations')
  class PlaceInstallationRoutes {
    constructor(
      readonly commands: IntegrationCommands,
      readonly queries: IntegrationQueries,
    ) {}

    @Get(`:integrationName/installations/:installationId/${place}s`)
    @nameParam
    @ApiOkResponse({ description: 'OK', schema: listOf(schema) })
    list(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @Query(Valid) query: PlaceInstallationListQuery, @CurrentCaller() caller: Caller) {
      return this.queries.placeInstallations(place, integrationName(name), caller, { ...query, installationId });
    }

    @Post(`:integrationName/installations/:installationId/${place}s`)
    @nameParam
    @ApiCreatedResponse({ description: `installed on the ${place}`, schema: ref(schema), headers: etagHeader })
    async install(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @Body(Valid) body: AddPlaceInstallationBody, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
      const { [place]: placeId, ...changes } = body as AddPlaceInstallationBody & Record<InstallationPlace, string>;
      await this.commands.setPlaceInstallation(place, integrationName(name), installationId, placeId, changes, caller);
      return tagged(reply, await this.queries.placeInstallation(place, name, installationId, placeId, caller));
    }

    @Get(one)
    @nameParam
    @ApiOkResponse({ description: 'OK', schema: ref(schema), headers: etagHeader })
    async get(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @PathId(idParam, place) placeId: string, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
      return tagged(reply, await this.queries.placeInstallation(place, integrationName(name), installationId, placeId, caller));
    }

    /** Versioned by the installation's stream, where the installations on its places live. */
    @Patch(one)
    @nameParam
    @ApiOkResponse({ description: 'OK', schema: ref(schema), headers: etagHeader })
    async update(
      @Param('integrationName') name: string,
      @PathId('installationId', 'installation') installationId: string,
      @PathId(idParam, place) placeId: string,
      @Body(Valid) body: PlaceInstallationBody,
      @Headers('if-match') ifMatch: string | undefined,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      await this.queries.placeInstallation(place, integrationName(name), installationId, placeId, caller);
      await this.commands.setPlaceInstallation(place, name, installationId, placeId, body, caller, parseIfMatch(ifMatch));
      return tagged(reply, await this.queries.placeInstallation(place, name, installationId, placeId, caller));
    }

    @Delete(one)
    @HttpCode(204)
    @nameParam
    @ApiNoContentResponse({ description: `uninstalled from the ${place}` })
    async remove(@Param('integrationName') name: string, @PathId('installationId', 'installation') installationId: string, @PathId(idParam, place) placeId: string, @Headers('if-match') ifMatch: string | undefined, @CurrentCaller() caller: Caller) {
      await this.commands.removePlaceInstallation(place, integrationName(name), installationId, placeId, caller, parseIfMatch(ifMatch));
    }

    @Get(`:integrationName/${place}s`)
    @nameParam
    @ApiOkResponse({ description: 'OK', schema: listOf(schema) })
    all(@Param('integrationName') name: string, @Query(Valid) query: PlaceInstallationListQuery, @CurrentCaller() caller: Caller) {
      return this.queries.placeInstallations(place, integrationName(name), caller, query);
    }
  }
  Object.defineProperty(PlaceInstallationRoutes, 'name', { value: place === 'space' ? 'IntegrationSpaceController' : 'IntegrationSiteController' });
  return PlaceInstallationRoutes;
}

/** `/v1/integrations/{integrationName}/installations/{installationId}/spaces…` and `/v1/integrations/{integrationName}/spaces`. */
export const IntegrationSpaceController = placeInstallationRoutes('space');
/** `/v1/integrations/{integrationName}/installations/{installationId}/sites…` and `/v1/integrations/{integrationName}/sites`. */
export const IntegrationSiteController = placeInstallationRoutes('site');
