import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import { deepFreeze } from '#platform/plain-object';
import type { Caller } from '#platform/http/auth';
import { UNTRUSTED_WORK, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { ContentPdfs } from './content-pdfs';
import { CONVERT_COMMENT_BODY } from './content.work';
import { MERGE_BODIES } from '#document/document-merge.work';
import type { ContentSpace } from './content.needs';
import {
  BuildChangeRequestRevision,
  GetEditableSpace,
  PrepareChangeRequestBatch,
  PrepareChangeRequestImport,
  PresentChangeRequestBatch,
  type BuiltChangeRequestWrite,
  type ChangeRequestWrite,
} from './change-request-content.commands';
import type { ImportSource } from './content.builder';
import { CommitMerge, GetMainHead } from './content.commands';
import { readOptions, type ContentReadQuery } from './content.dto';
import { initialRevisionId } from './content.decider';
import { touchedPages, type TouchedPages } from './content.events';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { GetFile, GetRevisionFile, ListFiles } from './file.queries';
import { ListBacklinks, ListPageLinks, type LinkStatus } from './link.queries';
import type { ContentReadOptions, Paging } from './content.reads';
import {
  GetContentHeads,
  GetPage,
  GetPageByPath,
  GetPrimaryContent,
  GetRevision,
  GetRevisionDocument,
  GetRevisionPages,
} from './revision.queries';
import { SearchRevision } from './search.queries';
import { ContentTrees } from './content.trees';
import { blockPreview, documentToMarkdown } from '#document';
import type { DocumentNode } from '#document/document.model';
import { fingerprint, walkBlocks } from '#document/document.nodes';
import type { RevisionTree } from './tree/revision-tree';
import { changedPages, diffTrees, type SemanticChange } from './tree/tree-diff';
import { mergeTrees } from './tree/tree-merge';

/** Implements spaces' SPACE_FACT_SOURCES port: the Space object's `revision` (its primary content). */
@Injectable()
export class ContentForSpaces {
  constructor(private readonly queryBus: QueryBus) {}

  async factsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, { revision: string }>> {
    const heads = await this.queryBus.execute(new GetContentHeads(spaceIds));
    return new Map([...heads].map(([spaceId, revision]) => [spaceId, { revision }]));
  }
}

/**
 * Implements change requests' CHANGE_REQUEST_CONTENT port: main's head, the three-way merge of
 * revision trees, a merge committed to main, the changes between two revisions and a PDF of one;
 * and for the request's content routes, the reads of its head revision and the writes built on its line.
 */
@Injectable()
export class ContentForChangeRequests {
  private readonly pdfs: ContentPdfs;

  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly trees: ContentTrees,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(UNTRUSTED_WORK) private readonly work: UntrustedWork,
  ) {
    this.pdfs = new ContentPdfs(reads, trees, work);
  }

  mainHead(spaceId: string): Promise<{ revisionId: string; tree: string }> {
    return this.queryBus.execute(new GetMainHead(spaceId));
  }

  heads(spaceIds: readonly string[]): Promise<ReadonlyMap<string, string>> {
    return this.queryBus.execute(new GetContentHeads(spaceIds));
  }

  async merge(sides: { ancestor: string; ours: string; theirs: string }, onto: string) {
    const [ancestor, ours, theirs, base] = await Promise.all([
      this.trees.tree(sides.ancestor),
      this.trees.tree(sides.ours),
      this.trees.tree(sides.theirs),
      this.trees.tree(onto),
    ]);
    const outcome = await mergeTrees(this.trees.store, { ancestor, ours, theirs }, (triples) => this.work.run(MERGE_BODIES, { triples }));
    if (!outcome.ok) return outcome;
    const merged = await this.trees.tree(outcome.rootHash);
    const { upserts, removes } = changedPages(base, merged);
    const created = upserts.filter((page) => !base.page(page.id)).map((page) => page.id);
    const updated = upserts.filter((page) => base.page(page.id)).map((page) => page.id);
    return { ok: true as const, tree: outcome.rootHash, touched: touchedPages({ created, updated, deleted: removes }) };
  }

  commitMerge(
    space: ContentSpace,
    merge: { base: string; tree: string; touched: TouchedPages; changeRequestHead: string; changeRequestId: string },
    caller: Caller,
  ) {
    return this.commandBus.execute(new CommitMerge(space, merge, caller));
  }

  async changes(spaceId: string, from: string, to: string): Promise<SemanticChange[]> {
    const [before, after] = await Promise.all([this.revisionTree(spaceId, from), this.revisionTree(spaceId, to)]);
    return diffTrees(before, after);
  }

  /** Rendered on the untrusted-work pool once per revision and options, then served as stored (content-pdfs.ts). */
  pdf(spaceId: string, revisionId: string, options: { page?: string; only?: boolean; title: string }): Promise<Buffer> {
    return this.pdfs.pdf(spaceId, revisionId, options);
  }

  // ---- a request's content: the space's reads in the request's head revision -------------------

  revision(spaceId: string, revisionId: string, caller: Caller, flags: ContentReadQuery) {
    return this.queryBus.execute(new GetRevision(spaceId, caller, inRevision(flags, revisionId)));
  }

  pages(spaceId: string, revisionId: string, caller: Caller, flags: ContentReadQuery) {
    return this.queryBus.execute(new GetRevisionPages(spaceId, caller, inRevision(flags, revisionId)));
  }

  files(spaceId: string, revisionId: string, caller: Caller, flags: ContentReadQuery, paging: Paging) {
    return this.queryBus.execute(new ListFiles(spaceId, caller, inRevision(flags, revisionId), paging));
  }

  file(spaceId: string, revisionId: string, fileId: string, caller: Caller, flags: ContentReadQuery) {
    return this.queryBus.execute(new GetFile(spaceId, fileId, caller, inRevision(flags, revisionId)));
  }

  page(spaceId: string, revisionId: string, pageId: string, caller: Caller, flags: ContentReadQuery) {
    return this.queryBus.execute(new GetPage(spaceId, pageId, caller, inRevision(flags, revisionId)));
  }

  pageByPath(spaceId: string, revisionId: string, path: string, caller: Caller, flags: ContentReadQuery) {
    return this.queryBus.execute(new GetPageByPath(spaceId, path, caller, inRevision(flags, revisionId)));
  }

  pageLinks(spaceId: string, revisionId: string, pageId: string, caller: Caller, status: LinkStatus | undefined, paging: Paging) {
    return this.queryBus.execute(new ListPageLinks(spaceId, pageId, caller, status, paging, revisionId));
  }

  backlinks(spaceId: string, revisionId: string, target: { page: string } | { file: string }, caller: Caller, paging: Paging) {
    return this.queryBus.execute(new ListBacklinks(spaceId, target, caller, paging, revisionId));
  }

  // ---- a request's content: writes made ready once, built on its line's head in each attempt --------

  prepareBatch(spaceId: string, changes: unknown, caller: Caller): Promise<ChangeRequestWrite> {
    return this.commandBus.execute(new PrepareChangeRequestBatch(spaceId, changes, caller));
  }

  editableSpace(spaceId: string, caller: Caller): Promise<ContentSpace> {
    return this.queryBus.execute(new GetEditableSpace(spaceId, caller));
  }

  prepareImport(space: ContentSpace, request: { source: ImportSource; url: string }, pageId: string | undefined) {
    return this.commandBus.execute(new PrepareChangeRequestImport(space, request, pageId));
  }

  buildOn(write: ChangeRequestWrite, head: { tree: string }, baseRevisionId: string): Promise<BuiltChangeRequestWrite> {
    return this.commandBus.execute(new BuildChangeRequestRevision(write, head, baseRevisionId));
  }

  presentBatch(write: ChangeRequestWrite, revisionId: string, built: BuiltChangeRequestWrite) {
    return this.queryBus.execute(new PresentChangeRequestBatch(write, revisionId, built));
  }

  private async revisionTree(spaceId: string, revisionId: string): Promise<RevisionTree> {
    const revision = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!revision || revision.spaceId !== spaceId) throw DomainError.notFound(`no revision ${revisionId} in space ${spaceId}`);
    return this.trees.tree(revision.tree);
  }
}

