import { type Readable, Transform } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { UNTRUSTED_WORK, type UntrustedWork } from '../../platform/src/untrusted-work/untrusted-work';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { CONTENT_SPACES, type ContentSpace, type ContentSpaces } from './content-spaces.port';
import { ConversionBudget, pooledImportConversions } from './content-conversions';
import { batchRefs, parseChanges, MAX_INLINE_FILE_BYTES, type BatchRef, type Change, type FileUpload, type PageBody } from './content.changes';
import { contentDecider, contentStream, initialRevisionId, refuseStaleHead, refuseWrite, StaleBaseError, type ContentSpaceFacts } from './content.decider';
import { touchedPages, type ContentDependency, type RevisionSource, type RevisionType, type TouchedPages } from './content.events';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import { CARRY_KEYS, CONVERT_MARKDOWN } from './content.work';
import { parseDocument, withPageLinksFromRelativeHrefs, type MarkdownDocument } from './document';
import type { DocumentNode } from './document/document.model';
import { imageSizes } from './document/packages';
import { contentTypeOf } from './import/content-types';
import { ImportFailure, runImport, type ImportPlan, type PlannedPage } from './import';
import { safeFetchInto } from './import/safe-fetch';
import { Semaphore } from '../../platform/src/semaphore';
import type { RevisionTree } from './tree/revision-tree';
import { TreeEditor } from './tree/tree-editor';
import { EMPTY_TREE_ROOT } from './tree/tree-store';
import type { FileEntry } from './tree/tree.model';

/** Pages one zip import may create (its entries are capped at 5,000 by the importer). */
const ZIP_IMPORT_MAX_PAGES = 5000;

/** Attempts at a write whose base moved meanwhile (another write landed first) before giving up with 409. */
const WRITE_ATTEMPTS = 5;

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

