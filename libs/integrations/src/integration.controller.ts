import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Query, Res, type Type } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiParam,
  ApiProduces,
  ApiResetContentResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { decompressFromEncodedURIComponent } from 'lz-string';
import { DomainError } from '#platform/errors';
import { CurrentCaller, OptionalCaller, Public, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { ClearDevMode, DeleteIntegration, PublishIntegration, SetDevMode } from './integration.commands';
import {
  InstallIntegration,
  RemovePlaceInstallation,
  SetPlaceInstallation,
  UninstallIntegration,
  UpdateInstallation,
} from './integration-installations.commands';
import {
  addPlaceInstallationBody,
  DevModeBody,
  InstallationListQuery,
  InstallBody,
  IntegrationListQuery,
  PlaceInstallationBody,
  PlaceInstallationListQuery,
  PublishIntegrationBody,
  RenderBody,
  RenderQuery,
  UpdateInstallationBody,
} from './integration.dto';
import type { InstallationPlace } from './integration.events';
import { GetDevMode, GetIntegration, GetIntegrationAsset, ListIntegrations, RenderComponent } from './integration.queries';
import { GetIntegrationEvent, ListIntegrationEvents } from './integration-events.queries';
import { GetInstallation, GetPlaceInstallation, ListInstallations, ListPlaceInstallations } from './integration-installations.queries';

const NAME = /^[a-zA-Z0-9-_.]{1,100}$/;

/** `{integrationName}`: the interface's pattern, 404 for anything else (checked before a store sees it). */
function integrationName(value: string): string {
  if (!NAME.test(value) || value === '.' || value === '..')
    throw DomainError.notFound(`no integration ${JSON.stringify(value.slice(0, 100))}`);
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
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('Integration') })
  list(@Query(Valid) query: IntegrationListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListIntegrations(caller, query));
  }

  @Get(':integrationName')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('Integration'), headers: etagHeader })
  async get(@Param('integrationName') name: string, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    return tagged(reply, await this.queryBus.execute(new GetIntegration(integrationName(name), caller)));
  }

  @Post(':integrationName')
  @HttpCode(200)
  @nameParam
  @ApiOkResponse({ description: 'published (version + 1)', schema: ref('Integration'), headers: etagHeader })
  async publish(
    @Param('integrationName') name: string,
    @Body(Valid) body: PublishIntegrationBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new PublishIntegration(integrationName(name), body, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetIntegration(name, caller)));
  }

  @Delete(':integrationName')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'deleted, and uninstalled everywhere' })
  async delete(@Param('integrationName') name: string, @Headers('if-match') ifMatch: string | undefined, @CurrentCaller() caller: Caller) {
    await this.commandBus.execute(new DeleteIntegration(integrationName(name), caller, parseIfMatch(ifMatch)));
  }

  /** Icons and preview images (extension): public, like the images they are. */
  @Get(':integrationName/assets/:hash')
  @Public()
  @nameParam
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the image', schema: { type: 'string', format: 'binary' } })
  async asset(
    @Param('integrationName') name: string,
    @Param('hash') hash: string,
    @OptionalCaller() caller: Caller | undefined,
    @Res() reply: FastifyReply,
  ) {
    const bytes = await this.queryBus.execute(
      new GetIntegrationAsset(integrationName(name), hash, caller ?? { kind: 'system', id: 'anonymous', label: 'anonymous' }),
    );
    return reply
      .header('content-type', imageType(bytes))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'public, max-age=86400, immutable')
      .send(bytes);
  }

  @Get(':integrationName/installations')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: listOf('IntegrationInstallation') })
  installations(@Param('integrationName') name: string, @Query(Valid) query: InstallationListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListInstallations(integrationName(name), caller, query));
  }

  @Post(':integrationName/installations')
  @nameParam
  @ApiCreatedResponse({
    description: 'installed (an organization installs an integration once: installing again answers the installation)',
    schema: ref('IntegrationInstallation'),
    headers: etagHeader,
  })
  async install(
    @Param('integrationName') name: string,
    @Body(Valid) body: InstallBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const installationId = await this.commandBus.execute(new InstallIntegration(integrationName(name), body.organization, caller));
    return tagged(reply, await this.queryBus.execute(new GetInstallation(name, installationId, caller)));
  }

  @Get(':integrationName/installations/:installationId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationInstallation'), headers: etagHeader })
  async installation(
    @Param('integrationName') name: string,
    @PathId('installationId', 'installation') installationId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetInstallation(integrationName(name), installationId, caller)));
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
    await this.commandBus.execute(new UpdateInstallation(integrationName(name), installationId, body, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetInstallation(name, installationId, caller)));
  }

  @Delete(':integrationName/installations/:installationId')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'uninstalled' })
  async uninstall(
    @Param('integrationName') name: string,
    @PathId('installationId', 'installation') installationId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new UninstallIntegration(integrationName(name), installationId, caller, parseIfMatch(ifMatch)));
  }

  @Get(':integrationName/events')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: listOf('IntegrationEvent') })
  events(@Param('integrationName') name: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListIntegrationEvents(integrationName(name), caller, query));
  }

  @Get(':integrationName/events/:eventId')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationEventTrace') })
  event(@Param('integrationName') name: string, @PathId('eventId', 'event') eventId: string, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new GetIntegrationEvent(integrationName(name), eventId, caller));
  }

  @Put(':integrationName/dev')
  @HttpCode(204)
  @nameParam
  @ApiNoContentResponse({ description: 'development mode on: events go to the tunnel' })
  async setDev(
    @Param('integrationName') name: string,
    @Body(Valid) body: DevModeBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new SetDevMode(integrationName(name), body.tunnelUrl, body.all ?? false, caller, parseIfMatch(ifMatch)));
  }

  @Delete(':integrationName/dev')
  @HttpCode(205)
  @nameParam
  @ApiResetContentResponse({ description: 'development mode off' })
  async clearDev(
    @Param('integrationName') name: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new ClearDevMode(integrationName(name), caller, parseIfMatch(ifMatch)));
  }

  /** The tunnel and the secret its deliveries are signed with (extension): the owner's admins only. */
  @Get(':integrationName/dev')
  @nameParam
  @ApiOkResponse({ description: 'OK', schema: ref('IntegrationDevMode'), headers: etagHeader })
  async getDev(@Param('integrationName') name: string, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    return tagged(reply, await this.queryBus.execute(new GetDevMode(integrationName(name), caller)));
  }

  @Post(':integrationName/render')
  @HttpCode(200)
  @nameParam
  @ApiOkResponse({ description: 'the rendered element', schema: ref('RenderedElement') })
  @ApiUnprocessableEntityResponse({
    description: 'the script could not render the component (unknown component, script error or limit)',
    schema: ref('ErrorEnvelope'),
  })
  async render(
    @Param('integrationName') name: string,
    @Body(Valid) body: RenderBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.rendered(name, body, caller, reply);
  }

  @Get(':integrationName/render')
  @nameParam
  @ApiOkResponse({ description: 'the rendered element', schema: ref('RenderedElement') })
  @ApiUnprocessableEntityResponse({
    description: 'the script could not render the component (unknown component, script error or limit)',
    schema: ref('ErrorEnvelope'),
  })
  async renderCompressed(
    @Param('integrationName') name: string,
    @Query(Valid) query: RenderQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    let request: unknown;
    try {
      request = JSON.parse(decompressFromEncodedURIComponent(query.request) ?? '');
    } catch {
      throw DomainError.invalid('request must be lz-string compressed JSON (URI-component encoding)');
    }
    const body = request as RenderBody;
    if (
      typeof body !== 'object' ||
      body === null ||
      typeof body.componentId !== 'string' ||
      !/^[A-Za-z0-9_.-]{1,100}$/.test(body.componentId)
    )
      throw DomainError.invalid('request.componentId must be a component id');
    return this.rendered(name, body, caller, reply);
  }

  private async rendered(name: string, body: RenderBody, caller: Caller, reply: FastifyReply) {
    const { rendered, contentSecurityPolicy } = await this.queryBus.execute(
      new RenderComponent(
        integrationName(name),
        {
          componentId: body.componentId,
          props: plain(body.props),
          state: plain(body.state),
          context: plain(body.context),
          ...(body.action !== undefined ? { action: body.action } : {}),
        },
        caller,
      ),
    );
    if (contentSecurityPolicy) void reply.header('content-security-policy', contentSecurityPolicy);
    return rendered;
  }
}

