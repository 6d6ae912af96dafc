import type { Readable } from 'node:stream';
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { byIds } from '../../platform/src/by-ids';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { ID_SHAPES } from '../../platform/src/ids';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { CONTENT_CHANGE_REQUESTS, type ContentChangeRequests } from './content-changerequests.port';
import { CONTENT_OPENAPI, type ContentOpenapi } from './content-openapi.port';
import { CONTENT_SPACES, type ContentSpace, type ContentSpaces } from './content-spaces.port';
import { ContentAccess, type ResolvedContent } from './content.access';
import { ContentBodies } from './content.bodies';
import { computedDocument, resolveOpenapiBlocks } from './content.openapi';
import { ContentPresenter, type FileObject, type PageObject, type RevisionObject, type RevisionSummary } from './content.presenter';
import { CONTENT_HEADS, CONTENT_LINKS, CONTENT_REVISIONS, type ContentHeadDoc, type LinkDoc, type RevisionDoc } from './content.projections';
import { ContentSearch, type SpaceSearchResult } from './content.search';
import { ContentTrees } from './content.trees';
import type { MarkdownRefs } from './document';
import type { ContentRef, DocumentNode } from './document/document.model';
import { mergeOrganizationHits } from './search/search-indexes';
import type { PageHit } from './search/space-search-index';
import { diffTrees, type SemanticChange } from './tree/tree-diff';
import type { FileEntry } from './tree/tree.model';

/*
 * The content reads: every read resolves the space (404 when the caller may not see it), then the
 * revision asked for (default: the head), then answers from the revision's tree (loaded once per
 * root hash) and, for bodies, the blob store's cache (ContentAccess, ContentBodies). The reads of
 * the published site (SITE_CONTENT) check no caller: the site's visibility rules decide who reads.
 */

/** Query flags of the content reads (docs/content.md, Reads). */
export interface ContentReadOptions {
  /** A revision of the space; default its primary content. */
  revision?: string;
  shareKey?: string;
  /** The bodies of pages as `markdown` or as a JSON `document` (default). */
  format?: 'markdown' | 'document';
  /** With `markdown`: links to pages as relative paths between markdown files, or as `/pages/<id>` (default relative). */
  markdownRefs?: MarkdownRefs;
  /** Substitute the space's and the page's variables in the body's expressions. */
  evaluated?: boolean;
  /** Resolve computed content from the specs' latest versions: computed pages and OpenAPI operation blocks (default true). */
  computed?: boolean;
}

/**
 * One object of a space's content (or of a change request's) and the revision it was read in: its
 * ETag. Every part of the content lives in one revision, so that revision is what a write of any
 * of them names in If-Match; body and tag come from the same read.
 */
export interface Versioned<T> {
  object: T;
  revisionId: string;
}

export type LinkStatus = 'ok' | 'broken' | 'in-app';

export interface ContentReference {
  kind: string;
  organization: string;
  space: string;
  versionContext: { type: 'revision'; revision: string };
  [member: string]: unknown;
}

export interface LinkItem {
  status: LinkStatus;
  relation: 'link';
  targetReference: ContentReference | (ContentRef & { organization?: string; space?: string });
  locationReferences: ContentReference[];
}

export interface LinksEnvelope extends ListEnvelope<LinkItem> {
  stats: { total: number; broken: { total: number; changeRequest: number } };
}

export type { SpaceSearchResult } from './content.search';

export interface OrganizationSearchResult {
  type: 'space';
  id: string;
  title: string;
  score: number;
  pages: SpaceSearchResult[];
}

type Paging = { page?: string; limit?: number };

/** Spaces searched by one organization search, at most. */
const ORGANIZATION_SEARCH_SPACES = 200;

/** What a space's content shows to the published site: everything can be read, nothing written. */
const SITE_PERMISSIONS = { view: true, edit: false, comment: false, admin: false };

// ---- the published site's reads (SITE_CONTENT; no caller check) and other contexts' -----------

