import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import {
  CHANGE_REQUEST_CONTENT,
  type ChangeRequestContent,
  type ContentLinkStatus,
  type ContentPaging,
  type ContentReadFlags,
  type VersionedContent,
} from './changerequests.needs';
import { ChangeRequestLines } from './changerequest.lines';

/*
 * The reads of a change request's content (`/spaces/{spaceId}/change-requests/{changeRequestId}/content…`):
 * the space's content reads, in the request's head revision. The request a path names (`ref`: its id
 * or number; 404 when the caller may not see it) and its head are this context's; the content is
 * read through the CHANGE_REQUEST_CONTENT port, which answers as the space's routes do.
 */

/** `GET …/content`: the Revision object of the request's head, with its pages and files. */
export class GetChangeRequestContent extends Query<{ id: string }> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly flags: ContentReadFlags,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestContent)
export class GetChangeRequestContentHandler implements IQueryHandler<GetChangeRequestContent> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, caller, flags }: GetChangeRequestContent): Promise<{ id: string }> {
    return this.content.revision(spaceId, await this.lines.head(spaceId, ref, caller), caller, flags);
  }
}

/** `GET …/content/pages`: the page tree of the request's head, with the bodies. */
export class GetChangeRequestPages extends Query<unknown> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly flags: ContentReadFlags,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestPages)
export class GetChangeRequestPagesHandler implements IQueryHandler<GetChangeRequestPages> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, caller, flags }: GetChangeRequestPages): Promise<unknown> {
    return this.content.pages(spaceId, await this.lines.head(spaceId, ref, caller), caller, flags);
  }
}

/** `GET …/content/files`: a page of the files of the request's head. */
export class ListChangeRequestFiles extends Query<unknown> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly flags: ContentReadFlags,
    readonly paging: ContentPaging,
  ) {
    super();
  }
}

@QueryHandler(ListChangeRequestFiles)
export class ListChangeRequestFilesHandler implements IQueryHandler<ListChangeRequestFiles> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, caller, flags, paging }: ListChangeRequestFiles): Promise<unknown> {
    return this.content.files(spaceId, await this.lines.head(spaceId, ref, caller), caller, flags, paging);
  }
}

/** `GET …/content/files/{fileId}`: a file of the request's head. */
export class GetChangeRequestFile extends Query<unknown> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly fileId: string,
    readonly caller: Caller,
    readonly flags: ContentReadFlags,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestFile)
export class GetChangeRequestFileHandler implements IQueryHandler<GetChangeRequestFile> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, fileId, caller, flags }: GetChangeRequestFile): Promise<unknown> {
    return this.content.file(spaceId, await this.lines.head(spaceId, ref, caller), fileId, caller, flags);
  }
}

/** `GET …/content/page/{pageId}`: a page of the request's head, with that revision (its ETag). */
export class GetChangeRequestPage extends Query<VersionedContent> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly pageId: string,
    readonly caller: Caller,
    readonly flags: ContentReadFlags,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestPage)
export class GetChangeRequestPageHandler implements IQueryHandler<GetChangeRequestPage> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, pageId, caller, flags }: GetChangeRequestPage): Promise<VersionedContent> {
    return this.content.page(spaceId, await this.lines.head(spaceId, ref, caller), pageId, caller, flags);
  }
}

/** `GET …/content/path/{pagePath}`: the page at a path of slugs (`a/b/c`) in the request's head, with that revision (its ETag). */
export class GetChangeRequestPageByPath extends Query<VersionedContent> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly path: string,
    readonly caller: Caller,
    readonly flags: ContentReadFlags,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestPageByPath)
export class GetChangeRequestPageByPathHandler implements IQueryHandler<GetChangeRequestPageByPath> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, path, caller, flags }: GetChangeRequestPageByPath): Promise<VersionedContent> {
    return this.content.pageByPath(spaceId, await this.lines.head(spaceId, ref, caller), path, caller, flags);
  }
}

/** `GET …/content/page/{pageId}/links`: a page's outgoing links, judged and named in the request's head. */
export class ListChangeRequestPageLinks extends Query<unknown> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly pageId: string,
    readonly caller: Caller,
    readonly status: ContentLinkStatus | undefined,
    readonly paging: ContentPaging,
  ) {
    super();
  }
}

@QueryHandler(ListChangeRequestPageLinks)
export class ListChangeRequestPageLinksHandler implements IQueryHandler<ListChangeRequestPageLinks> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, pageId, caller, status, paging }: ListChangeRequestPageLinks): Promise<unknown> {
    return this.content.pageLinks(spaceId, await this.lines.head(spaceId, ref, caller), pageId, caller, status, paging);
  }
}

/** `GET …/content/page/{pageId}/backlinks` and `…/content/files/{fileId}/backlinks`: the pages that link to a page or a file of the request's head. */
export class ListChangeRequestBacklinks extends Query<unknown> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly target: { page: string } | { file: string },
    readonly caller: Caller,
    readonly paging: ContentPaging,
  ) {
    super();
  }
}

@QueryHandler(ListChangeRequestBacklinks)
export class ListChangeRequestBacklinksHandler implements IQueryHandler<ListChangeRequestBacklinks> {
  constructor(
    private readonly lines: ChangeRequestLines,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, target, caller, paging }: ListChangeRequestBacklinks): Promise<unknown> {
    return this.content.backlinks(spaceId, await this.lines.head(spaceId, ref, caller), target, caller, paging);
  }
}

export const changeRequestContentQueryHandlers = [
  GetChangeRequestContentHandler,
  GetChangeRequestPagesHandler,
  ListChangeRequestFilesHandler,
  GetChangeRequestFileHandler,
  GetChangeRequestPageHandler,
  GetChangeRequestPageByPathHandler,
  ListChangeRequestPageLinksHandler,
  ListChangeRequestBacklinksHandler,
];
