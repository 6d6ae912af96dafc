import type { Readable } from 'node:stream';
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { ID_SHAPES } from '#platform/ids';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { CONTENT_SPACES, type ContentSpaces } from './content.needs';
import { ContentAccess } from './content.access';
import { ContentPresenter, type FileObject } from './content.presenter';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { pageOf, type ContentReadOptions, type Paging } from './content.reads';
import { ContentTrees } from './content.trees';
import type { FileEntry } from './tree/tree.model';

/*
 * The reads of a revision's files and their bytes (docs/content.md, Reads): `…/content/files…` of
 * content.controller.ts and of a change request (through ContentForChangeRequests), the download
 * route, and the file the published site reads through content.provides.ts (content.reads.ts says how).
 */

/** A file of a revision of the space and its bytes (no caller check: the published site); null when absent. */
export class GetRevisionFile extends Query<{ file: FileEntry; body: Readable } | null> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly fileId: string,
  ) {
    super();
  }
}

@QueryHandler(GetRevisionFile)
export class GetRevisionFileHandler implements IQueryHandler<GetRevisionFile> {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly access: ContentAccess,
  ) {}

  async execute({ spaceId, revisionId, fileId }: GetRevisionFile): Promise<{ file: FileEntry; body: Readable } | null> {
    const file = (await this.access.revisionTree(spaceId, revisionId))?.file(fileId);
    return file ? { file, body: await this.blobs.get(file.hash) } : null;
  }
}

/** `GET /spaces/{spaceId}/content/files` (and a revision's, a change request's). */
export class ListFiles extends Query<ListEnvelope<FileObject>> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListFiles)
export class ListFilesHandler implements IQueryHandler<ListFiles> {
  constructor(
    private readonly access: ContentAccess,
    private readonly presenter: ContentPresenter,
  ) {}

  async execute({ spaceId, caller, options, paging }: ListFiles): Promise<ListEnvelope<FileObject>> {
    const { space, revision, tree } = await this.access.resolve(spaceId, caller, options);
    const { items, next } = pageOf(tree.files(), paging, (file) => file.id, ID_SHAPES.entity);
    return listEnvelope({ items: items.map((file) => this.presenter.file(space, revision._id, file)), count: tree.files().length, next });
  }
}

/** `GET /spaces/{spaceId}/content/files/{fileId}` (and a change request's). */
export class GetFile extends Query<FileObject> {
  constructor(
    readonly spaceId: string,
    readonly fileId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetFile)
export class GetFileHandler implements IQueryHandler<GetFile> {
  constructor(
    private readonly access: ContentAccess,
    private readonly presenter: ContentPresenter,
  ) {}

  async execute({ spaceId, fileId, caller, options }: GetFile): Promise<FileObject> {
    const { space, revision, tree } = await this.access.resolve(spaceId, caller, options);
    const file = tree.file(fileId);
    if (!file) throw DomainError.notFound(`no file ${fileId} in revision ${revision._id}`);
    return this.presenter.file(space, revision._id, file);
  }
}

/** `GET /spaces/{spaceId}/content/files/{fileId}/download`: a file's bytes, by signature (no token needed) or, failing that, by the caller's access. */
export class DownloadFile extends Query<{ file: FileEntry; body: Readable }> {
  constructor(
    readonly spaceId: string,
    readonly fileId: string,
    readonly revisionId: string,
    readonly access: { caller?: Caller; expires?: number; signature?: string },
  ) {
    super();
  }
}

@QueryHandler(DownloadFile)
export class DownloadFileHandler implements IQueryHandler<DownloadFile> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly contentAccess: ContentAccess,
    private readonly trees: ContentTrees,
    private readonly presenter: ContentPresenter,
  ) {}

  async execute({ spaceId, fileId, revisionId, access }: DownloadFile): Promise<{ file: FileEntry; body: Readable }> {
    let revision: RevisionDoc | null = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    const missing = DomainError.notFound(`no file ${fileId} in space ${spaceId}`);
    if (!revision || revision.spaceId !== spaceId) throw missing;
    const signed = this.presenter.validDownload(spaceId, revisionId, fileId, access.expires, access.signature);
    if (!signed) {
      const space = await this.spaces.spaceById(spaceId);
      if (!space) throw missing;
      if (space.visibility !== 'public') {
        if (!access.caller) throw missing;
        ({ revision } = await this.contentAccess.resolve(spaceId, access.caller, { revision: revisionId }));
      }
    }
    const file = (await this.trees.tree(revision.tree)).file(fileId);
    if (!file) throw missing;
    return { file, body: await this.blobs.get(file.hash) };
  }
}

export const fileQueryHandlers = [GetRevisionFileHandler, ListFilesHandler, GetFileHandler, DownloadFileHandler];
