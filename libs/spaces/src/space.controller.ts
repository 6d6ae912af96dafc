import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '@nestjs/swagger';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { CachedRead } from '#platform/http/response-cache';
import {
  CreateShareLink,
  CreateSpace,
  DeleteSpace,
  DuplicateSpace,
  MoveSpace,
  RemoveSpaceTeamAccess,
  RestoreSpace,
  RevokeShareLink,
  SetSpaceTeamAccess,
  TransferSpace,
  UpdateSpace,
} from './space.commands';
import {
  CreateSpaceBody,
  GetSpaceQuery,
  MoveSpaceBody,
  positionRequest,
  SetSpaceTeamBody,
  TransferBody,
  UpdateSpaceBody,
} from './space.dto';
import type { SpaceChanges } from './space.events';
import { GetShareLink, GetSpace, ListOrganizationSpaces, ListShareLinks, ListSpaceTeamAccess } from './space.queries';
import { Valid } from '#platform/http/validation';
import { mergeRulesOf } from '#platform/merge-rules';

/**
 * Spaces: `/v1/orgs/{organizationId}/spaces` and `/v1/spaces/{spaceId}…`, plus the share-link
 * extension `/v1/spaces/{spaceId}/share-links` and the team-access extension
 * `/v1/spaces/{spaceId}/teams`. Share links and team access live in the space's stream, so every
 * write on the space, theirs included, accepts `If-Match` with the space's ETag (412 when stale).
 */
