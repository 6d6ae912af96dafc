import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { deepFreeze } from '#platform/plain-object';
import { Semaphore } from '#platform/semaphore';
import { CONTENT_OPENAPI, type ContentOpenapi } from './content.needs';
import type { ResolvedContent } from './content.access';
import { computedDocument, resolveOpenapiBlocks } from './content.openapi';
import { ContentPresenter, type PageBody, type PageObject } from './content.presenter';
import type { ContentReadOptions } from './content.reads';
import { ContentTrees } from './content.trees';
import { documentToMarkdown, evaluateDocument, withRelativePageLinks } from '#document';
import type { DocumentNode } from '#document/document.model';
import type { RevisionTree } from './tree/revision-tree';
import type { PageView } from './tree/tree.model';

/** Markdown renderings kept, by body hash: a page read in markdown converts its body once. */
const RENDERED_MARKDOWN_BYTES = 32 * 1024 * 1024;
/** Bodies with their variables' values in place, by revision and page: the published site evaluates every page it serves. */
const EVALUATED_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** Bodies one read of a page tree loads at once. */
const BODY_READS_IN_FLIGHT = 16;

/**
 * Pages with their bodies, as every content read that shows bodies answers them (a revision, its
 * page tree, a page): in the format and with the flags the read asks for, from the blob store's
 * cache, with the process's renderings (markdown, evaluated bodies) kept for every read.
 */
@Injectable()
export class ContentBodies {
  private readonly markdown = new LRUCache<string, string>({
    maxSize: RENDERED_MARKDOWN_BYTES,
    sizeCalculation: (text) => Math.max(1, text.length),
  });
  private readonly evaluatedDocuments = new LRUCache<string, { document: DocumentNode; bytes: number }>({
    maxSize: EVALUATED_DOCUMENT_BYTES,
    sizeCalculation: (entry) => entry.bytes,
  });

  constructor(
    @Inject(CONTENT_OPENAPI) private readonly openapi: ContentOpenapi,
    private readonly trees: ContentTrees,
    private readonly presenter: ContentPresenter,
  ) {}

  /**
   * The page tree with every document page's body, as the platform's Page carries one (its schema
   * requires `document` or `markdown`): in the format asked for, with the same flags as a page read.
   */
  async pageTree(resolved: ResolvedContent, options: ContentReadOptions, parentId: string | null = null): Promise<PageObject[]> {
    const { space, tree } = resolved;
    const documents = (parentId === null ? tree.pages() : tree.subtree(parentId).filter((page) => page.id !== parentId)).filter(
      (page) => page.type === 'document',
    );
    // A bounded number of bodies in flight: a large space must not open every blob at once.
    const gate = new Semaphore(BODY_READS_IN_FLIGHT);
    const bodies = new Map(
      await Promise.all(documents.map(async (page) => [page.id, await gate.run(() => this.bodyOf(resolved, page, options))] as const)),
    );
    return this.presenter.pageTree(space, tree, parentId, bodies);
  }

  /** A page with its sub-pages and, for a document page, its body. */
  async page(resolved: ResolvedContent, page: PageView, options: ContentReadOptions): Promise<PageObject> {
    if (page.type === 'link') return this.presenter.page(resolved.space, page);
    const [children, body] = await Promise.all([
      this.pageTree(resolved, options, page.id),
      page.type === 'document' ? this.bodyOf(resolved, page, options) : undefined,
    ]);
    return this.presenter.page(resolved.space, page, children, body);
  }

  /**
   * A document page's stored body with its variables' values in place (not computed, operation
   * blocks not resolved: those follow the specs). A function of the revision's tree alone, which
   * never changes, so it is kept by revision and page, frozen since every reader shares it.
   */
  async evaluatedDocument(revisionId: string, tree: RevisionTree, page: PageView): Promise<DocumentNode> {
    const key = `${revisionId}/${page.id}`;
    const kept = this.evaluatedDocuments.get(key);
    if (kept) return kept.document;
    const stored: DocumentNode =
      page.document === undefined ? { object: 'document', data: {}, nodes: [] } : await this.trees.document(page.document);
    const document = deepFreeze(evaluateDocument(stored, { space: tree.variables, page: page.variables ?? {} }));
    this.evaluatedDocuments.set(key, { document, bytes: JSON.stringify(document).length + key.length + 64 });
    return document;
  }

  /** A document page's body in the format and with the flags a read asks for. */
  private async bodyOf({ space, revision, tree }: ResolvedContent, page: PageView, options: ContentReadOptions): Promise<PageBody> {
    const format = options.format ?? 'document';
    // A computed page read with `computed` shows the body generated from its spec's latest version;
    // without one (no such spec, no version yet) it shows its stored body like any page.
    const generated =
      page.computed !== undefined && options.computed !== false
        ? await computedDocument(page.computed, space.organizationId, this.openapi)
        : null;
    if (generated)
      return format === 'document' ? { document: generated } : { markdown: this.markdownOf(generated, space.id, tree, page, options) };
    const hash = page.document;
    const document: DocumentNode = options.evaluated
      ? await this.evaluatedDocument(revision._id, tree, page)
      : hash === undefined
        ? { object: 'document', data: {}, nodes: [] }
        : await this.trees.document(hash);
    if (format === 'document')
      return { document: options.computed === false ? document : await resolveOpenapiBlocks(document, space.organizationId, this.openapi) };
    // Stable markdown depends on the body alone; relative links also on where pages sit in this revision.
    const cacheKey =
      options.evaluated || hash === undefined ? undefined : options.markdownRefs === 'stable' ? hash : `${revision._id}/${page.id}/${hash}`;
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
}
