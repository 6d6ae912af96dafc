import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { CONTENT_SPACES, type ContentSpace, type ContentSpaces } from './content-spaces.port';
import { parseChanges, MAX_INLINE_FILE_BYTES, type Change, type FileUpload, type PageBody } from './content.changes';
import { contentDecider, contentStream, initialRevisionId, refuseWrite, StaleBaseError, type ContentSpaceFacts } from './content.decider';
import { touchedPages, type ContentDependency, type RevisionSource, type RevisionType, type TouchedPages } from './content.events';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import { carryKeys, markdownToDocument, parseDocument } from './document';
import type { ContentRef, DocumentNode } from './document/document.model';
import { imageSizes } from './document/packages';
import { contentTypeOf } from './import/content-types';
import { runImport, type ImportPlan, type PlannedPage } from './import';
import { safeFetch } from './import/safe-fetch';
import type { RevisionTree } from './tree/revision-tree';
import { TreeEditor } from './tree/tree-editor';
import { EMPTY_TREE_ROOT } from './tree/tree-store';
import type { FileEntry } from './tree/tree.model';

/** Pages one zip import may create (its entries are capped at 5,000 by the importer). */
const ZIP_IMPORT_MAX_PAGES = 5000;

/** Attempts at a write whose base moved meanwhile (another write landed first) before giving up with 409. */
const WRITE_ATTEMPTS = 5;

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

/** A batch of changes parsed, with the bytes of the files it uploads. */
export interface PreparedBatch {
  changes: readonly Change[];
  uploads: ReadonlyMap<FileUpload, Buffer>;
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
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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

  /** `POST /spaces/{spaceId}/content/import` and `.../content/page/{pageId}/import`. */
  async import(spaceId: string, request: { source: ImportSource; url: string }, caller: Caller, pageId?: string) {
    const space = await this.writableSpace(spaceId, caller);
    const plan = await this.prepareImport(request);
    const outcome = await this.commit(space, caller, undefined, { revisionType: 'edits', source: importSource(request) }, (base, editor) => this.applyImport(space, base, editor, plan, pageId, request.source));
    return { revision: outcome.revisionId, importedResources: plan.importedResources, totalResources: plan.totalResources };
  }

  // ---- building a tree, for any line (the space's main line here, a change request's line in ChangeRequestContentCommands)

  /** A parsed batch with the files it names by URL fetched once, before any attempt (and after the access check). */
  async prepareBatch(changes: readonly Change[]): Promise<PreparedBatch> {
    return { changes, uploads: await this.fetchUploads(changes) };
  }