/** A request's content is read in its head revision, whatever `revision` the route was given. */
function inRevision(flags: ContentReadQuery, revisionId: string): ContentReadOptions {
  return { ...readOptions(flags), revision: revisionId };
}

/** Comment bodies whose JSON is longer than this are rendered for each read rather than kept. */
const MAX_CACHED_BODY = 64 * 1024;

/**
 * Implements comments' COMMENT_CONTENT port: bodies through content's converter, and the pages and
 * blocks comments point at (a block's fingerprint is a hash of its content without keys, so a
 * comment knows when the block it commented on has changed).
 */
@Injectable()
export class ContentForComments {
  /** Comment bodies' markdown by the body's JSON. */
  private readonly rendered = new LRUCache<string, string>({
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (markdown, key) => key.length + markdown.length + 64,
  });
  /** The same, by the body object itself when it is frozen (a stored comment's, whose parts the read store froze first). */
  private readonly renderedBodies = new LRUCache<DocumentNode, string>({
    max: 20_000,
    maxSize: 8 * 1024 * 1024,
    sizeCalculation: (markdown) => markdown.length + 64,
  });

  constructor(
    private readonly queryBus: QueryBus,
    private readonly trees: ContentTrees,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(UNTRUSTED_WORK) private readonly work: UntrustedWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A body as its document and its markdown, both made in the untrusted-work pool within the
   * conversion budget (a nested list of 16 KiB costs most of a second to convert and to render
   * back): comments store the markdown, so reads serve it without rendering.
   */
  document(body: { markdown: string } | { document: unknown }): Promise<{ document: DocumentNode; markdown: string }> {
    return this.work.run(CONVERT_COMMENT_BODY, body, { timeMs: this.config.contentConversionTimeMs });
  }

  /**
   * A comment body as markdown, for bodies stored before comments kept their markdown. Lists show
   * every comment's body on every read, and bodies rarely change, so the markdown of each body (by
   * its JSON) is kept in a bounded cache.
   */
  markdown(document: DocumentNode): string {
    // A stored body is one unchanging object per version of its comment (the embedded read store
    // hands the same deep-frozen object to every read): its markdown is found without its JSON.
    const known = Object.isFrozen(document) ? this.renderedBodies.get(document) : undefined;
    if (known !== undefined) return known;
    const key = JSON.stringify(document);
    if (key.length > MAX_CACHED_BODY) return documentToMarkdown(document);
    let markdown = this.rendered.get(key);
    if (markdown === undefined) this.rendered.set(key, (markdown = documentToMarkdown(document)));
    if (Object.isFrozen(document)) this.renderedBodies.set(document, markdown);
    return markdown;
  }

  async head(spaceId: string): Promise<string> {
    return (await this.queryBus.execute(new GetContentHeads([spaceId]))).get(spaceId) ?? initialRevisionId(spaceId);
  }

  async target(spaceId: string, revisionId: string, pageId: string, nodeKey?: string) {
    const [found] = await this.current(spaceId, revisionId, [{ pageId, ...(nodeKey !== undefined ? { nodeKey } : {}) }], true);
    if (!found.page) return null;
    return {
      page: found.page,
      node: found.fingerprint !== null && found.preview !== null ? { preview: found.preview, fingerprint: found.fingerprint } : null,
    };
  }

  async current(spaceId: string, revisionId: string, targets: ReadonlyArray<{ pageId: string; nodeKey?: string }>, withPreview = false) {
    const revision = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!revision || revision.spaceId !== spaceId) throw DomainError.notFound(`no revision ${revisionId} in space ${spaceId}`);
    const tree = await this.trees.tree(revision.tree);
    return Promise.all(
      targets.map(async ({ pageId, nodeKey }) => {
        const page = tree.page(pageId);
        if (!page) return { page: null, fingerprint: null, preview: null };
        // Member by member: a literal with conditional spreads takes V8's slow path on Node 20 (comment lists present fifty of these).
        const summary: { id: string; title: string; emoji?: string; icon?: string; createdAt: string; updatedAt: string; path: string } = {
          id: page.id,
          title: page.title,
        } as never;
        if (page.emoji !== undefined) summary.emoji = page.emoji;
        if (page.icon !== undefined) summary.icon = page.icon;
        summary.createdAt = page.createdAt;
        summary.updatedAt = page.updatedAt;
        summary.path = page.path;
        if (nodeKey === undefined || page.document === undefined) return { page: summary, fingerprint: null, preview: null };
        const document = await this.trees.document(page.document);
        for (const { block } of walkBlocks(document)) {
          if (block.key !== nodeKey) continue;
          const digest = createHash('sha256').update(fingerprint(block)).digest('base64url');
          return { page: summary, fingerprint: digest, preview: withPreview ? blockPreview(document, nodeKey) : null };
        }
        return { page: summary, fingerprint: null, preview: null };
      }),
    );
  }
}

