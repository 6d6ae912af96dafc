import { type Readable, Transform } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import { newId } from '#platform/ids';
import { Semaphore } from '#platform/semaphore';
import { UNTRUSTED_WORK, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import type { ContentSpace } from './content.needs';
import { ConversionBudget, pooledImportConversions } from './content-conversions';
import { batchRefs, MAX_INLINE_FILE_BYTES, type BatchRef, type Change, type FileUpload, type PageBody } from './content.changes';
import type { RevisionSource } from './content.events';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import { CARRY_KEYS, CONVERT_MARKDOWN } from './content.work';
import { parseDocument, withPageLinksFromRelativeHrefs, type MarkdownDocument } from '#document';
import type { DocumentNode } from '#document/document.model';
import { imageSizes } from '#document/packages';
import { contentTypeOf } from './import/content-types';
import { ImportFailure, runImport, type ImportPlan, type PlannedPage } from './import';
import { safeFetchInto } from './import/safe-fetch';
import type { RevisionTree } from './tree/revision-tree';
import { TreeEditor } from './tree/tree-editor';
import type { FileEntry } from './tree/tree.model';

/** Pages one zip import may create (its entries are capped at 5,000 by the importer). */
const ZIP_IMPORT_MAX_PAGES = 5000;

/** Largest file a batch names by URL. */
const MAX_URL_FILE_BYTES = 10 * MAX_INLINE_FILE_BYTES;
/** Files by URL downloaded at once in a process (each streams into the blob store). */
const URL_DOWNLOADS_AT_ONCE = 2;
/** Bytes of an uploaded file kept to read an image's width and height from (its header). */
const IMAGE_HEAD_BYTES = 512 * 1024;

export interface ChangeResult {
  object: 'created_page' | 'updated_page' | 'deleted_page';
  page: { id: string; title: string; path: string };
  ref?: string;
}

export type ImportSource = 'website' | 'markdown' | 'zip';

/**
 * A batch of changes made ready once, before any attempt at the write: the ids of what it names
 * by ref, its markdown bodies converted (on the untrusted-work pool), its files stored.
 */
export interface PreparedBatch {
  changes: readonly Change[];
  refs: ReadonlyMap<string, BatchRef>;
  bodies: ReadonlyMap<PageBody, MarkdownDocument>;
  files: ReadonlyMap<FileUpload, StoredFile>;
  /** The write's one conversion budget: converting its markdown, then carrying keys in each attempt. */
  budget: ConversionBudget;
}

/** A file's bytes in the blob store, and what they say. */
export type StoredFile = Pick<FileEntry, 'hash' | 'size' | 'dimensions'>;

/** An import fetched, converted and its files stored, before any attempt at the write. */
export interface PreparedImport extends Omit<ImportPlan, 'files'> {
  documents: ReadonlyMap<string, DocumentNode>;
  files: Array<Omit<FileEntry, 'createdAt'>>;
}

/** A tree built from a base, not yet committed to any line. */
export interface BuiltTree<T> {
  tree: string;
  touched: { created: string[]; updated: string[]; deleted: string[] };
  result: T;
}

/** How an import is recorded on the revision it makes. */
export function importSource(request: { source: ImportSource; url: string }): RevisionSource {
  return { kind: 'import', source: request.source, url: request.url };
}

/**
 * Builds new trees for the content writes, on any line (the space's main line, a change request's
 * line): a batch or an import is made ready once, before any attempt at the write (its markdown
 * converted on the untrusted-work pool, its files stored in the blob store, content-addressed, so an
 * abandoned attempt leaves only unreferenced blobs), then applied to a tree built from the line's
 * head in each attempt. Committing the tree is the handler's.
 */
@Injectable()
export class ContentBuilder {
  /** Files by URL being downloaded at once in this process, whatever the writes: many concurrent uploads queue rather than crowd the request thread with stream events. */
  private readonly downloads = new Semaphore(URL_DOWNLOADS_AT_ONCE);

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UNTRUSTED_WORK) private readonly work: UntrustedWork,
    private readonly trees: ContentTrees,
  ) {}

  /** A parsed batch made ready once, before any attempt (and after the access check): its markdown converted first, then its files stored. */
  async prepareBatch(changes: readonly Change[]): Promise<PreparedBatch> {
    const refs = batchRefs(changes, () => newId());
    const budget = new ConversionBudget(this.work, this.config.contentConversionTimeMs, 'this write');
    const bodies = await this.convertBodies(changes, refs, budget);
    return { changes, refs, bodies, files: await this.storeUploads(changes), budget };
  }

  /** An import fetched, converted (on the pool, within one conversion budget) and its files stored, before any attempt. */
  async prepareImport(request: { source: ImportSource; url: string }): Promise<PreparedImport> {
    const budget = new ConversionBudget(this.work, this.config.contentConversionTimeMs, 'this import');
    // An archive is one download whatever it holds, so it may bring more pages than a crawl visits.
    const limits = {
      maxFileBytes: this.config.contentUploadMaxBytes,
      ...(request.source === 'zip' ? { maxPages: ZIP_IMPORT_MAX_PAGES } : {}),
    };
    const { files, ...plan } = await runImport(request, {
      allowPrivateNetworks: this.config.importAllowPrivateNetworks,
      newId: () => newId(),
      conversions: pooledImportConversions(budget),
      limits,
    });
    const pages = allPages(plan.pages);
    const converted = await budget.run(CONVERT_MARKDOWN, { bodies: pages.map((page) => page.markdown), refs: [] });
    const documents = new Map(pages.map((page, index) => [page.id, converted[index].document]));
    const stored: PreparedImport['files'] = [];
    for (const file of files)
      stored.push({
        id: file.id,
        name: file.name,
        contentType: file.contentType,
        ...(await this.storeBytes(file.contentType, file.bytes)),
      });
    return { ...plan, documents, files: stored };
  }

  /** A new tree from `base` (blobs written, nothing committed): what `build` did to it, and which pages it touched. */
  async buildOn<T>(base: RevisionTree, build: (base: RevisionTree, editor: TreeEditor) => Promise<T>): Promise<BuiltTree<T>> {
    const editor = new TreeEditor(this.trees.store, base);
    const result = await build(base, editor);
    return { tree: (await editor.commit()).rootHash, touched: editor.touched(), result };
  }

  // ---- the batch ---------------------------------------------------------------------------

  /** The batch's markdown bodies as documents: converted together on the pool, within the write's one conversion budget. */
  private async convertBodies(
    changes: readonly Change[],
    refs: ReadonlyMap<string, BatchRef>,
    budget: ConversionBudget,
  ): Promise<Map<PageBody, MarkdownDocument>> {
    const bodies: Array<{ markdown: string }> = [];
    for (const change of changes) {
      if ((change.operation === 'insert_page' || change.operation === 'update_page') && change.body && 'markdown' in change.body)
        bodies.push(change.body);
    }
    if (bodies.length === 0) return new Map();
    const documents = await budget.run(CONVERT_MARKDOWN, { bodies: bodies.map((body) => body.markdown), refs: [...refs] });
    return new Map(bodies.map((body, index) => [body, documents[index]]));
  }

  /**
   * The batch's files in the blob store, one at a time: a file named by URL is streamed from its
   * download into the store, so at most one file's bytes pass through at once, and the files of
   * the batch together may not pass CONTENT_UPLOAD_MAX_BYTES (413, refused before any download
   * when the inline ones already do; blobs stored before the refusal are left unreferenced).
   */
  private async storeUploads(changes: readonly Change[]): Promise<Map<FileUpload, StoredFile>> {
    const files = changes.flatMap((change) => (change.operation === 'insert_files' ? change.files : []));
    const cap = this.config.contentUploadMaxBytes;
    const tooMuch = (file: FileUpload) =>
      new DomainError(413, `the files of this write are larger than ${cap} bytes together (passed at file ${file.name})`);
    let inline = 0;
    for (const file of files) {
      if (!('base64' in file.source)) continue;
      const size = base64Length(file.source.base64);
      if (size > MAX_INLINE_FILE_BYTES) throw new DomainError(413, `file ${file.name} is larger than ${MAX_INLINE_FILE_BYTES} bytes`);
      inline += size;
      if (inline > cap) throw tooMuch(file);
    }
    const stored = new Map<FileUpload, StoredFile>();
    let total = 0;
    for (const file of files) {
      const contentType = file.contentType ?? contentTypeOf(file.name);
      if ('base64' in file.source) {
        const bytes = Buffer.from(file.source.base64, 'base64');
        total += bytes.length;
        stored.set(file, await this.storeBytes(contentType, bytes));
        continue;
      }
      const maxBytes = Math.min(MAX_URL_FILE_BYTES, cap - total);
      let received: StoredFile;
      try {
        const { url } = file.source;
        received = (
          await this.downloads.run(() =>
            safeFetchInto(url, { allowPrivateNetworks: this.config.importAllowPrivateNetworks, maxBytes, timeMs: 15_000 }, (body) =>
              this.storeStream(contentType, body),
            ),
          )
        ).received;
      } catch (error) {
        if (error instanceof ImportFailure && error.status === 413)
          throw maxBytes < MAX_URL_FILE_BYTES
            ? tooMuch(file)
            : new DomainError(413, `file ${file.name} (${file.source.url}) is larger than ${MAX_URL_FILE_BYTES} bytes`);
        throw error;
      }
      total += received.size;
      stored.set(file, received);
    }
    return stored;
  }

  private async storeBytes(contentType: string, bytes: Buffer): Promise<StoredFile> {
    const { hash, size } = await this.trees.blobs.put(bytes);
    return { hash, size, ...dimensionsOf(contentType, bytes) };
  }

  /** A download streamed into the blob store; an image's header is kept on the way for its dimensions. */
  private async storeStream(contentType: string, body: Readable): Promise<StoredFile> {
    const head: Buffer[] = [];
    let headLength = 0;
    const keepHead = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (headLength < IMAGE_HEAD_BYTES && contentType.startsWith('image/')) {
          head.push(chunk.subarray(0, IMAGE_HEAD_BYTES - headLength));
          headLength += Math.min(chunk.length, IMAGE_HEAD_BYTES - headLength);
        }
        done(null, chunk);
      },
    });
    body.on('error', (error) => keepHead.destroy(error));
    body.pipe(keepHead);
    try {
      const { hash, size } = await this.trees.blobs.put(keepHead);
      return { hash, size, ...dimensionsOf(contentType, Buffer.concat(head, headLength)) };
    } catch (error) {
      // The download's own failure (too large, cut short, too slow) is the fetch's to name.
      throw body.errored ?? error;
    }
  }

  /**
   * Applies a batch to a tree being built, `now` the time its pages and files are stamped with.
   * `defaultRevert` is the revision a `revert_page` without `revision` goes back to: the state before
   * the last write on the main line, the request's base on a change request's line.
   */
  async applyChanges(
    space: ContentSpace,
    base: RevisionTree,
    editor: TreeEditor,
    { changes, refs, bodies, files, budget }: PreparedBatch,
    now: string,
    defaultRevert: () => Promise<string>,
  ): Promise<{ changes: ChangeResult[]; insertedFiles: FileEntry[] }> {
    // Refs name pages and files inserted by the batch; their ids were given up front, so any change may link to any of them.
    const pageOf = (name: string): string => {
      const ref = refs.get(name);
      return ref?.kind === 'page' ? ref.id : name;
    };
    const parentOf = (name: string | null | undefined) => (name === undefined ? undefined : name === null ? null : pageOf(name));
    const bodyOf = (body: PageBody) => this.bodyOf(body, bodies);
    const results: ChangeResult[] = [];
    const insertedFiles: FileEntry[] = [];
    // The latest body each page got from markdown in this batch (null once a later change replaced it otherwise).
    const markdownBodies = new Map<string, DocumentNode | null>();
    for (const change of changes) {
      switch (change.operation) {
        case 'insert_page': {
          const id = change.ref ? refs.get(change.ref)!.id : newId();
          const body = change.body ? bodyOf(change.body) : null;
          if (body && change.body && 'markdown' in change.body) markdownBodies.set(id, body.document);
          const title = change.attributes.title ?? body?.title ?? 'Untitled';
          const description =
            change.attributes.description ??
            (typeof body?.frontMatter?.description === 'string' ? body.frontMatter.description : undefined);
          const page = editor.insertPage({
            id,
            type: change.type,
            attributes: { ...change.attributes, title, ...(description !== undefined ? { description } : {}) },
            ...(change.type === 'document' ? { document: body?.document ?? { object: 'document', data: {}, nodes: [] } } : {}),
            into: parentOf(change.into),
            at: change.at,
            now,
          });
          results.push({ object: 'created_page', page, ...(change.ref ? { ref: change.ref } : {}) });
          break;
        }
        case 'update_page': {
          const id = pageOf(change.page);
          if (change.moves) editor.movePage(id, parentOf(change.into) ?? null, change.at, now);
          let document: DocumentNode | undefined;
          if (change.body) {
            const current = base.page(id);
            const previous = current?.document ? await this.trees.document(current.document) : null;
            document = bodyOf(change.body).document;
            // On the pool (a copy goes there, so the converted document serves every attempt), charged to the write's budget.
            if (previous) document = await budget.run(CARRY_KEYS, { previous, next: document });
            markdownBodies.set(id, 'markdown' in change.body ? document : null);
          }
          const page = editor.updatePage(id, { attributes: change.attributes, ...(document ? { document } : {}), now });
          results.push({ object: 'updated_page', page });
          break;
        }
        case 'delete_page': {
          const id = pageOf(change.page);
          const page = editor.summary(id);
          editor.deletePage(id);
          results.push({ object: 'deleted_page', page });
          break;
        }
        case 'revert_page': {
          const id = pageOf(change.page);
          const revisionId = change.revision ?? (await defaultRevert());
          const target = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
          if (!target || target.spaceId !== space.id) throw DomainError.notFound(`no revision ${revisionId} in space ${space.id}`);
          const page = editor.revertPage(id, await this.trees.tree(target.tree), now);
          markdownBodies.set(id, null);
          results.push({
            object: page ? 'updated_page' : 'deleted_page',
            page: page ?? { id, title: base.page(id)?.title ?? '', path: base.page(id)?.path ?? '' },
          });
          break;
        }
        case 'insert_files':
          for (const file of change.files) {
            const id = file.ref ? refs.get(file.ref)!.id : newId();
            const entry: FileEntry = {
              id,
              name: file.name,
              contentType: file.contentType ?? contentTypeOf(file.name),
              ...files.get(file)!,
              createdAt: now,
            };
            editor.insertFile(entry);
            insertedFiles.push(entry);
          }
          break;
        case 'update_variables':
          editor.setVariables(change.variables);
          break;
      }
    }
    // Relative links between markdown files (what a markdown read writes by default, `../guide.md`)
    // name the pages at those paths once the whole batch is in place, as a repository of files would.
    for (const [id, document] of markdownBodies) {
      if (document === null || !editor.has(id)) continue;
      const linked = withPageLinksFromRelativeHrefs(document, editor.location(id), (path) => editor.pageAt(path));
      if (linked) editor.updatePage(id, { document: linked, now });
    }
    return { changes: results, insertedFiles };
  }

  /** A page body as a document: markdown as converted on the pool (prepareBatch), a JSON document checked here. */
  private bodyOf(body: PageBody, converted: ReadonlyMap<PageBody, MarkdownDocument>): MarkdownDocument {
    if ('markdown' in body) return converted.get(body)!;
    return { document: parseDocument(body.document), title: null, frontMatter: null };
  }

  // ---- imports -----------------------------------------------------------------------------

  /** Applies an import to a tree being built: into the page `pageId` when given (404 when the base has none). */
  async applyImport(
    space: ContentSpace,
    base: RevisionTree,
    editor: TreeEditor,
    plan: PreparedImport,
    pageId: string | undefined,
    source: ImportSource,
    now: string,
  ): Promise<PreparedImport> {
    if (pageId !== undefined && !base.page(pageId)) throw DomainError.notFound(`no page ${pageId} in space ${space.id}`);
    this.placeImport(editor, plan, pageId, source === 'markdown', now);
    return plan;
  }

  private placeImport(editor: TreeEditor, plan: PreparedImport, pageId: string | undefined, replaceBody: boolean, now: string): void {
    for (const file of plan.files) editor.insertFile({ ...file, createdAt: now });
    const insert = (page: PlannedPage, into: string | null) => {
      editor.insertPage({
        id: page.id,
        type: 'document',
        attributes: { title: page.title || 'Untitled', ...(page.description ? { description: page.description } : {}) },
        document: plan.documents.get(page.id)!,
        into,
        now,
      });
      for (const child of page.pages) insert(child, page.id);
    };
    const [first, ...rest] = plan.pages;
    if (pageId !== undefined && replaceBody && first) {
      // A markdown file imported into a page becomes that page's body.
      editor.updatePage(pageId, { document: plan.documents.get(first.id)!, now });
      for (const child of first.pages) insert(child, pageId);
      for (const page of rest) insert(page, pageId);
      return;
    }
    for (const page of plan.pages) insert(page, pageId ?? null);
  }
}

/** A plan's pages, sub-pages included, in order. */
function allPages(pages: readonly PlannedPage[]): PlannedPage[] {
  return pages.flatMap((page) => [page, ...allPages(page.pages)]);
}

/** Bytes a base64 text decodes to, without decoding it. */
function base64Length(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** Width and height of an image file, when its bytes (or their first part, for a download) say so. */
function dimensionsOf(contentType: string, bytes: Buffer): { dimensions?: { width: number; height: number } } {
  if (!contentType.startsWith('image/')) return {};
  try {
    const { width, height } = imageSizes().imageSize(bytes);
    return width !== undefined && height !== undefined ? { dimensions: { width, height } } : {};
  } catch {
    return {};
  }
}