export interface WriteOutcome<T> {
  /** The new revision, or the head when the write changed nothing. */
  revisionId: string;
  created: boolean;
  result: T;
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
 * The content writes: each builds a new tree from the head (blobs written first, content-addressed,
 * so an abandoned attempt leaves only unreferenced blobs), then commits it as one revision on the
 * space's stream. If another write landed meanwhile the build starts again on the new head, unless
 * the client pinned the head with `If-Match` (412 then).
 */
@Injectable()
export class ContentCommands {
  /** Files by URL being downloaded at once in this process, whatever the writes: many concurrent uploads queue rather than crowd the request thread with stream events. */
  private readonly downloads = new Semaphore(URL_DOWNLOADS_AT_ONCE);

  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UNTRUSTED_WORK) private readonly work: UntrustedWork,
    private readonly trees: ContentTrees,
  ) {}

  /** `POST /spaces/{spaceId}/content`: the batch of changes, all or nothing. */
  async write(spaceId: string, rawChanges: unknown, caller: Caller, ifMatch?: string) {
    const changes = parseChanges(rawChanges);
    const space = await this.writableSpace(spaceId, caller);
    const batch = await this.prepareBatch(changes);
    const outcome = await this.commit(space, caller, ifMatch, { revisionType: 'edits', source: { kind: 'batch' } }, (base, editor) => this.applyChanges(space, base, editor, batch, () => this.parentRevisionOf(space.id, base)));
    return { ...outcome, space };
  }

  /**
   * `POST /spaces/{spaceId}/content/import` and `.../content/page/{pageId}/import`. A stale
   * `If-Match` is refused after the access check and before anything is fetched: a 412 costs no
   * download, and a source the import would refuse does not hide that the client's view is stale.
   */
  async import(spaceId: string, request: { source: ImportSource; url: string }, caller: Caller, pageId?: string, ifMatch?: string) {
    const space = await this.writableSpace(spaceId, caller);
    const stale = refuseStaleHead(spaceId, ifMatch, (await this.mainHead(spaceId)).revisionId);
    if (stale) throw stale;
    const plan = await this.prepareImport(request);
    const outcome = await this.commit(space, caller, ifMatch, { revisionType: 'edits', source: importSource(request) }, (base, editor) => this.applyImport(space, base, editor, plan, pageId, request.source));
    return { revision: outcome.revisionId, importedResources: plan.importedResources, totalResources: plan.totalResources };
  }

  // ---- building a tree, for any line (the space's main line here, a change request's line in ChangeRequestContentCommands)

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
    const limits = { maxFileBytes: this.config.contentUploadMaxBytes, ...(request.source === 'zip' ? { maxPages: ZIP_IMPORT_MAX_PAGES } : {}) };
    const { files, ...plan } = await runImport(request, { allowPrivateNetworks: this.config.importAllowPrivateNetworks, newId: () => newId(), conversions: pooledImportConversions(budget), limits });
    const pages = allPages(plan.pages);
    const converted = await budget.run(CONVERT_MARKDOWN, { bodies: pages.map((page) => page.markdown), refs: [] });
    const documents = new Map(pages.map((page, index) => [page.id, converted[index].document]));
    const stored: PreparedImport['files'] = [];
    for (const file of files) stored.push({ id: file.id, name: file.name, contentType: file.contentType, ...(await this.storeBytes(file.contentType, file.bytes)) });
    return { ...plan, documents, files: stored };
  }

  /** A new tree from `base` (blobs written, nothing committed): what `build` did to it, and which pages it touched. */
  async buildOn<T>(base: RevisionTree, build: (base: RevisionTree, editor: TreeEditor) => Promise<T>): Promise<BuiltTree<T>> {
    const editor = new TreeEditor(this.trees.store, base);
    const result = await build(base, editor);
    return { tree: (await editor.commit()).rootHash, touched: editor.touched(), result };
  }

  /** `POST /spaces/{spaceId}/revisions/{revisionId}/rollback`: the space, or one page, back to that revision. */
  async rollback(spaceId: string, revisionId: string, caller: Caller, pageId?: string, ifMatch?: string) {
    const space = await this.writableSpace(spaceId, caller);
    const target = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!target || target.spaceId !== spaceId) throw DomainError.notFound(`no revision ${revisionId} in space ${spaceId}`);
    const from = await this.trees.tree(target.tree);
    if (pageId !== undefined && !from.page(pageId)) throw DomainError.notFound(`no page ${pageId} in revision ${revisionId}`);
    const source: RevisionSource = { kind: 'rollback', to: revisionId, ...(pageId !== undefined ? { page: pageId } : {}) };
    return this.commit(space, caller, ifMatch, { revisionType: 'rollback', source, wholeTree: pageId === undefined ? target.tree : undefined }, async (base, editor) => {
      if (pageId !== undefined) editor.revertPage(pageId, from, this.now());
    });
  }

  /**
   * A duplicate's content (reactor, on `SpaceCreated` with `duplicatedFrom`): the source's head tree
   * as the copy's first revision, sharing every blob. Only while the copy has no content of its own,
   * so a redelivered event appends nothing.
   */
  async copyContent(copyId: string, sourceTree: string, sourceRevision: string, sourceSpaceId: string, caller: Caller): Promise<void> {
    const { state } = await this.commands.load(contentStream(copyId), contentDecider);
    if (state.head !== null || sourceTree === EMPTY_TREE_ROOT) return;
    const copy = await this.spaces.spaceById(copyId);
    if (!copy) return;
    const tree = await this.trees.tree(sourceTree);
    await this.commands.run(
      contentStream(copyId),
      contentDecider,
      {
        kind: 'CommitRevision',
        spaceId: copyId,
        revisionId: newId(),
        base: initialRevisionId(copyId),
        revisionType: 'edits',
        tree: sourceTree,
        pages: touchedPages({ created: tree.pages().map((page) => page.id), updated: [], deleted: [] }),
        source: { kind: 'duplicate', from: sourceSpaceId, fromRevision: sourceRevision },
        // Copying is part of creating the space: the service writes it whatever the copy's edit mode.
        space: { organizationId: copy.organizationId, editMode: 'live', deleted: false, mayEdit: true },
        by: null,
        now: this.now(),
      },
      { caller },
    );
  }

  /**
   * A new version of a spec the space's content uses (reactor `content-dependencies`): recorded on
   * the space's stream once per version, while the space is live and still in the organization
   * the version belongs to (the decider says when a version is no news).
   */
  async recordDependencyUpdate(spaceId: string, organizationId: string, dependency: ContentDependency, version: { versionId: string; createdAt: string }, caller: Caller): Promise<void> {
    const space = await this.spaces.spaceById(spaceId);
    if (!space || space.organizationId !== organizationId) return;
    await this.commands.run(
      contentStream(spaceId),
      contentDecider,
      { kind: 'RecordDependencyUpdate', spaceId, space: { organizationId, deleted: space.deleted }, dependency, versionId: version.versionId, versionCreatedAt: version.createdAt, now: this.now() },
      { caller },
    );
  }

  /**
   * A change request's merge as one revision on the main line, with two parents (main's head
   * `base` and the request's head) and `mergedFrom`. `stale` when main moved on from `base`
   * meanwhile: the caller merges again against the new head.
   */
  async commitMerge(space: ContentSpace, merge: { base: string; tree: string; touched: TouchedPages; changeRequestHead: string; changeRequestId: string }, caller: Caller): Promise<{ revisionId: string } | 'stale'> {
    const revisionId = newId();
    try {
      await this.commands.run(
        contentStream(space.id),
        contentDecider,
        {
          kind: 'CommitRevision',
          spaceId: space.id,
          revisionId,
          base: merge.base,
          revisionType: 'merge',
          tree: merge.tree,
          otherParents: [merge.changeRequestHead],
          mergedFrom: merge.changeRequestId,
          pages: merge.touched,
          source: { kind: 'merge', changeRequest: merge.changeRequestId },
          space: this.facts(space),
          by: caller.kind === 'user' ? caller.userId : null,
          now: this.now(),
        },
        { caller },
      );
      return { revisionId };
    } catch (error) {
      if (error instanceof StaleBaseError) return 'stale';
      throw error;
    }
  }

  /** The head of a space's main line, from its stream (what a write or a merge builds on). */
  async mainHead(spaceId: string): Promise<{ revisionId: string; tree: string }> {
    const { state } = await this.commands.load(contentStream(spaceId), contentDecider);
    return state.head ?? { revisionId: initialRevisionId(spaceId), tree: EMPTY_TREE_ROOT };
  }

  private now(): string {
    return this.commands.now().toISOString();
  }

  private facts(space: ContentSpace): ContentSpaceFacts {
    return { organizationId: space.organizationId, editMode: space.editMode, deleted: space.deleted, mayEdit: space.permissions.edit };
  }

  /** The space, if the caller may write its content now: refused before any work is done. */
  private async writableSpace(spaceId: string, caller: Caller): Promise<ContentSpace> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const refused = refuseWrite(spaceId, this.facts(space));
    if (refused) throw refused;
    return space;
  }

  private async commit<T>(
    space: ContentSpace,
    caller: Caller,
    ifMatch: string | undefined,
    kind: { revisionType: RevisionType; source: RevisionSource; wholeTree?: string },
    build: (base: RevisionTree, editor: TreeEditor) => Promise<T>,
  ): Promise<WriteOutcome<T>> {
    const stream = contentStream(space.id);
    for (let attempt = 1; ; attempt += 1) {
      const { state } = await this.commands.load(stream, contentDecider);
      const base = state.head?.revisionId ?? initialRevisionId(space.id);
      const stale = refuseStaleHead(space.id, ifMatch, base);
      if (stale) throw stale;
      const baseTree = await this.trees.tree(state.head?.tree ?? EMPTY_TREE_ROOT);
      const built = await this.buildOn(baseTree, build);
      const tree = kind.wholeTree ?? built.tree;
      const touched = kind.wholeTree !== undefined ? await this.touchedBetween(baseTree, kind.wholeTree) : built.touched;
      const result = built.result;
      const revisionId = newId();
      try {
        const outcome = await this.commands.run(
          stream,
          contentDecider,
          { kind: 'CommitRevision', spaceId: space.id, revisionId, base, ...(ifMatch !== undefined ? { ifMatch } : {}), revisionType: kind.revisionType, tree, pages: touchedPages(touched), source: kind.source, space: this.facts(space), by: caller.kind === 'user' ? caller.userId : null, now: this.now() },
          { caller },
        );
        const created = outcome.events.length > 0;
        return { revisionId: created ? revisionId : base, created, result };
      } catch (error) {
        if (error instanceof StaleBaseError && ifMatch === undefined && attempt < WRITE_ATTEMPTS) continue;
        throw error;
      }
    }
  }

  private async touchedBetween(before: RevisionTree, afterRoot: string) {
    const after = await this.trees.tree(afterRoot);
    const created = after.pages().filter((page) => !before.page(page.id)).map((page) => page.id);
    const deleted = before.pages().filter((page) => !after.page(page.id)).map((page) => page.id);
    const updated = after.pages().filter((page) => before.page(page.id) && before.page(page.id)!.nodeHash !== page.nodeHash).map((page) => page.id);
    return { created, updated, deleted };
  }

  // ---- the batch ---------------------------------------------------------------------------

  /** The batch's markdown bodies as documents: converted together on the pool, within the write's one conversion budget. */
  private async convertBodies(changes: readonly Change[], refs: ReadonlyMap<string, BatchRef>, budget: ConversionBudget): Promise<Map<PageBody, MarkdownDocument>> {
    const bodies: Array<{ markdown: string }> = [];
    for (const change of changes) {
      if ((change.operation === 'insert_page' || change.operation === 'update_page') && change.body && 'markdown' in change.body) bodies.push(change.body);
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
    const tooMuch = (file: FileUpload) => new DomainError(413, `the files of this write are larger than ${cap} bytes together (passed at file ${file.name})`);
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
        received = (await this.downloads.run(() => safeFetchInto(url, { allowPrivateNetworks: this.config.importAllowPrivateNetworks, maxBytes, timeMs: 15_000 }, (body) => this.storeStream(contentType, body)))).received;
      } catch (error) {
        if (error instanceof ImportFailure && error.status === 413) throw maxBytes < MAX_URL_FILE_BYTES ? tooMuch(file) : new DomainError(413, `file ${file.name} (${file.source.url}) is larger than ${MAX_URL_FILE_BYTES} bytes`);
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
   * Applies a batch to a tree being built. `defaultRevert` is the revision a `revert_page` without
   * `revision` goes back to: the state before the last write on the main line, the request's base on
   * a change request's line.
   */
  async applyChanges(space: ContentSpace, base: RevisionTree, editor: TreeEditor, { changes, refs, bodies, files, budget }: PreparedBatch, defaultRevert: () => Promise<string>) {
    const now = this.now();
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
          const description = change.attributes.description ?? (typeof body?.frontMatter?.description === 'string' ? body.frontMatter.description : undefined);
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
          results.push({ object: page ? 'updated_page' : 'deleted_page', page: page ?? { id, title: base.page(id)?.title ?? '', path: base.page(id)?.path ?? '' } });
          break;
        }
        case 'insert_files':
          for (const file of change.files) {
            const id = file.ref ? refs.get(file.ref)!.id : newId();
            const entry: FileEntry = { id, name: file.name, contentType: file.contentType ?? contentTypeOf(file.name), ...files.get(file)!, createdAt: now };
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

  /** The revision a `revert_page` without `revision` goes back to: the head's first parent (the state before the last write). */
  private async parentRevisionOf(spaceId: string, base: RevisionTree): Promise<string> {
    const head = (await this.commands.load(contentStream(spaceId), contentDecider)).state.head;
    if (!head || head.tree !== base.rootHash) return initialRevisionId(spaceId);
    const doc = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(head.revisionId);
    return doc?.parents[0] ?? initialRevisionId(spaceId);
  }

  /** A page body as a document: markdown as converted on the pool (prepareBatch), a JSON document checked here. */
  private bodyOf(body: PageBody, converted: ReadonlyMap<PageBody, MarkdownDocument>): MarkdownDocument {
    if ('markdown' in body) return converted.get(body)!;
    return { document: parseDocument(body.document), title: null, frontMatter: null };
  }

  // ---- imports -----------------------------------------------------------------------------

  /** Applies an import to a tree being built: into the page `pageId` when given (404 when the base has none). */
  async applyImport(space: ContentSpace, base: RevisionTree, editor: TreeEditor, plan: PreparedImport, pageId: string | undefined, source: ImportSource): Promise<PreparedImport> {
    if (pageId !== undefined && !base.page(pageId)) throw DomainError.notFound(`no page ${pageId} in space ${space.id}`);
    await this.placeImport(editor, plan, pageId, source === 'markdown');
    return plan;
  }

  private async placeImport(editor: TreeEditor, plan: PreparedImport, pageId: string | undefined, replaceBody: boolean): Promise<void> {
    const now = this.now();
    for (const file of plan.files) editor.insertFile({ ...file, createdAt: now });
    const insert = (page: PlannedPage, into: string | null) => {
      editor.insertPage({ id: page.id, type: 'document', attributes: { title: page.title || 'Untitled', ...(page.description ? { description: page.description } : {}) }, document: plan.documents.get(page.id)!, into, now });
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
