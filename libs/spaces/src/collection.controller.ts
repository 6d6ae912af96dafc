import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '@nestjs/swagger';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { CreateCollection, DeleteCollection, MoveCollection, TransferCollection, UpdateCollection } from './collection.commands';
import {
  CollectionListQuery,
  CreateCollectionBody,
  MoveCollectionBody,
  positionRequest,
  TransferBody,
  UpdateCollectionBody,
} from './space.dto';
import type { CollectionChanges } from './space.events';
import { GetCollection, ListCollectionSpaces, ListOrganizationCollections } from './space.queries';
import { Valid } from '#platform/http/validation';

/** Collections: `/v1/orgs/{organizationId}/collections` and `/v1/collections/{collectionId}…`. */
@Controller('v1')
export class CollectionController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('orgs/:organizationId/collections')
  @ApiOkResponse({ description: 'OK', schema: listOf('Collection') })
  list(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: CollectionListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(
      new ListOrganizationCollections(organizationId, caller, { page: query.page, limit: query.limit, nested: query.nested !== 'false' }),
    );
  }

  @Post('orgs/:organizationId/collections')
  @ApiCreatedResponse({ description: 'created', schema: ref('Collection'), headers: etagHeader })
  @HttpCode(201)
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateCollectionBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const collectionId = await this.commandBus.execute(
      new CreateCollection(organizationId, { title: body.title, parent: body.parent }, caller),
    );
    return this.read(collectionId, caller, reply);
  }

  @Get('collections/:collectionId')
  @ApiOkResponse({ description: 'OK', schema: ref('Collection'), headers: etagHeader })
  get(
    @PathId('collectionId', 'collection') collectionId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.read(collectionId, caller, reply);
  }

  @Patch('collections/:collectionId')
  @ApiOkResponse({ description: 'OK', schema: ref('Collection'), headers: etagHeader })
  async update(
    @PathId('collectionId', 'collection') collectionId: string,
    @Body(Valid) body: UpdateCollectionBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const changes: CollectionChanges = {};
    if (body.title !== undefined) changes.title = body.title;
    if (body.description !== undefined) changes.description = body.description;
    if (body.defaultLevel !== undefined) changes.defaultLevel = body.defaultLevel;
    await this.commandBus.execute(new UpdateCollection(collectionId, changes, caller, parseIfMatch(ifMatch)));
    return this.read(collectionId, caller, reply);
  }

  /** → 204; its spaces and collections move up to its parent (see DeleteCollection). */
  @Delete('collections/:collectionId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async delete(
    @PathId('collectionId', 'collection') collectionId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteCollection(collectionId, caller, parseIfMatch(ifMatch)));
  }

  @Get('collections/:collectionId/spaces')
  @ApiOkResponse({ description: 'OK', schema: listOf('Space') })
  spaces(@PathId('collectionId', 'collection') collectionId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListCollectionSpaces(collectionId, caller, { page: query.page, limit: query.limit }));
  }

  @Post('collections/:collectionId/move')
  @ApiOkResponse({ description: 'OK', schema: ref('Collection'), headers: etagHeader })
  @HttpCode(200)
  async move(
    @PathId('collectionId', 'collection') collectionId: string,
    @Body(Valid) body: MoveCollectionBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new MoveCollection(collectionId, { parent: body.parent, position: positionRequest(body.position) }, caller, parseIfMatch(ifMatch)),
    );
    return this.read(collectionId, caller, reply);
  }

  @Post('collections/:collectionId/transfer')
  @ApiOkResponse({ description: 'OK', schema: ref('Collection'), headers: etagHeader })
  @HttpCode(200)
  async transfer(
    @PathId('collectionId', 'collection') collectionId: string,
    @Body(Valid) body: TransferBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new TransferCollection(collectionId, body.organization, caller, parseIfMatch(ifMatch)));
    return this.read(collectionId, caller, reply);
  }

  private async read(collectionId: string, caller: Caller, reply: FastifyReply) {
    const { collection, revision } = await this.queryBus.execute(new GetCollection(collectionId, caller));
    void reply.header('etag', etagOf(revision));
    return collection;
  }
}