/** The head revision ids of spaces (the Space object's `revision`; change requests' `outdated`; comments' anchors). */
export class GetContentHeads extends Query<Map<string, string>> {
  constructor(readonly spaceIds: readonly string[]) {
    super();
  }
}

@QueryHandler(GetContentHeads)
export class GetContentHeadsHandler implements IQueryHandler<GetContentHeads> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ spaceIds }: GetContentHeads): Promise<Map<string, string>> {
    const heads = await byIds(this.reads.collection<ContentHeadDoc>(CONTENT_HEADS), spaceIds);
    return new Map(heads.map((head) => [head._id, head.revisionId]));
  }
}

/**
 * A space's primary content without a caller check, for the published site (whose visibility
 * rules decide who reads it): null when the space does not exist, is deleted or has no content.
 */
export class GetPrimaryContent extends Query<ResolvedContent | null> {
  constructor(readonly spaceId: string) {
    super();
  }
}

@QueryHandler(GetPrimaryContent)
export class GetPrimaryContentHandler implements IQueryHandler<GetPrimaryContent> {
  constructor(
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly access: ContentAccess,
    private readonly trees: ContentTrees,
  ) {}

  async execute({ spaceId }: GetPrimaryContent): Promise<ResolvedContent | null> {
    const space = await this.spaces.spaceById(spaceId);
    if (!space || space.deleted) return null;
    const revision = await this.access.headRevision(spaceId);
    if (!revision) return null;
    return { space: { ...space, permissions: SITE_PERMISSIONS }, revision, tree: await this.trees.tree(revision.tree) };
  }
}

/** A document page's body in a revision of the space, its expressions evaluated (no caller check: the published site); null when absent. */
export class GetRevisionDocument extends Query<DocumentNode | null> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly pageId: string,
  ) {
    super();
  }
}

@QueryHandler(GetRevisionDocument)
export class GetRevisionDocumentHandler implements IQueryHandler<GetRevisionDocument> {
  constructor(
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    @Inject(CONTENT_OPENAPI) private readonly openapi: ContentOpenapi,
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, revisionId, pageId }: GetRevisionDocument): Promise<DocumentNode | null> {
    const tree = await this.access.revisionTree(spaceId, revisionId);
    const page = tree?.page(pageId);
    if (!tree || !page || page.type !== 'document') return null;
    // As the API reads a page by default: computed (a computed page generated, operation blocks resolved).
    const organizationId = (await this.spaces.spaceById(spaceId))?.organizationId;
    const generated = organizationId !== undefined && page.computed !== undefined ? await computedDocument(page.computed, organizationId, this.openapi) : null;
    if (generated) return generated;
    const evaluated = await this.bodies.evaluatedDocument(revisionId, tree, page);
    return organizationId === undefined ? evaluated : resolveOpenapiBlocks(evaluated, organizationId, this.openapi);
  }
}

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

/** Search in a revision of the space (no caller check: the published site); no hits when the revision is not the space's. */
export class SearchRevision extends Query<PageHit[]> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly query: string,
  ) {
    super();
  }
}

@QueryHandler(SearchRevision)
export class SearchRevisionHandler implements IQueryHandler<SearchRevision> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly trees: ContentTrees,
    private readonly search: ContentSearch,
  ) {}

  async execute({ spaceId, revisionId, query }: SearchRevision): Promise<PageHit[]> {
    const space = await this.spaces.spaceById(spaceId);
    const revision = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!space || !revision || revision.spaceId !== spaceId) return [];
    return this.search.hits({ space: { ...space, permissions: SITE_PERMISSIONS }, revision, tree: await this.trees.tree(revision.tree) }, query);
  }
}

// ---- revisions, pages and files -----------------------------------------------------------------

/**
 * `GET /spaces/{spaceId}/content` and `GET /spaces/{spaceId}/revisions/{revisionId}` (`options.revision`),
 * and a change request's content (its head as `options.revision`): the revision with its pages and files.
 */
