import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '../../platform/src/http/auth';
import { etagOfId, parseIfMatchId } from '../../platform/src/http/etag';
import { PathId } from '../../platform/src/http/id-param';
import { ListQuery } from '../../platform/src/http/list';
import { etagHeader, listOf, ref } from '../../platform/src/platform.schemas';
import { Valid } from '../../platform/src/http/validation';
import { ContentCommands } from './content.commands';
import { ContentListQuery, ContentReadQuery, readOptions, RollbackBody } from './content.dto';
import { ContentQueries } from './content.queries';

/**
 * The history of a space's content (extension): `/v1/spaces/{spaceId}/revisions`, each revision's
 * pages, files and page reads (the same flags as the content reads), its semantic changes against
 * its first parent, and rolling the space or one page back to it.
 */
@Controller('v1/spaces/:spaceId/revisions')
export class RevisionController {
  constructor(
    private readonly commands: ContentCommands,
    private readonly queries: ContentQueries,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('RevisionSummary') })
  list(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.revisions(spaceId, caller, query);
  }

  @Get(':revisionId')
  @ApiOkResponse({ description: 'OK', schema: ref('Revision') })
  get(@PathId('spaceId', 'space') spaceId: string, @PathId('revisionId', 'revision') revisionId: string, @Query(Valid) query: ContentReadQuery, @CurrentCaller() caller: Caller) {
    return this.queries.revision(spaceId, caller, { ...readOptions(query), revision: revisionId });
  }

  @Get(':revisionId/pages')
  @ApiOkResponse({ description: 'OK', schema: ref('RevisionPages') })
  pages(@PathId('spaceId', 'space') spaceId: string, @PathId('revisionId', 'revision') revisionId: string, @Query(Valid) query: ContentReadQuery, @CurrentCaller() caller: Caller) {
    return this.queries.pages(spaceId, caller, { ...readOptions(query), revision: revisionId });
  }

  @Get(':revisionId/files')
  @ApiOkResponse({ description: 'OK', schema: listOf('File') })
  files(@PathId('spaceId', 'space') spaceId: string, @PathId('revisionId', 'revision') revisionId: string, @Query(Valid) query: ContentListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.files(spaceId, caller, { ...readOptions(query), revision: revisionId }, { page: query.page, limit: query.limit });
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
    return (await this.queries.page(spaceId, pageId, caller, { ...readOptions(query), revision: revisionId })).object;
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
    return (await this.queries.pageByPath(spaceId, pagePath, caller, { ...readOptions(query), revision: revisionId })).object;
  }

  @Get(':revisionId/changes')
  @ApiOkResponse({ description: 'OK', schema: ref('RevisionChanges') })
  changes(@PathId('spaceId', 'space') spaceId: string, @PathId('revisionId', 'revision') revisionId: string, @CurrentCaller() caller: Caller) {
    return this.queries.changes(spaceId, revisionId, caller);
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
    const outcome = await this.commands.rollback(spaceId, revisionId, caller, body.page, parseIfMatchId(ifMatch));
    void reply.header('etag', etagOfId(outcome.revisionId));
    return this.queries.revision(spaceId, caller, { revision: outcome.revisionId });
  }
}
