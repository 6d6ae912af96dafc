import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOfId, parseIfMatchId } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import type { VersionedContent } from './changerequests.needs';
import { ImportChangeRequestContent, WriteChangeRequestContent } from './changerequest.content.commands';
// The space's content routes' request shapes: the same queries and bodies, validated and documented alike.
import { ContentListQuery, ContentReadQuery, ImportBody, LinksQuery, WriteContentBody } from '#content';
import {
  GetChangeRequestContent,
  GetChangeRequestFile,
  GetChangeRequestPage,
  GetChangeRequestPageByPath,
  GetChangeRequestPages,
  ListChangeRequestBacklinks,
  ListChangeRequestFiles,
  ListChangeRequestPageLinks,
} from './changerequest.content.queries';

/** One object of the request's content, answered with the revision it was read in as its ETag: what a write of it names in If-Match. */
function tagged(reply: FastifyReply, { object, revisionId }: VersionedContent): unknown {
  void reply.header('etag', etagOfId(revisionId));
  return object;
}

/**
 * The content of a change request: `/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content…`,
 * the same reads as the space's (on the request's head revision), its batch write and imports, which
 * content serves through the CHANGE_REQUEST_CONTENT port. The content and its pages answer the
 * request's head revision as their `ETag`; every write of the request's content accepts it as
 * `If-Match` (412 when stale).
 */
@Controller('v1/spaces/:spaceId/change-requests/:changeRequestId')
export class ChangeRequestContentController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('content')
  @ApiOkResponse({ description: 'OK', schema: ref('Revision'), headers: etagHeader })
  async revision(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const revision = await this.queryBus.execute(new GetChangeRequestContent(spaceId, ref, caller, query));
    void reply.header('etag', etagOfId(revision.id));
    return revision;
  }

  @Post('content')
  @HttpCode(200)
  @ApiOkResponse({
    description: 'the request’s new revision and what each change did',
    schema: ref('ChangeRequestContentWriteResult'),
    headers: etagHeader,
  })
  async write(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @Body(Valid) body: WriteContentBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const outcome = await this.commandBus.execute(
      new WriteChangeRequestContent(spaceId, ref, body.changes, caller, parseIfMatchId(ifMatch)),
    );
    void reply.header('etag', etagOfId(outcome.revisionId));
    return {
      changeRequest: outcome.changeRequestId,
      revision: outcome.revisionId,
      changes: outcome.changes,
      insertedFiles: outcome.insertedFiles,
    };
  }

  @Post('content/import')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('ImportResult'), headers: etagHeader })
  async import(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @Body(Valid) body: ImportBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const imported = await this.commandBus.execute(
      new ImportChangeRequestContent(spaceId, ref, undefined, body, caller, parseIfMatchId(ifMatch)),
    );
    return tagged(reply, { object: imported, revisionId: imported.revision });
  }

  @Get('content/pages')
  @ApiOkResponse({ description: 'OK', schema: ref('RevisionPages') })
  async pages(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetChangeRequestPages(spaceId, ref, caller, query));
  }

  @Get('content/files')
  @ApiOkResponse({ description: 'OK', schema: listOf('File') })
  async files(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @Query(Valid) query: ContentListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListChangeRequestFiles(spaceId, ref, caller, query, { page: query.page, limit: query.limit }));
  }

  @Get('content/files/:fileId')
  @ApiOkResponse({ description: 'OK', schema: ref('File') })
  async file(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @PathId('fileId', 'file') fileId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetChangeRequestFile(spaceId, ref, fileId, caller, query));
  }

  @Get('content/files/:fileId/backlinks')
  @ApiOkResponse({ description: 'OK', schema: listOf('ContentReference') })
  async fileBacklinks(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @PathId('fileId', 'file') fileId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListChangeRequestBacklinks(spaceId, ref, { file: fileId }, caller, query));
  }

  @Get('content/page/:pageId')
  @ApiOkResponse({ description: 'OK', schema: ref('Page'), headers: etagHeader })
  async page(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @PathId('pageId', 'page') pageId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetChangeRequestPage(spaceId, ref, pageId, caller, query)));
  }

  @Get('content/page/:pageId/links')
  @ApiOkResponse({ description: 'OK', schema: ref('ContentLinks') })
  async pageLinks(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @PathId('pageId', 'page') pageId: string,
    @Query(Valid) query: LinksQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListChangeRequestPageLinks(spaceId, ref, pageId, caller, query.status, query));
  }

  @Get('content/page/:pageId/backlinks')
  @ApiOkResponse({ description: 'OK', schema: listOf('ContentReference') })
  async pageBacklinks(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @PathId('pageId', 'page') pageId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListChangeRequestBacklinks(spaceId, ref, { page: pageId }, caller, query));
  }

  @Post('content/page/:pageId/import')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('ImportResult'), headers: etagHeader })
  async importIntoPage(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @PathId('pageId', 'page') pageId: string,
    @Body(Valid) body: ImportBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const imported = await this.commandBus.execute(
      new ImportChangeRequestContent(spaceId, ref, pageId, body, caller, parseIfMatchId(ifMatch)),
    );
    return tagged(reply, { object: imported, revisionId: imported.revision });
  }

  /** The page at a path of slugs (`a/b/c`) in the request's head. */
  @Get('content/path/*')
  @ApiOkResponse({ description: 'OK', schema: ref('Page'), headers: etagHeader })
  async pageByPath(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') ref: string,
    @Param('*') pagePath: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetChangeRequestPageByPath(spaceId, ref, pagePath, caller, query)));
  }
}
