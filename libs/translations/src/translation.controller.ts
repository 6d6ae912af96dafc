import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Headers, HttpCode, Post, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { CreateTranslationSettings, DeleteTranslationSettings, UpdateTranslationSettings } from './translation.commands';
import { CreateTranslationSettingsBody, UpdateTranslationSettingsBody } from './translation.dto';
import { GetTranslationSettings, ListTranslationSettings } from './translation.queries';

/** Translation settings: `/v1/orgs/{organizationId}/translations…` (the interface's "Translations" table). */
@Controller('v1/orgs/:organizationId/translations')
export class TranslationController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('TranslationSettings') })
  list(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListTranslationSettings(organizationId, caller, { page: query.page, limit: query.limit }));
  }

  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ description: 'created', schema: ref('TranslationSettings'), headers: etagHeader })
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateTranslationSettingsBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const translationSettingsId = await this.commandBus.execute(
      new CreateTranslationSettings(organizationId, { title: body.title, languages: body.languages }, caller),
    );
    return this.read(organizationId, translationSettingsId, caller, reply);
  }

  @Get(':translationSettingsId')
  @ApiOkResponse({ description: 'OK', schema: ref('TranslationSettings'), headers: etagHeader })
  get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('translationSettingsId', 'translation settings') translationSettingsId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.read(organizationId, translationSettingsId, caller, reply);
  }

  /** `If-Match` with the ETag makes it conditional (412 when stale). */
  @Put(':translationSettingsId')
  @ApiOkResponse({ description: 'OK', schema: ref('TranslationSettings'), headers: etagHeader })
  async update(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('translationSettingsId', 'translation settings') translationSettingsId: string,
    @Body(Valid) body: UpdateTranslationSettingsBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new UpdateTranslationSettings(
        organizationId,
        translationSettingsId,
        { title: body.title, ...(body.languages !== undefined ? { languages: body.languages } : {}) },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return this.read(organizationId, translationSettingsId, caller, reply);
  }

  /**
   * 205, as the interface's status table gives for deleting the organization's other settings-like
   * resources (sites, OpenAPI specs): its table names no code for translations, and 205 ("reset
   * the view") fits a client showing the list the settings were in.
   */
  @Delete(':translationSettingsId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted' })
  async delete(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('translationSettingsId', 'translation settings') translationSettingsId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.commandBus.execute(new DeleteTranslationSettings(organizationId, translationSettingsId, caller, parseIfMatch(ifMatch)));
  }

  private async read(organizationId: string, translationSettingsId: string, caller: Caller, reply: FastifyReply) {
    const { object, revision } = await this.queryBus.execute(new GetTranslationSettings(organizationId, translationSettingsId, caller));
    void reply.header('etag', etagOf(revision));
    return object;
  }
}