export class GetRevision extends Query<RevisionObject> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetRevision)
export class GetRevisionHandler implements IQueryHandler<GetRevision> {
  constructor(
    @Inject(CONTENT_CHANGE_REQUESTS) private readonly changeRequests: ContentChangeRequests,
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
    private readonly presenter: ContentPresenter,
  ) {}

  async execute({ spaceId, caller, options }: GetRevision): Promise<RevisionObject> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    const { space, revision, tree } = resolved;
    const [pages, mergedFrom] = await Promise.all([
      this.bodies.pageTree(resolved, options),
      revision.mergedFrom === undefined ? undefined : this.changeRequests.presented(space.id, revision.mergedFrom, caller),
    ]);
    return this.presenter.revision(space, revision, tree, pages, mergedFrom);
  }
}

/** `GET /spaces/{spaceId}/content/pages` (and a revision's, a change request's): the page tree with the bodies. */
export class GetRevisionPages extends Query<{ pages: PageObject[] }> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetRevisionPages)
export class GetRevisionPagesHandler implements IQueryHandler<GetRevisionPages> {
  constructor(
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, caller, options }: GetRevisionPages): Promise<{ pages: PageObject[] }> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    return { pages: await this.bodies.pageTree(resolved, options) };
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

/** `GET /spaces/{spaceId}/content/page/{pageId}` (and a revision's, a change request's): the page, with the revision it was read in (its ETag). */
export class GetPage extends Query<Versioned<PageObject>> {
  constructor(
    readonly spaceId: string,
    readonly pageId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetPage)
export class GetPageHandler implements IQueryHandler<GetPage> {
  constructor(
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, pageId, caller, options }: GetPage): Promise<Versioned<PageObject>> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    const page = resolved.tree.page(pageId);
    if (!page) throw DomainError.notFound(`no page ${pageId} in revision ${resolved.revision._id}`);
    return { object: await this.bodies.page(resolved, page, options), revisionId: resolved.revision._id };
  }
}

/** `GET /spaces/{spaceId}/content/path/{pagePath}` (and a revision's, a change request's): the page at a path of slugs, with the revision it was read in (its ETag). */
export class GetPageByPath extends Query<Versioned<PageObject>> {
  constructor(
    readonly spaceId: string,
    readonly path: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetPageByPath)
export class GetPageByPathHandler implements IQueryHandler<GetPageByPath> {
  constructor(
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, path, caller, options }: GetPageByPath): Promise<Versioned<PageObject>> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    const page = resolved.tree.pageByPath(normalizePagePath(path));
    if (!page) throw DomainError.notFound(`no page at path ${JSON.stringify(path.slice(0, 200))} in revision ${resolved.revision._id}`);
    return { object: await this.bodies.page(resolved, page, options), revisionId: resolved.revision._id };
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

/** `GET /spaces/{spaceId}/revisions`: the space's revisions, newest first. */
export class ListRevisions extends Query<ListEnvelope<RevisionSummary>> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListRevisions)
export class ListRevisionsHandler implements IQueryHandler<ListRevisions> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly presenter: ContentPresenter,
  ) {}

  async execute({ spaceId, caller, paging }: ListRevisions): Promise<ListEnvelope<RevisionSummary>> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const page = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).find({ spaceId, sequence: { $gte: 0 } }, { sort: { sequence: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((revision) => this.presenter.revisionSummary(space, revision)), count: page.count, next: page.next });
  }
}

