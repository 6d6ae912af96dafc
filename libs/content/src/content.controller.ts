import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiProduces } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, OptionalCaller, Public, type Caller } from '#platform/http/auth';
import { CachedRead } from '#platform/http/response-cache';
import { etagOfId, parseIfMatchId } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { servedFileHeaders } from '#platform/http/served-file';
import { ListQuery } from '#platform/http/list';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { Valid } from '#platform/http/validation';
import { ImportContent, WriteContent } from './content.commands';
import {
  ContentListQuery,
  ContentReadQuery,
  DownloadQuery,
  ImportBody,
  LinksQuery,
  readOptions,
  SearchQuery,
  WriteContentBody,
} from './content.dto';
import type { Versioned } from './content.reads';
import { DownloadFile, GetFile, ListFiles } from './file.queries';
import { ListBacklinks, ListPageLinks, ListSpaceLinks } from './link.queries';
import { GetPage, GetPageByPath, GetRevision, GetRevisionPages } from './revision.queries';
import { SearchSpace } from './search.queries';

/** One object of the content, answered with the revision it was read in as its ETag: what a write of it names in If-Match. */
export function tagged<T>(reply: FastifyReply, { object, revisionId }: Versioned<T>): T {
  void reply.header('etag', etagOfId(revisionId));
  return object;
}

/**
 * Space content: `/v1/spaces/{spaceId}/content…` (the interface's "Space content" table), the
 * batch write `POST /v1/spaces/{spaceId}/content` and the file download (extensions), space links
 * and space search. Reads take the flags `revision`, `format`, `evaluated`, `metadata`, `computed`.
 * The content and its pages answer the revision read as their `ETag`; every write of the content
 * (batch, imports, rollback) accepts it as `If-Match` (412 when the head moved on).
 */
@Controller('v1/spaces/:spaceId')
export class ContentController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('content')
  @ApiOkResponse({ description: 'OK', schema: ref('Revision'), headers: etagHeader })
  async revision(
    @PathId('spaceId', 'space') spaceId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const revision = await this.queryBus.execute(new GetRevision(spaceId, caller, readOptions(query)));
    void reply.header('etag', etagOfId(revision.id));
    return revision;
  }

  @Post('content')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the new revision and what each change did', schema: ref('ContentWriteResult'), headers: etagHeader })
  async write(
    @PathId('spaceId', 'space') spaceId: string,
    @Body(Valid) body: WriteContentBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const outcome = await this.commandBus.execute(new WriteContent(spaceId, body.changes, caller, parseIfMatchId(ifMatch)));
    void reply.header('etag', etagOfId(outcome.revisionId));
    return { revision: outcome.revisionId, changes: outcome.changes, insertedFiles: outcome.insertedFiles };
  }

  @Post('content/import')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('ImportResult'), headers: etagHeader })
  async import(
    @PathId('spaceId', 'space') spaceId: string,
    @Body(Valid) body: ImportBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const imported = await this.commandBus.execute(new ImportContent(spaceId, undefined, body, caller, parseIfMatchId(ifMatch)));
    return tagged(reply, { object: imported, revisionId: imported.revision });
  }

  @Get('content/pages')
  @ApiOkResponse({ description: 'OK', schema: ref('RevisionPages') })
  pages(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: ContentReadQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new GetRevisionPages(spaceId, caller, readOptions(query)));
  }

  @Get('content/files')
  @ApiOkResponse({ description: 'OK', schema: listOf('File') })
  files(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: ContentListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListFiles(spaceId, caller, readOptions(query), { page: query.page, limit: query.limit }));
  }

  @Get('content/files/:fileId')
  @ApiOkResponse({ description: 'OK', schema: ref('File') })
  file(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('fileId', 'file') fileId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetFile(spaceId, fileId, caller, readOptions(query)));
  }

  /** The bytes of a file (extension): by the signed URL of `downloadURL`, a token that may read the space, or for anyone when the space is public. */
  @Get('content/files/:fileId/download')
  @Public()
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the file, with its content type', schema: { type: 'string', format: 'binary' } })
  async download(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('fileId', 'file') fileId: string,
    @Query(Valid) query: DownloadQuery,
    @OptionalCaller() caller: Caller | undefined,
    @Res() reply: FastifyReply,
  ) {
    const { file, body } = await this.queryBus.execute(
      new DownloadFile(spaceId, fileId, query.revision, {
        caller,
        expires: query.expires === undefined ? undefined : Number(query.expires),
        signature: query.signature,
      }),
    );
    // Served bytes never run as a page of this origin: only inert types inline, no sniffing, in a sandbox.
    void reply.headers(servedFileHeaders(file)).header('cache-control', 'private, max-age=3600, immutable');
    return reply.send(body);
  }

  @Get('content/files/:fileId/backlinks')
  @ApiOkResponse({ description: 'OK', schema: listOf('ContentReference') })
  fileBacklinks(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('fileId', 'file') fileId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListBacklinks(spaceId, { file: fileId }, caller, query));
  }

  // A page is a function of the read models (space, head revision) and of immutable, hash-named
  // tree blobs: it may be answered from the response cache (file objects, whose signed URLs read
  // the clock, are not part of it).
  @Get('content/page/:pageId')
  @CachedRead()
  @ApiOkResponse({ description: 'OK', schema: ref('Page'), headers: etagHeader })
  async page(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('pageId', 'page') pageId: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetPage(spaceId, pageId, caller, readOptions(query))));
  }

  @Get('content/page/:pageId/links')
  @ApiOkResponse({ description: 'OK', schema: ref('ContentLinks') })
  pageLinks(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('pageId', 'page') pageId: string,
    @Query(Valid) query: LinksQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListPageLinks(spaceId, pageId, caller, query.status, query));
  }

  @Get('content/page/:pageId/backlinks')
  @ApiOkResponse({ description: 'OK', schema: listOf('ContentReference') })
  pageBacklinks(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('pageId', 'page') pageId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListBacklinks(spaceId, { page: pageId }, caller, query));
  }

  @Post('content/page/:pageId/import')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('ImportResult'), headers: etagHeader })
  async importIntoPage(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('pageId', 'page') pageId: string,
    @Body(Valid) body: ImportBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const imported = await this.commandBus.execute(new ImportContent(spaceId, pageId, body, caller, parseIfMatchId(ifMatch)));
    return tagged(reply, { object: imported, revisionId: imported.revision });
  }

  /** The page at a path of slugs (`a/b/c`), URL-encoded or not. */
  @Get('content/path/*')
  @CachedRead()
  @ApiOkResponse({ description: 'OK', schema: ref('Page'), headers: etagHeader })
  async pageByPath(
    @PathId('spaceId', 'space') spaceId: string,
    @Param('*') pagePath: string,
    @Query(Valid) query: ContentReadQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetPageByPath(spaceId, pagePath, caller, readOptions(query))));
  }

  @Get('links')
  @ApiOkResponse({ description: 'OK', schema: ref('ContentLinks') })
  links(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: LinksQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListSpaceLinks(spaceId, caller, query.status, query));
  }

  @Get('search')
  @ApiOkResponse({ description: 'OK', schema: listOf('SearchPageResult') })
  search(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: SearchQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new SearchSpace(spaceId, query.query, caller, query));
  }
}