/** A revision's pages and files as the published site reads them (`ContentForSites.content`). */
function siteContentOf(spaceId: string, revisionId: string, tree: RevisionTree) {
  const pages = tree.pages().map((page) => ({
    id: page.id,
    type: page.type,
    title: page.title,
    path: page.path,
    parentId: page.parentId,
    depth: page.depth,
    ...(page.emoji !== undefined ? { emoji: page.emoji } : {}),
    ...(page.description !== undefined ? { description: page.description } : {}),
    ...(page.hidden !== undefined ? { hidden: page.hidden } : {}),
    ...(page.noIndex !== undefined ? { noIndex: page.noIndex } : {}),
    ...(page.noRobotsIndex !== undefined ? { noRobotsIndex: page.noRobotsIndex } : {}),
    ...(page.condition !== undefined ? { condition: page.condition } : {}),
    ...(page.target !== undefined ? { target: page.target as unknown as Record<string, unknown> & { kind: string } } : {}),
    ...(page.href !== undefined ? { href: page.href } : {}),
  }));
  const files = tree.files().map((file) => ({ id: file.id, name: file.name, contentType: file.contentType, size: file.size }));
  return { spaceId, revisionId, pages, files };
}
type SiteContentOfRevision = ReturnType<typeof siteContentOf>;