/** `GET /spaces/{spaceId}/revisions/{revisionId}/changes`: what a revision changed against its first parent (docs/content.md, Semantic changes). */
export class GetRevisionChanges extends Query<{ revision: string; parent: string | null; changes: SemanticChange[] }> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetRevisionChanges)
export class GetRevisionChangesHandler implements IQueryHandler<GetRevisionChanges> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: ContentAccess,
    private readonly trees: ContentTrees,
  ) {}

  async execute({ spaceId, revisionId, caller }: GetRevisionChanges): Promise<{ revision: string; parent: string | null; changes: SemanticChange[] }> {
    const { revision, tree } = await this.access.resolve(spaceId, caller, { revision: revisionId });
    const parentId = revision.parents[0];
    const parent = parentId === undefined ? null : await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(parentId);
    const before = parent ? await this.trees.tree(parent.tree) : null;
    return { revision: revision._id, parent: parent?._id ?? null, changes: diffTrees(before, tree) };
  }
}

/**
 * The head revision of the change request a path names (by id or number), 404 when the caller may
 * not see it: the revision a change request's content reads and writes name.
 */
export class GetChangeRequestHead extends Query<string> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestHead)
export class GetChangeRequestHeadHandler implements IQueryHandler<GetChangeRequestHead> {
  constructor(@Inject(CONTENT_CHANGE_REQUESTS) private readonly changeRequests: ContentChangeRequests) {}

  async execute({ spaceId, ref, caller }: GetChangeRequestHead): Promise<string> {
    return (await this.changeRequests.line(spaceId, ref, caller)).head.revisionId;
  }
}

// ---- links -------------------------------------------------------------------------------------

/** `GET /spaces/{spaceId}/links`: the links of the space's primary content. */
export class ListSpaceLinks extends Query<LinksEnvelope> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly status: LinkStatus | undefined,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListSpaceLinks)
export class ListSpaceLinksHandler implements IQueryHandler<ListSpaceLinks> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: ContentAccess,
  ) {}

  async execute({ spaceId, caller, status, paging }: ListSpaceLinks): Promise<LinksEnvelope> {
    const { space, revision } = await this.access.resolve(spaceId, caller);
    return listLinks(this.reads, this.config.publicUrl, space, revision, { spaceId }, status, paging);
  }
}

/** `GET /spaces/{spaceId}/content/page/{pageId}/links`: a page's outgoing links. With `revisionId` (a change request's head), the links are main's, judged and named in that revision. */
export class ListPageLinks extends Query<LinksEnvelope> {
  constructor(
    readonly spaceId: string,
    readonly pageId: string,
    readonly caller: Caller,
    readonly status: LinkStatus | undefined,
    readonly paging: Paging,
    readonly revisionId?: string,
  ) {
    super();
  }
}

@QueryHandler(ListPageLinks)
export class ListPageLinksHandler implements IQueryHandler<ListPageLinks> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: ContentAccess,
  ) {}

  async execute({ spaceId, pageId, caller, status, paging, revisionId }: ListPageLinks): Promise<LinksEnvelope> {
    const { space, revision, tree } = await this.access.resolve(spaceId, caller, revisionId === undefined ? {} : { revision: revisionId });
    if (!tree.page(pageId)) throw DomainError.notFound(`no page ${pageId} in space ${spaceId}`);
    return listLinks(this.reads, this.config.publicUrl, space, revision, { spaceId, sourcePage: pageId }, status, paging);
  }
}

/** `GET .../content/page/{pageId}/backlinks` and `.../content/files/{fileId}/backlinks`: pages of the primary content that link to a page or a file of it. */
export class ListBacklinks extends Query<ListEnvelope<ContentReference>> {
  constructor(
    readonly spaceId: string,
    readonly target: { page: string } | { file: string },
    readonly caller: Caller,
    readonly paging: Paging,
    readonly revisionId?: string,
  ) {
    super();
  }
}