const plain = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

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
      private readonly commandBus: CommandBus,
      private readonly queryBus: QueryBus,
    ) {}

    @Get(`:integrationName/installations/:installationId/${place}s`)
    @nameParam
    @ApiOkResponse({ description: 'OK', schema: listOf(schema) })
    list(
      @Param('integrationName') name: string,
      @PathId('installationId', 'installation') installationId: string,
      @Query(Valid) query: PlaceInstallationListQuery,
      @CurrentCaller() caller: Caller,
    ) {
      return this.queryBus.execute(new ListPlaceInstallations(place, integrationName(name), caller, { ...query, installationId }));
    }

    @Post(`:integrationName/installations/:installationId/${place}s`)
    @nameParam
    @ApiCreatedResponse({ description: `installed on the ${place}`, schema: ref(schema), headers: etagHeader })
    async install(
      @Param('integrationName') name: string,
      @PathId('installationId', 'installation') installationId: string,
      @Body(Valid) body: AddPlaceInstallationBody,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      const { [place]: placeId, ...changes } = body as AddPlaceInstallationBody & Record<InstallationPlace, string>;
      await this.commandBus.execute(new SetPlaceInstallation(place, integrationName(name), installationId, placeId, changes, caller));
      return tagged(reply, await this.queryBus.execute(new GetPlaceInstallation(place, name, installationId, placeId, caller)));
    }

    @Get(one)
    @nameParam
    @ApiOkResponse({ description: 'OK', schema: ref(schema), headers: etagHeader })
    async get(
      @Param('integrationName') name: string,
      @PathId('installationId', 'installation') installationId: string,
      @PathId(idParam, place) placeId: string,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      return tagged(
        reply,
        await this.queryBus.execute(new GetPlaceInstallation(place, integrationName(name), installationId, placeId, caller)),
      );
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
      await this.queryBus.execute(new GetPlaceInstallation(place, integrationName(name), installationId, placeId, caller));
      await this.commandBus.execute(new SetPlaceInstallation(place, name, installationId, placeId, body, caller, parseIfMatch(ifMatch)));
      return tagged(reply, await this.queryBus.execute(new GetPlaceInstallation(place, name, installationId, placeId, caller)));
    }

    @Delete(one)
    @HttpCode(204)
    @nameParam
    @ApiNoContentResponse({ description: `uninstalled from the ${place}` })
    async remove(
      @Param('integrationName') name: string,
      @PathId('installationId', 'installation') installationId: string,
      @PathId(idParam, place) placeId: string,
      @Headers('if-match') ifMatch: string | undefined,
      @CurrentCaller() caller: Caller,
    ) {
      await this.commandBus.execute(
        new RemovePlaceInstallation(place, integrationName(name), installationId, placeId, caller, parseIfMatch(ifMatch)),
      );
    }

    @Get(`:integrationName/${place}s`)
    @nameParam
    @ApiOkResponse({ description: 'OK', schema: listOf(schema) })
    all(@Param('integrationName') name: string, @Query(Valid) query: PlaceInstallationListQuery, @CurrentCaller() caller: Caller) {
      return this.queryBus.execute(new ListPlaceInstallations(place, integrationName(name), caller, query));
    }
  }
  Object.defineProperty(PlaceInstallationRoutes, 'name', {
    value: place === 'space' ? 'IntegrationSpaceController' : 'IntegrationSiteController',
  });
  return PlaceInstallationRoutes;
}

/** `/v1/integrations/{integrationName}/installations/{installationId}/spaces…` and `/v1/integrations/{integrationName}/spaces`. */
export const IntegrationSpaceController = placeInstallationRoutes('space');
/** `/v1/integrations/{integrationName}/installations/{installationId}/sites…` and `/v1/integrations/{integrationName}/sites`. */
export const IntegrationSiteController = placeInstallationRoutes('site');
