import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { LRUCache } from 'lru-cache';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import { ID_SHAPES } from '../../platform/src/ids';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { CONTENT_CHANGE_REQUESTS, type ContentChangeRequests } from './content-changerequests.port';
import { CONTENT_OPENAPI, type ContentOpenapi } from './content-openapi.port';
import { CONTENT_SPACES, type ContentSpace, type ContentSpaces } from './content-spaces.port';
import { computedDocument, resolveOpenapiBlocks } from './content.openapi';
import { ContentPresenter, type FileObject, type PageBody, type PageObject, type RevisionObject, type RevisionSummary } from './content.presenter';
import { CONTENT_HEADS, CONTENT_LINKS, CONTENT_REVISIONS, type ContentHeadDoc, type LinkDoc, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import { documentSections, documentToMarkdown, evaluateDocument, withRelativePageLinks, type MarkdownRefs } from './document';
import type { ContentRef, DocumentNode } from './document/document.model';
import { mergeOrganizationHits, SearchIndexCache } from './search/search-indexes';
import type { PageHit, SearchablePage } from './search/space-search-index';
import { changedPages, diffTrees, type SemanticChange } from './tree/tree-diff';
import type { RevisionTree } from './tree/revision-tree';
import type { FileEntry, PageView } from './tree/tree.model';
import { byIds } from '../../platform/src/by-ids';
import { deepFreeze } from '../../platform/src/plain-object';
import { Semaphore } from '../../platform/src/semaphore';

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

export interface ResolvedContent {
  space: ContentSpace;
  revision: RevisionDoc;
  tree: RevisionTree;
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

export interface SpaceSearchResult extends Omit<PageHit, 'sections' | 'description'> {
  /** The page's description; '' when it has none (the platform requires the member). */
  description: string;
  /** Titles of the page's ancestors, from the top level down to its parent. */
  ancestors: Array<{ title: string }>;
  sections: Array<PageHit['sections'][number] & { urls: { app: string } }>;
  urls: { app: string };
}

export interface OrganizationSearchResult {
  type: 'space';
  id: string;
  title: string;
  score: number;
  pages: SpaceSearchResult[];
}

/** Markdown renderings kept, by body hash: a page read in markdown converts its body once. */
const RENDERED_MARKDOWN_BYTES = 32 * 1024 * 1024;
/** Bodies with their variables' values in place, by revision and page: the published site evaluates every page it serves. */
const EVALUATED_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** Spaces searched by one organization search, at most. */
const ORGANIZATION_SEARCH_SPACES = 200;
/** Bodies one read of a page tree loads at once. */
const BODY_READS_IN_FLIGHT = 16;

/**
 * The content reads: every read resolves the space (404 when the caller may not see it), then the
 * revision asked for (default: the head), then answers from the revision's tree (loaded once per
 * root hash) and, for bodies, the blob store's cache.
 */
@Injectable()
export class ContentQueries {
  private readonly markdown = new LRUCache<string, string>({ maxSize: RENDERED_MARKDOWN_BYTES, sizeCalculation: (text) => Math.max(1, text.length) });
  private readonly evaluatedDocuments = new LRUCache<string, { document: DocumentNode; bytes: number }>({ maxSize: EVALUATED_DOCUMENT_BYTES, sizeCalculation: (entry) => entry.bytes });
  private readonly search = new SearchIndexCache();

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CONTENT_OPENAPI) private readonly openapi: ContentOpenapi,
    private readonly trees: ContentTrees,
    private readonly presenter: ContentPresenter,
    private readonly moduleRef: ModuleRef,
  ) {}

  private changeRequestsPort?: ContentChangeRequests;

  /**
   * The change-requests port, looked up on first use rather than injected: that context reads
   * content through these queries (ContentForChangeRequests), so injecting it here would be a cycle.
   */
  private changeRequests(): ContentChangeRequests {
    return (this.changeRequestsPort ??= this.moduleRef.get<ContentChangeRequests>(CONTENT_CHANGE_REQUESTS, { strict: false }));
  }

  /** The space and the revision a read names: 404 for a revision of another space. */
  async resolve(spaceId: string, caller: Caller, options: Pick<ContentReadOptions, 'revision' | 'shareKey'> = {}): Promise<ResolvedContent> {
    const space = await this.spaces.spaceFor(spaceId, caller, options.shareKey);
    return this.resolveIn(space, options.revision);
  }

  async resolveIn(space: ContentSpace, revisionId?: string): Promise<ResolvedContent> {
    const revision = revisionId === undefined ? await this.headRevision(space.id) : await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!revision || revision.spaceId !== space.id) throw DomainError.notFound(`no revision ${revisionId ?? ''} in space ${space.id}`.replace('  ', ' '));
    return { space, revision, tree: await this.trees.tree(revision.tree) };
  }

  /**
   * A space's primary content without a caller check, for the published site (whose visibility
   * rules decide who reads it): null when the space does not exist, is deleted or has no content.
   */
  async primaryContent(spaceId: string): Promise<ResolvedContent | null> {
    const space = await this.spaces.spaceById(spaceId);
    if (!space || space.deleted) return null;
    const revision = await this.headRevision(spaceId);
    if (!revision) return null;
    return { space: { ...space, permissions: { view: true, edit: false, comment: false, admin: false } }, revision, tree: await this.trees.tree(revision.tree) };
  }

  /** A document page's body in a revision of the space, its expressions evaluated (no caller check: the published site); null when absent. */
  async revisionDocument(spaceId: string, revisionId: string, pageId: string): Promise<DocumentNode | null> {
    const tree = await this.revisionTree(spaceId, revisionId);
    const page = tree?.page(pageId);
    if (!tree || !page || page.type !== 'document') return null;
    // As the API reads a page by default: computed (a computed page generated, operation blocks resolved).
    const organizationId = (await this.spaces.spaceById(spaceId))?.organizationId;
    const generated = organizationId !== undefined && page.computed !== undefined ? await computedDocument(page.computed, organizationId, this.openapi) : null;
    if (generated) return generated;
    const evaluated = await this.evaluatedDocument(revisionId, tree, page);
    return organizationId === undefined ? evaluated : resolveOpenapiBlocks(evaluated, organizationId, this.openapi);
  }

  /**
   * A document page's stored body with its variables' values in place (not computed, operation
   * blocks not resolved: those follow the specs). A function of the revision's tree alone, which
   * never changes, so it is kept by revision and page, frozen since every reader shares it.
   */
  private async evaluatedDocument(revisionId: string, tree: RevisionTree, page: PageView): Promise<DocumentNode> {
    const key = `${revisionId}/${page.id}`;
    const kept = this.evaluatedDocuments.get(key);
    if (kept) return kept.document;
    const stored: DocumentNode = page.document === undefined ? { object: 'document', data: {}, nodes: [] } : await this.trees.document(page.document);
    const document = deepFreeze(evaluateDocument(stored, { space: tree.variables, page: page.variables ?? {} }));
    this.evaluatedDocuments.set(key, { document, bytes: JSON.stringify(document).length + key.length + 64 });
    return document;
  }

  /** A file of a revision of the space and its bytes (no caller check: the published site); null when absent. */
  async revisionFile(spaceId: string, revisionId: string, fileId: string): Promise<{ file: FileEntry; body: Readable } | null> {
    const file = (await this.revisionTree(spaceId, revisionId))?.file(fileId);
    return file ? { file, body: await this.blobs.get(file.hash) } : null;
  }

  /** Search in a revision of the space (no caller check: the published site); no hits when the revision is not the space's. */
  async searchRevision(spaceId: string, revisionId: string, query: string): Promise<PageHit[]> {
    const space = await this.spaces.spaceById(spaceId);
    const revision = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!space || !revision || revision.spaceId !== spaceId) return [];
    return this.hitsIn({ space: { ...space, permissions: { view: true, edit: false, comment: false, admin: false } }, revision, tree: await this.trees.tree(revision.tree) }, query);
  }

  private async revisionTree(spaceId: string, revisionId: string): Promise<RevisionTree | null> {
    const revision = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    return revision && revision.spaceId === spaceId ? this.trees.tree(revision.tree) : null;
  }

  private async headRevision(spaceId: string): Promise<RevisionDoc | null> {
    const head = await this.reads.collection<ContentHeadDoc>(CONTENT_HEADS).get(spaceId);
    return head ? this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(head.revisionId) : null;
  }

  /** The head revision ids of spaces (the Space object's `revision`). */
  async heads(spaceIds: readonly string[]): Promise<Map<string, string>> {
    const heads = await byIds(this.reads.collection<ContentHeadDoc>(CONTENT_HEADS), spaceIds);
    return new Map(heads.map((head) => [head._id, head.revisionId]));
  }

  async revision(spaceId: string, caller: Caller, options: ContentReadOptions): Promise<RevisionObject> {
    const resolved = await this.resolve(spaceId, caller, options);
    const { space, revision, tree } = resolved;
    const [pages, mergedFrom] = await Promise.all([
      this.pageTreeWithBodies(resolved, options),
      revision.mergedFrom === undefined ? undefined : this.changeRequests().presented(space.id, revision.mergedFrom, caller),
    ]);
    return this.presenter.revision(space, revision, tree, pages, mergedFrom);
  }

  async pages(spaceId: string, caller: Caller, options: ContentReadOptions): Promise<{ pages: PageObject[] }> {
    const resolved = await this.resolve(spaceId, caller, options);
    return { pages: await this.pageTreeWithBodies(resolved, options) };
  }

  /**
   * The page tree with every document page's body, as the platform's Page carries one (its schema
   * requires `document` or `markdown`): in the format asked for, with the same flags as a page read.
   */
  private async pageTreeWithBodies(resolved: ResolvedContent, options: ContentReadOptions, parentId: string | null = null): Promise<PageObject[]> {
    const { space, tree } = resolved;
    const documents = (parentId === null ? tree.pages() : tree.subtree(parentId).filter((page) => page.id !== parentId)).filter((page) => page.type === 'document');
    // A bounded number of bodies in flight: a large space must not open every blob at once.
    const gate = new Semaphore(BODY_READS_IN_FLIGHT);
    const bodies = new Map(await Promise.all(documents.map(async (page) => [page.id, await gate.run(() => this.bodyOf(resolved, page, options))] as const)));
    return this.presenter.pageTree(space, tree, parentId, bodies);
  }

  async files(spaceId: string, caller: Caller, options: ContentReadOptions, paging: { page?: string; limit?: number }): Promise<ListEnvelope<FileObject>> {
    const { space, revision, tree } = await this.resolve(spaceId, caller, options);
    const { items, next } = pageOf(tree.files(), paging, (file) => file.id, ID_SHAPES.entity);
    return listEnvelope({ items: items.map((file) => this.presenter.file(space, revision._id, file)), count: tree.files().length, next });
  }

  /** Files just written, as the write's answer shows them (from the entries: no read model involved). */
  presentFiles(space: ContentSpace, revisionId: string, files: readonly FileEntry[]): FileObject[] {
    return files.map((file) => this.presenter.file(space, revisionId, file));
  }

  async file(spaceId: string, fileId: string, caller: Caller, options: ContentReadOptions): Promise<FileObject> {
    const { space, revision, tree } = await this.resolve(spaceId, caller, options);
    const file = tree.file(fileId);
    if (!file) throw DomainError.notFound(`no file ${fileId} in revision ${revision._id}`);
    return this.presenter.file(space, revision._id, file);
  }

  /** A page, with the revision it was read in (its ETag). */
  async page(spaceId: string, pageId: string, caller: Caller, options: ContentReadOptions): Promise<Versioned<PageObject>> {
    const resolved = await this.resolve(spaceId, caller, options);
    const page = resolved.tree.page(pageId);
    if (!page) throw DomainError.notFound(`no page ${pageId} in revision ${resolved.revision._id}`);
    return { object: await this.withBody(resolved, page, options), revisionId: resolved.revision._id };
  }

  /** The page at a path of slugs, with the revision it was read in (its ETag). */
  async pageByPath(spaceId: string, path: string, caller: Caller, options: ContentReadOptions): Promise<Versioned<PageObject>> {
    const resolved = await this.resolve(spaceId, caller, options);
    const page = resolved.tree.pageByPath(normalizePagePath(path));
    if (!page) throw DomainError.notFound(`no page at path ${JSON.stringify(path.slice(0, 200))} in revision ${resolved.revision._id}`);
    return { object: await this.withBody(resolved, page, options), revisionId: resolved.revision._id };
  }

  private async withBody(resolved: ResolvedContent, page: PageView, options: ContentReadOptions): Promise<PageObject> {
    if (page.type === 'link') return this.presenter.page(resolved.space, page);
    const [children, body] = await Promise.all([this.pageTreeWithBodies(resolved, options, page.id), page.type === 'document' ? this.bodyOf(resolved, page, options) : undefined]);
    return this.presenter.page(resolved.space, page, children, body);
  }

  /** A document page's body in the format and with the flags a read asks for. */
  private async bodyOf({ space, revision, tree }: ResolvedContent, page: PageView, options: ContentReadOptions): Promise<PageBody> {
    const format = options.format ?? 'document';
    // A computed page read with `computed` shows the body generated from its spec's latest version;
    // without one (no such spec, no version yet) it shows its stored body like any page.
    const generated = page.computed !== undefined && options.computed !== false ? await computedDocument(page.computed, space.organizationId, this.openapi) : null;
    if (generated) return format === 'document' ? { document: generated } : { markdown: this.markdownOf(generated, space.id, tree, page, options) };
    const hash = page.document;
    const document: DocumentNode = options.evaluated
      ? await this.evaluatedDocument(revision._id, tree, page)
      : hash === undefined
        ? { object: 'document', data: {}, nodes: [] }
        : await this.trees.document(hash);
    if (format === 'document') return { document: options.computed === false ? document : await resolveOpenapiBlocks(document, space.organizationId, this.openapi) };
    // Stable markdown depends on the body alone; relative links also on where pages sit in this revision.
    const cacheKey = options.evaluated || hash === undefined ? undefined : options.markdownRefs === 'stable' ? hash : `${revision._id}/${page.id}/${hash}`;
    let markdown = cacheKey === undefined ? undefined : this.markdown.get(cacheKey);
    if (markdown === undefined) {
      markdown = this.markdownOf(document, space.id, tree, page, options);
      if (cacheKey !== undefined) this.markdown.set(cacheKey, markdown);
    }
    return { markdown };
  }

  private markdownOf(document: DocumentNode, spaceId: string, tree: RevisionTree, page: PageView, options: ContentReadOptions): string {
    if (options.markdownRefs === 'stable') return documentToMarkdown(document);
    return documentToMarkdown(withRelativePageLinks(document, page, (id) => tree.page(id), spaceId));
  }

  /** A file's bytes for its download URL: by signature (no token needed) or, failing that, by the caller's access. */
  async download(spaceId: string, fileId: string, revisionId: string, access: { caller?: Caller; expires?: number; signature?: string }): Promise<{ file: FileEntry; body: Readable }> {
    let revision: RevisionDoc | null = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    const missing = DomainError.notFound(`no file ${fileId} in space ${spaceId}`);
    if (!revision || revision.spaceId !== spaceId) throw missing;
    const signed = this.presenter.validDownload(spaceId, revisionId, fileId, access.expires, access.signature);
    if (!signed) {
      const space = await this.spaces.spaceById(spaceId);
      if (!space) throw missing;
      if (space.visibility !== 'public') {
        if (!access.caller) throw missing;
        ({ revision } = await this.resolve(spaceId, access.caller, { revision: revisionId }));
      }
    }
    const file = (await this.trees.tree(revision.tree)).file(fileId);
    if (!file) throw missing;
    return { file, body: await this.blobs.get(file.hash) };
  }

  async revisions(spaceId: string, caller: Caller, paging: { page?: string; limit?: number }): Promise<ListEnvelope<RevisionSummary>> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const page = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).find({ spaceId, sequence: { $gte: 0 } }, { sort: { sequence: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((revision) => this.presenter.revisionSummary(space, revision)), count: page.count, next: page.next });
  }

  /** What a revision changed against its first parent (docs/content.md, Semantic changes). */
  async changes(spaceId: string, revisionId: string, caller: Caller): Promise<{ revision: string; parent: string | null; changes: SemanticChange[] }> {
    const { revision, tree } = await this.resolve(spaceId, caller, { revision: revisionId });
    const parentId = revision.parents[0];
    const parent = parentId === undefined ? null : await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(parentId);
    const before = parent ? await this.trees.tree(parent.tree) : null;
    return { revision: revision._id, parent: parent?._id ?? null, changes: diffTrees(before, tree) };
  }

  // ---- links ------------------------------------------------------------------------------

  async spaceLinks(spaceId: string, caller: Caller, status: LinkStatus | undefined, paging: { page?: string; limit?: number }): Promise<LinksEnvelope> {
    const { space, revision } = await this.resolve(spaceId, caller);
    return this.links(space, revision, { spaceId }, status, paging);
  }

  /** A page's outgoing links. With `revision` (a change request's head), the links are main's, judged and named in that revision. */
  async pageLinks(spaceId: string, pageId: string, caller: Caller, status: LinkStatus | undefined, paging: { page?: string; limit?: number }, revisionId?: string): Promise<LinksEnvelope> {
    const { space, revision, tree } = await this.resolve(spaceId, caller, revisionId === undefined ? {} : { revision: revisionId });
    if (!tree.page(pageId)) throw DomainError.notFound(`no page ${pageId} in space ${spaceId}`);
    return this.links(space, revision, { spaceId, sourcePage: pageId }, status, paging);
  }

  /** Pages of the primary content that link to a page or a file of it. */
  async backlinks(spaceId: string, target: { page: string } | { file: string }, caller: Caller, paging: { page?: string; limit?: number }, revisionId?: string): Promise<ListEnvelope<ContentReference>> {
    const { space, revision, tree } = await this.resolve(spaceId, caller, revisionId === undefined ? {} : { revision: revisionId });
    const targetKey = 'page' in target ? `page:${target.page}` : `file:${target.file}`;
    if ('page' in target ? !tree.page(target.page) : !tree.file(target.file)) throw DomainError.notFound(`no ${'page' in target ? `page ${target.page}` : `file ${target.file}`} in space ${spaceId}`);
    const page = await this.reads.collection<LinkDoc>(CONTENT_LINKS).find({ spaceId, targetKey }, { sort: { sourcePage: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((link) => this.location(space, revision, link)), count: page.count, next: page.next });
  }

  private async links(space: ContentSpace, revision: RevisionDoc, scope: Filter, status: LinkStatus | undefined, paging: { page?: string; limit?: number }): Promise<LinksEnvelope> {
    const links = this.reads.collection<LinkDoc>(CONTENT_LINKS);
    const inApp: Filter = { status: 'url', targetKey: { $gte: `url:${this.config.publicUrl}/`, $lt: `url:${this.config.publicUrl}0` } };
    const byStatus: Record<LinkStatus, Filter> = {
      broken: { status: 'broken' },
      'in-app': inApp,
      ok: { $or: [{ status: 'ok' }, { status: 'url', targetKey: { $lt: `url:${this.config.publicUrl}/` } }, { status: 'url', targetKey: { $gte: `url:${this.config.publicUrl}0` } }] },
    };
    const filter = status === undefined ? scope : { ...scope, ...byStatus[status] };
    const [page, total, broken] = await Promise.all([
      links.find(filter, { sort: { sourcePage: 1 }, limit: paging.limit, after: paging.page }),
      links.count(scope),
      links.count({ ...scope, status: 'broken' }),
    ]);
    const items = page.items.map((link): LinkItem => ({
      status: this.statusOf(link),
      relation: 'link',
      targetReference: this.targetReference(space, revision, link.target),
      locationReferences: [this.location(space, revision, link)],
    }));
    return { ...listEnvelope({ items, count: page.count, next: page.next }), stats: { total, broken: { total: broken, changeRequest: 0 } } };
  }

  private statusOf(link: LinkDoc): LinkStatus {
    if (link.status !== 'url') return link.status;
    return link.target.kind === 'url' && link.target.url.startsWith(`${this.config.publicUrl}/`) ? 'in-app' : 'ok';
  }

  private location(space: ContentSpace, revision: RevisionDoc, link: LinkDoc): ContentReference {
    return { kind: 'page', page: link.sourcePage, ...(link.key !== undefined ? { node: link.key } : {}), organization: space.organizationId, space: space.id, versionContext: { type: 'revision', revision: revision._id } };
  }

  private targetReference(space: ContentSpace, revision: RevisionDoc, target: ContentRef): LinkItem['targetReference'] {
    if (target.kind === 'page' || target.kind === 'file' || target.kind === 'anchor') {
      return { ...target, organization: space.organizationId, space: target.space ?? space.id, versionContext: { type: 'revision', revision: revision._id } } as ContentReference;
    }
    return target;
  }

  // ---- search -----------------------------------------------------------------------------

  async searchSpace(spaceId: string, query: string, caller: Caller, paging: { page?: string; limit?: number }): Promise<ListEnvelope<SpaceSearchResult>> {
    const resolved = await this.resolve(spaceId, caller);
    const hits = await this.hitsIn(resolved, query);
    const { items, next } = pageOf(hits, paging, (hit) => String(hit.rank).padStart(8, '0'), /^\d{8}$/);
    return listEnvelope({ items: items.map((hit) => this.searchResult(resolved, hit)), count: hits.length, next });
  }

  async searchOrganization(organizationId: string, query: string, caller: Caller, paging: { page?: string; limit?: number }): Promise<ListEnvelope<OrganizationSearchResult>> {
    const readable = (await this.spaces.readableSpaces(organizationId, caller)).slice(0, ORGANIZATION_SEARCH_SPACES);
    const perSpace = await Promise.all(
      readable.map(async ({ id }) => {
        const space = await this.spaces.spaceFor(id, caller);
        const resolved = await this.resolveIn(space);
        return { id, title: space.title, resolved, hits: await this.hitsIn(resolved, query) };
      }),
    );
    const ranked = mergeOrganizationHits(perSpace.filter((entry) => entry.hits.length > 0), Number.MAX_SAFE_INTEGER);
    const bySpace = new Map(perSpace.map((entry) => [entry.id, entry.resolved]));
    const all = ranked.map((entry): OrganizationSearchResult => ({ type: 'space', id: entry.id, title: entry.title, score: entry.score, pages: entry.hits.map((hit) => this.searchResult(bySpace.get(entry.id)!, hit)) }));
    const { items, next } = pageOf(all, paging, (entry) => entry.id, ID_SHAPES.entity, false);
    return listEnvelope({ items, count: all.length, next });
  }

  /** A hit as the platform's SearchPageResult: with the page's description ('' for none) and ancestors from the searched revision's tree. */
  private searchResult({ space, tree }: ResolvedContent, hit: PageHit): SpaceSearchResult {
    const app = `${this.config.publicUrl}/s/${space.id}`;
    const ancestors: Array<{ title: string }> = [];
    for (let parentId = tree.parentId(hit.id) ?? null; parentId !== null; parentId = tree.parentId(parentId) ?? null) ancestors.unshift({ title: tree.page(parentId)?.title ?? '' });
    return {
      ...hit,
      description: hit.description ?? '',
      ancestors,
      sections: hit.sections.map((section) => ({ ...section, urls: { app: `${app}/${section.path}` } })),
      urls: { app: `${app}/${hit.path}` },
    };
  }

  /** The revision's index: derived from its parent's when that is cached (a few pages changed), else built from the tree. */
  private async hitsIn({ space, revision, tree }: ResolvedContent, query: string): Promise<PageHit[]> {
    const key = `${space.id}@${revision._id}`;
    const parent = revision.parents[0];
    if (parent !== undefined && !this.search.has(key) && this.search.has(`${space.id}@${parent}`)) {
      const parentDoc = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(parent);
      if (parentDoc) {
        const { upserts, removes } = changedPages(await this.trees.tree(parentDoc.tree), tree);
        const searchable = await Promise.all(upserts.filter((page) => page.type === 'document').map((page) => this.searchable(page)));
        const gone = [...removes, ...upserts.filter((page) => page.type !== 'document').map((page) => page.id)];
        this.search.derive(`${space.id}@${parent}`, key, { upserts: searchable, removes: gone });
      }
    }
    const index = await this.search.getOrBuild(key, async () => Promise.all(tree.pages().filter((page) => page.type === 'document').map((page) => this.searchable(page))));
    return index.search(query);
  }

  private async searchable(page: PageView): Promise<SearchablePage> {
    const sections = page.document === undefined ? [] : documentSections(await this.trees.document(page.document));
    return { id: page.id, title: page.title, path: page.path, ...(page.description !== undefined ? { description: page.description } : {}), noIndex: page.noIndex ?? false, sections };
  }
}

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