@QueryHandler(ListBacklinks)
export class ListBacklinksHandler implements IQueryHandler<ListBacklinks> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: ContentAccess,
  ) {}

  async execute({ spaceId, target, caller, paging, revisionId }: ListBacklinks): Promise<ListEnvelope<ContentReference>> {
    const { space, revision, tree } = await this.access.resolve(spaceId, caller, revisionId === undefined ? {} : { revision: revisionId });
    const targetKey = 'page' in target ? `page:${target.page}` : `file:${target.file}`;
    if ('page' in target ? !tree.page(target.page) : !tree.file(target.file)) throw DomainError.notFound(`no ${'page' in target ? `page ${target.page}` : `file ${target.file}`} in space ${spaceId}`);
    const page = await this.reads.collection<LinkDoc>(CONTENT_LINKS).find({ spaceId, targetKey }, { sort: { sourcePage: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((link) => locationOf(space, revision, link)), count: page.count, next: page.next });
  }
}

async function listLinks(reads: ReadStore, publicUrl: string, space: ContentSpace, revision: RevisionDoc, scope: Filter, status: LinkStatus | undefined, paging: Paging): Promise<LinksEnvelope> {
  const links = reads.collection<LinkDoc>(CONTENT_LINKS);
  const inApp: Filter = { status: 'url', targetKey: { $gte: `url:${publicUrl}/`, $lt: `url:${publicUrl}0` } };
  const byStatus: Record<LinkStatus, Filter> = {
    broken: { status: 'broken' },
    'in-app': inApp,
    ok: { $or: [{ status: 'ok' }, { status: 'url', targetKey: { $lt: `url:${publicUrl}/` } }, { status: 'url', targetKey: { $gte: `url:${publicUrl}0` } }] },
  };
  const filter = status === undefined ? scope : { ...scope, ...byStatus[status] };
  const [page, total, broken] = await Promise.all([
    links.find(filter, { sort: { sourcePage: 1 }, limit: paging.limit, after: paging.page }),
    links.count(scope),
    links.count({ ...scope, status: 'broken' }),
  ]);
  const items = page.items.map((link): LinkItem => ({
    status: linkStatus(link, publicUrl),
    relation: 'link',
    targetReference: targetReference(space, revision, link.target),
    locationReferences: [locationOf(space, revision, link)],
  }));
  return { ...listEnvelope({ items, count: page.count, next: page.next }), stats: { total, broken: { total: broken, changeRequest: 0 } } };
}

function linkStatus(link: LinkDoc, publicUrl: string): LinkStatus {
  if (link.status !== 'url') return link.status;
  return link.target.kind === 'url' && link.target.url.startsWith(`${publicUrl}/`) ? 'in-app' : 'ok';
}

function locationOf(space: ContentSpace, revision: RevisionDoc, link: LinkDoc): ContentReference {
  return { kind: 'page', page: link.sourcePage, ...(link.key !== undefined ? { node: link.key } : {}), organization: space.organizationId, space: space.id, versionContext: { type: 'revision', revision: revision._id } };
}

function targetReference(space: ContentSpace, revision: RevisionDoc, target: ContentRef): LinkItem['targetReference'] {
  if (target.kind === 'page' || target.kind === 'file' || target.kind === 'anchor') {
    return { ...target, organization: space.organizationId, space: target.space ?? space.id, versionContext: { type: 'revision', revision: revision._id } } as ContentReference;
  }
  return target;
}

// ---- search ------------------------------------------------------------------------------------