/**
 * Implements sites' SITE_CONTENT port: a space's primary content (revision, pages, files), a page's
 * body, a file's bytes and search, for the published HTML site (whose visibility rules decide who
 * reads; none of these checks a caller).
 */
@Injectable()
export class ContentForSites {
  constructor(private readonly queryBus: QueryBus) {}

  /**
   * Each revision's pages and files as the site reads them, by revision id (a revision never
   * changes): a published page's request would otherwise build a view of every page of the space,
   * so its cost grew with the space. Bounded by the pages and files held.
   */
  private readonly byRevision = new LRUCache<string, SiteContentOfRevision>({
    maxSize: 100_000,
    sizeCalculation: (content) => content.pages.length + content.files.length + 1,
  });

  async content(spaceId: string): Promise<SiteContentOfRevision | null> {
    const resolved = await this.queryBus.execute(new GetPrimaryContent(spaceId));
    if (!resolved) return null;
    const key = `${spaceId} ${resolved.revision._id}`;
    let content = this.byRevision.get(key);
    if (content === undefined) {
      content = deepFreeze(siteContentOf(spaceId, resolved.revision._id, resolved.tree));
      this.byRevision.set(key, content);
    }
    return content;
  }

  document(spaceId: string, revisionId: string, pageId: string) {
    return this.queryBus.execute(new GetRevisionDocument(spaceId, revisionId, pageId));
  }

  async file(spaceId: string, revisionId: string, fileId: string) {
    const found = await this.queryBus.execute(new GetRevisionFile(spaceId, revisionId, fileId));
    return found
      ? { file: { id: found.file.id, name: found.file.name, contentType: found.file.contentType, size: found.file.size }, body: found.body }
      : null;
  }

  search(spaceId: string, revisionId: string, query: string) {
    return this.queryBus.execute(new SearchRevision(spaceId, revisionId, query));
  }
}