  /** An import fetched and planned, before any attempt. */
  prepareImport(request: { source: ImportSource; url: string }): Promise<ImportPlan> {
    // An archive is one download whatever it holds, so it may bring more pages than a crawl visits.
    const limits = request.source === 'zip' ? { maxPages: ZIP_IMPORT_MAX_PAGES } : {};
    return runImport(request, { allowPrivateNetworks: this.config.importAllowPrivateNetworks, newId: () => newId(), limits });
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
      if (ifMatch !== undefined && ifMatch !== base) throw DomainError.preconditionFailed(`the content of space ${space.id} has changed: If-Match names revision ${ifMatch} but it is at ${base}`);
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

  private async fetchUploads(changes: readonly Change[]): Promise<Map<FileUpload, Buffer>> {
    const bytes = new Map<FileUpload, Buffer>();
    for (const change of changes) {
      if (change.operation !== 'insert_files') continue;
      for (const file of change.files) {
        if ('base64' in file.source) {
          const decoded = Buffer.from(file.source.base64, 'base64');
          if (decoded.length > MAX_INLINE_FILE_BYTES) throw new DomainError(413, `file ${file.name} is larger than ${MAX_INLINE_FILE_BYTES} bytes`);
          bytes.set(file, decoded);
        } else {
          const fetched = await safeFetch(file.source.url, { allowPrivateNetworks: this.config.importAllowPrivateNetworks, maxBytes: 10 * MAX_INLINE_FILE_BYTES, timeMs: 15_000 });
          bytes.set(file, fetched.bytes);
        }
      }
    }
    return bytes;
  }

  /**
   * Applies a batch to a tree being built. `defaultRevert` is the revision a `revert_page` without
   * `revision` goes back to: the state before the last write on the main line, the request's base on
   * a change request's line.
   */
  async applyChanges(space: ContentSpace, base: RevisionTree, editor: TreeEditor, { changes, uploads }: PreparedBatch, defaultRevert: () => Promise<string>) {
    const now = this.now();
    // Refs name pages and files inserted by the batch; they get their ids up front, so any change may link to any of them.
    const refs = new Map<string, { kind: 'page' | 'file'; id: string }>();
    for (const change of changes) {
      if (change.operation === 'insert_page' && change.ref) refs.set(change.ref, { kind: 'page', id: newId() });
      if (change.operation === 'insert_files') for (const file of change.files) if (file.ref) refs.set(file.ref, { kind: 'file', id: newId() });
    }
    const pageOf = (name: string): string => {
      const ref = refs.get(name);
      return ref?.kind === 'page' ? ref.id : name;
    };
    const parentOf = (name: string | null | undefined) => (name === undefined ? undefined : name === null ? null : pageOf(name));
    const resolveLink = (href: string): ContentRef | null => {
      const match = /^(?:\.\/)?([A-Za-z0-9_-]{1,64})(?:\.md)?(#.*)?$/.exec(href);
      const ref = match ? refs.get(match[1]) : undefined;
      if (!ref) return null;
      if (ref.kind === 'file') return { kind: 'file', file: ref.id };
      return match![2] ? { kind: 'anchor', anchor: match![2].slice(1), page: ref.id } : { kind: 'page', page: ref.id };
    };
    const results: ChangeResult[] = [];
    const insertedFiles: FileEntry[] = [];
    for (const change of changes) {
      switch (change.operation) {
        case 'insert_page': {
          const id = change.ref ? refs.get(change.ref)!.id : newId();
          const body = change.body ? this.bodyOf(change.body, resolveLink) : null;
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
            document = this.bodyOf(change.body, resolveLink).document;
            if (previous) document = carryKeys(previous, document);
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
          results.push({ object: page ? 'updated_page' : 'deleted_page', page: page ?? { id, title: base.page(id)?.title ?? '', path: base.page(id)?.path ?? '' } });
          break;
        }
        case 'insert_files':
          for (const file of change.files) {
            const bytes = uploads.get(file)!;
            const id = file.ref ? refs.get(file.ref)!.id : newId();
            const entry = await this.storeFile(id, file.name, file.contentType ?? contentTypeOf(file.name), bytes, now);
            editor.insertFile(entry);
            insertedFiles.push(entry);
          }
          break;
        case 'update_variables':
          editor.setVariables(change.variables);
          break;
      }
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

  private bodyOf(body: PageBody, resolveLink: (href: string) => ContentRef | null): { document: DocumentNode; title: string | null; frontMatter: Record<string, unknown> | null } {
    if ('markdown' in body) return markdownToDocument(body.markdown, { resolveLink });
    return { document: parseDocument(body.document), title: null, frontMatter: null };
  }

  private async storeFile(id: string, name: string, contentType: string, bytes: Buffer, now: string): Promise<FileEntry> {
    const { hash, size } = await this.trees.blobs.put(bytes);
    return { id, name, contentType, size, hash, ...dimensionsOf(contentType, bytes), createdAt: now };
  }

  // ---- imports -----------------------------------------------------------------------------

  /** Applies an import to a tree being built: into the page `pageId` when given (404 when the base has none). */
  async applyImport(space: ContentSpace, base: RevisionTree, editor: TreeEditor, plan: ImportPlan, pageId: string | undefined, source: ImportSource): Promise<ImportPlan> {
    if (pageId !== undefined && !base.page(pageId)) throw DomainError.notFound(`no page ${pageId} in space ${space.id}`);
    await this.placeImport(editor, plan, pageId, source === 'markdown');
    return plan;
  }

  private async placeImport(editor: TreeEditor, plan: ImportPlan, pageId: string | undefined, replaceBody: boolean): Promise<void> {
    const now = this.now();
    for (const file of plan.files) editor.insertFile(await this.storeFile(file.id, file.name, file.contentType, file.bytes, now));
    const insert = (page: PlannedPage, into: string | null) => {
      editor.insertPage({ id: page.id, type: 'document', attributes: { title: page.title || 'Untitled', ...(page.description ? { description: page.description } : {}) }, document: markdownToDocument(page.markdown).document, into, now });
      for (const child of page.pages) insert(child, page.id);
    };
    const [first, ...rest] = plan.pages;
    if (pageId !== undefined && replaceBody && first) {
      // A markdown file imported into a page becomes that page's body.
      editor.updatePage(pageId, { document: markdownToDocument(first.markdown).document, now });
      for (const child of first.pages) insert(child, pageId);
      for (const page of rest) insert(page, pageId);
      return;
    }
    for (const page of plan.pages) insert(page, pageId ?? null);
  }
}

/** Width and height of an image file, when its bytes say so. */
function dimensionsOf(contentType: string, bytes: Buffer): { dimensions?: { width: number; height: number } } {
  if (!contentType.startsWith('image/')) return {};
  try {
    const { width, height } = imageSizes().imageSize(bytes);
    return width !== undefined && height !== undefined ? { dimensions: { width, height } } : {};
  } catch {
    return {};
  }
}