/** `GET /spaces/{spaceId}/search`: pages of the space's primary content, best first. */
export class SearchSpace extends Query<ListEnvelope<SpaceSearchResult>> {
  constructor(
    readonly spaceId: string,
    readonly query: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(SearchSpace)
export class SearchSpaceHandler implements IQueryHandler<SearchSpace> {
  constructor(
    private readonly access: ContentAccess,
    private readonly search: ContentSearch,
  ) {}

  async execute({ spaceId, query, caller, paging }: SearchSpace): Promise<ListEnvelope<SpaceSearchResult>> {
    const resolved = await this.access.resolve(spaceId, caller);
    const hits = await this.search.hits(resolved, query);
    const { items, next } = pageOf(hits, paging, (hit) => String(hit.rank).padStart(8, '0'), /^\d{8}$/);
    return listEnvelope({ items: items.map((hit) => this.search.result(resolved, hit)), count: hits.length, next });
  }
}

/** `GET /orgs/{organizationId}/search`: pages of the spaces the caller may read, grouped by space. */
export class SearchOrganization extends Query<ListEnvelope<OrganizationSearchResult>> {
  constructor(
    readonly organizationId: string,
    readonly query: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(SearchOrganization)
export class SearchOrganizationHandler implements IQueryHandler<SearchOrganization> {
  constructor(
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly access: ContentAccess,
    private readonly search: ContentSearch,
  ) {}

  async execute({ organizationId, query, caller, paging }: SearchOrganization): Promise<ListEnvelope<OrganizationSearchResult>> {
    const readable = (await this.spaces.readableSpaces(organizationId, caller)).slice(0, ORGANIZATION_SEARCH_SPACES);
    const perSpace = await Promise.all(
      readable.map(async ({ id }) => {
        const space = await this.spaces.spaceFor(id, caller);
        const resolved = await this.access.resolveIn(space);
        return { id, title: space.title, resolved, hits: await this.search.hits(resolved, query) };
      }),
    );
    const ranked = mergeOrganizationHits(perSpace.filter((entry) => entry.hits.length > 0), Number.MAX_SAFE_INTEGER);
    const bySpace = new Map(perSpace.map((entry) => [entry.id, entry.resolved]));
    const all = ranked.map((entry): OrganizationSearchResult => ({ type: 'space', id: entry.id, title: entry.title, score: entry.score, pages: entry.hits.map((hit) => this.search.result(bySpace.get(entry.id)!, hit)) }));
    const { items, next } = pageOf(all, paging, (entry) => entry.id, ID_SHAPES.entity, false);
    return listEnvelope({ items, count: all.length, next });
  }
}

export const contentQueryHandlers = [
  GetContentHeadsHandler,
  GetPrimaryContentHandler,
  GetRevisionDocumentHandler,
  GetRevisionFileHandler,
  SearchRevisionHandler,
  GetRevisionHandler,
  GetRevisionPagesHandler,
  ListFilesHandler,
  GetFileHandler,
  GetPageHandler,
  GetPageByPathHandler,
  DownloadFileHandler,
  ListRevisionsHandler,
  GetRevisionChangesHandler,
  GetChangeRequestHeadHandler,
  ListSpaceLinksHandler,
  ListPageLinksHandler,
  ListBacklinksHandler,
  SearchSpaceHandler,
  SearchOrganizationHandler,
];

/** A page path as written in a URL: percent-escapes decoded (once), surrounding slashes dropped. */
export function normalizePagePath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw DomainError.invalid('pagePath is not a valid URL-encoded path');
  }
  return decoded.replace(/^\/+|\/+$/g, '');
}

/**
 * A page of an in-memory list in its own order: the cursor is the last item's key, which must have
 * the shape `keyShape` (a cursor that is not one of ours is 400, as the read store answers).
 */
export function pageOf<T>(all: readonly T[], paging: { page?: string; limit?: number }, keyOf: (item: T) => string, keyShape: RegExp, sorted = true): { items: T[]; next?: string } {
  const limit = paging.limit ?? 50;
  let start = 0;
  if (paging.page !== undefined) {
    const after = /^[A-Za-z0-9_-]{1,128}$/.test(paging.page) ? Buffer.from(paging.page, 'base64url').toString('utf8') : '';
    if (!keyShape.test(after) || Buffer.from(after).toString('base64url') !== paging.page) throw DomainError.invalid('page is not a cursor of this list');
    const index = sorted ? all.findIndex((item) => keyOf(item) > after) : all.findIndex((item) => keyOf(item) === after) + 1;
    start = index < 0 ? all.length : index;
  }
  const items = all.slice(start, start + limit);
  const more = start + limit < all.length;
  return { items, ...(more && items.length > 0 ? { next: Buffer.from(keyOf(items[items.length - 1])).toString('base64url') } : {}) };
}
