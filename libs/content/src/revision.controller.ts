import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOfId, parseIfMatchId } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { Valid } from '#platform/http/validation';
import { RollbackContent } from './content.commands';
import { ContentListQuery, ContentReadQuery, readOptions, RollbackBody } from './content.dto';
import { ListFiles } from './file.queries';
import { GetPage, GetPageByPath, GetRevision, GetRevisionChanges, GetRevisionPages, ListRevisions } from './revision.queries';

/**
 * The history of a space's content (extension): `/v1/spaces/{spaceId}/revisions`, each revision's
 * pages, files and page reads (the same flags as the content reads), its semantic changes against
 * its first parent, and rolling the space or one page back to it.
 */
@Controller('v1/spaces/:spaceId/revisions')
export class RevisionController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('RevisionSummary') })
  list(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListRevisions(spaceId, caller, query));
  }

  @Get(':revisionId')
  @ApiOkResponse({ description: 'OK', schema: ref('Revision') })
  get(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('revisionId', 'revision') revisionId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetRevision(spaceId, caller, { ...readOptions(query), revision: revisionId }));
  }

  @Get(':revisionId/pages')
  @ApiOkResponse({ description: 'OK', schema: ref('RevisionPages') })
  pages(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('revisionId', 'revision') revisionId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetRevisionPages(spaceId, caller, { ...readOptions(query), revision: revisionId }));
  }

  @Get(':revisionId/files')
  @ApiOkResponse({ description: 'OK', schema: listOf('File') })
  files(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('revisionId', 'revision') revisionId: string,
    @Query(Valid) query: ContentListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(
      new ListFiles(spaceId, caller, { ...readOptions(query), revision: revisionId }, { page: query.page, limit: query.limit }),
    );
  }

  @Get(':revisionId/page/:pageId')
  @ApiOkResponse({ description: 'OK', schema: ref('Page') })
  async page(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('revisionId', 'revision') revisionId: string,
    @PathId('pageId', 'page') pageId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return (await this.queryBus.execute(new GetPage(spaceId, pageId, caller, { ...readOptions(query), revision: revisionId }))).object;
  }

  @Get(':revisionId/path/*')
  @ApiOkResponse({ description: 'OK', schema: ref('Page') })
  async pageByPath(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('revisionId', 'revision') revisionId: string,
    @Param('*') pagePath: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return (await this.queryBus.execute(new GetPageByPath(spaceId, pagePath, caller, { ...readOptions(query), revision: revisionId })))
      .object;
  }

  @Get(':revisionId/changes')
  @ApiOkResponse({ description: 'OK', schema: ref('RevisionChanges') })
  changes(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('revisionId', 'revision') revisionId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetRevisionChanges(spaceId, revisionId, caller));
  }

  /** A new `rollback` revision whose content (or one page's) is that of this revision. */
  @Post(':revisionId/rollback')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the new revision', schema: ref('Revision'), headers: etagHeader })
  async rollback(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('revisionId', 'revision') revisionId: string,
    @Body(Valid) body: RollbackBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const newRevisionId = await this.commandBus.execute(
      new RollbackContent(spaceId, revisionId, body.page, caller, parseIfMatchId(ifMatch)),
    );
    void reply.header('etag', etagOfId(newRevisionId));
    return this.queryBus.execute(new GetRevision(spaceId, caller, { revision: newRevisionId }));
  }
}