@Controller('v1')
export class SpaceController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('orgs/:organizationId/spaces')
  @ApiOkResponse({ description: 'OK', schema: listOf('Space') })
  list(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListOrganizationSpaces(organizationId, caller, { page: query.page, limit: query.limit }));
  }

  @Post('orgs/:organizationId/spaces')
  @ApiCreatedResponse({ description: 'created', schema: ref('Space'), headers: etagHeader })
  @HttpCode(201)
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateSpaceBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    // `empty`, `template` and `computedSource` change nothing: every new space starts empty.
    const spaceId = await this.commandBus.execute(
      new CreateSpace(
        organizationId,
        { title: body.title, emoji: body.emoji || null, parent: body.parent, language: body.language, editMode: body.editMode },
        caller,
      ),
    );
    return this.read(spaceId, caller, reply);
  }

  @Get('spaces/:spaceId')
  @CachedRead()
  @ApiOkResponse({ description: 'OK', schema: ref('Space'), headers: etagHeader })
  get(
    @PathId('spaceId', 'space') spaceId: string,
    @Query(Valid) query: GetSpaceQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.read(spaceId, caller, reply, query.shareKey);
  }

  @Patch('spaces/:spaceId')
  @ApiOkResponse({ description: 'OK', schema: ref('Space'), headers: etagHeader })
  async update(
    @PathId('spaceId', 'space') spaceId: string,
    @Body(Valid) body: UpdateSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const changes: SpaceChanges = {};
    if (body.title !== undefined) changes.title = body.title;
    // '' is the platform's "no emoji": it clears it, as null does.
    if (body.emoji !== undefined) changes.emoji = body.emoji || null;
    if (body.icon !== undefined) changes.icon = body.icon;
    if (body.editMode !== undefined) changes.editMode = body.editMode;
    if (body.language !== undefined) changes.language = body.language;
    if (body.mergeRules !== undefined) changes.mergeRules = mergeRulesOf(body.mergeRules);
    if (body.defaultLevel !== undefined) changes.defaultLevel = body.defaultLevel;
    if (body.visibility !== undefined) changes.visibility = body.visibility;
    await this.commandBus.execute(new UpdateSpace(spaceId, changes, caller, parseIfMatch(ifMatch)));
    return this.read(spaceId, caller, reply);
  }

  /** Soft delete → 204: restorable for 7 days. */
  @Delete('spaces/:spaceId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async delete(
    @PathId('spaceId', 'space') spaceId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteSpace(spaceId, caller, parseIfMatch(ifMatch)));
  }

  @Post('spaces/:spaceId/restore')
  @ApiOkResponse({ description: 'OK', schema: ref('Space'), headers: etagHeader })
  @HttpCode(200)
  async restore(
    @PathId('spaceId', 'space') spaceId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new RestoreSpace(spaceId, caller, parseIfMatch(ifMatch)));
    return this.read(spaceId, caller, reply);
  }

  /** → 201 with the copy. */
  @Post('spaces/:spaceId/duplicate')
  @ApiCreatedResponse({ description: 'created', schema: ref('Space'), headers: etagHeader })
  @HttpCode(201)
  async duplicate(
    @PathId('spaceId', 'space') spaceId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const copyId = await this.commandBus.execute(new DuplicateSpace(spaceId, caller));
    return this.read(copyId, caller, reply);
  }

  @Post('spaces/:spaceId/move')
  @ApiOkResponse({ description: 'OK', schema: ref('Space'), headers: etagHeader })
  @HttpCode(200)
  async move(
    @PathId('spaceId', 'space') spaceId: string,
    @Body(Valid) body: MoveSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new MoveSpace(spaceId, { parent: body.parent, position: positionRequest(body.position) }, caller, parseIfMatch(ifMatch)),
    );
    return this.read(spaceId, caller, reply);
  }

  @Post('spaces/:spaceId/transfer')
  @ApiOkResponse({ description: 'OK', schema: ref('Space'), headers: etagHeader })
  @HttpCode(200)
  async transfer(
    @PathId('spaceId', 'space') spaceId: string,
    @Body(Valid) body: TransferBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new TransferSpace(spaceId, body.organization, caller, parseIfMatch(ifMatch)));
    return this.read(spaceId, caller, reply);
  }

  @Get('spaces/:spaceId/share-links')
  @ApiOkResponse({ description: 'OK', schema: listOf('ShareLink') })
  shareLinks(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListShareLinks(spaceId, caller, { page: query.page, limit: query.limit }));
  }

  /** → 201 with the share link; its `key` is the `shareKey` of `GET /spaces/{spaceId}`. */
  @Post('spaces/:spaceId/share-links')
  @ApiCreatedResponse({ description: 'created', schema: ref('ShareLink') })
  @HttpCode(201)
  async createShareLink(@PathId('spaceId', 'space') spaceId: string, @CurrentCaller() caller: Caller) {
    const shareKey = await this.commandBus.execute(new CreateShareLink(spaceId, caller));
    return this.queryBus.execute(new GetShareLink(spaceId, shareKey));
  }

  @Delete('spaces/:spaceId/share-links/:shareKey')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async revokeShareLink(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('shareKey', 'share link') shareKey: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RevokeShareLink(spaceId, shareKey, caller, parseIfMatch(ifMatch)));
  }

  /** Team access (extension): `{ next?, count, items: [{ team, role }] }`, by team id. */
  @Get('spaces/:spaceId/teams')
  @ApiOkResponse({ description: 'OK', schema: ref('SpaceTeamAccess') })
  teams(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListSpaceTeamAccess(spaceId, caller, { page: query.page, limit: query.limit }));
  }

  /** → 200 with the first page of the space's team access. `teamId` is not a PathId: anything but a live team of the organization is 400. */
  @Put('spaces/:spaceId/teams/:teamId')
  @ApiOkResponse({ description: 'OK', schema: ref('SpaceTeamAccess') })
  @HttpCode(200)
  async setTeam(
    @PathId('spaceId', 'space') spaceId: string,
    @Param('teamId') teamId: string,
    @Body(Valid) body: SetSpaceTeamBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new SetSpaceTeamAccess(spaceId, teamId, body.role, caller, parseIfMatch(ifMatch)));
    return this.queryBus.execute(new ListSpaceTeamAccess(spaceId, caller));
  }

  @Delete('spaces/:spaceId/teams/:teamId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async removeTeam(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('teamId', 'team') teamId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveSpaceTeamAccess(spaceId, teamId, caller, parseIfMatch(ifMatch)));
  }

  private async read(spaceId: string, caller: Caller, reply: FastifyReply, shareKey?: string) {
    const { space, revision } = await this.queryBus.execute(new GetSpace(spaceId, caller, shareKey));
    void reply.header('etag', etagOf(revision));
    return space;
  }
}
