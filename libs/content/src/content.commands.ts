import { Inject } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';
import { CONTENT_SPACES, type ContentSpace, type ContentSpaces } from './content.needs';
import { ContentAccess, spaceFacts } from './content.access';
import { ContentBuilder, importSource, type ChangeResult, type ImportSource } from './content.builder';
import { parseChanges } from './content.changes';
import { contentDecider, contentStream, initialRevisionId, refuseStaleHead, StaleBaseError, type ContentState } from './content.decider';
import { touchedPages, type ContentDependency, type RevisionSource, type RevisionType, type TouchedPages } from './content.events';
import { ContentPresenter, type FileObject } from './content.presenter';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import type { RevisionTree } from './tree/revision-tree';
import type { TreeEditor } from './tree/tree-editor';
import { EMPTY_TREE_ROOT } from './tree/tree-store';

/** Attempts at a write whose base moved meanwhile (another write landed first) before giving up with 409. */
const WRITE_ATTEMPTS = 5;

export interface WriteOutcome<T> {
  /** The new revision, or the head when the write changed nothing. */
  revisionId: string;
  created: boolean;
  result: T;
}

/** What a batch write answers: the new revision (the head when nothing changed), what each change did, and the files it inserted. */
export interface ContentWriteResult {
  revisionId: string;
  changes: ChangeResult[];
  insertedFiles: FileObject[];
}

/** What an import answers: the new revision, and how much of the source it took. */
export interface ImportResult {
  revision: string;
  importedResources: number;
  totalResources: number;
}

/** The head of a space's main line in its stream's state (the initial revision before any write). */
export function mainHeadOf(spaceId: string, state: ContentState): { revisionId: string; tree: string } {
  return state.head ?? { revisionId: initialRevisionId(spaceId), tree: EMPTY_TREE_ROOT };
}

/**
 * The writes of a space's main line: each builds a new tree from the head (ContentBuilder: blobs
 * written first, content-addressed, so an abandoned attempt leaves only unreferenced blobs), then
 * commits it as one revision on the space's stream. If another write landed meanwhile the build
 * starts again on the new head, unless the client pinned the head with `If-Match` (412 then).
 */
abstract class MainLineHandler extends DecidingHandler {
  @Inject(ContentTrees) protected readonly trees!: ContentTrees;
  @Inject(ContentBuilder) protected readonly builder!: ContentBuilder;

  /** The head of a space's main line, from its stream (what a write builds on). */
  protected async mainHead(spaceId: string): Promise<{ revisionId: string; tree: string }> {
    return mainHeadOf(spaceId, (await this.load(contentStream(spaceId), contentDecider)).state);
  }

  protected async commit<T>(
    space: ContentSpace,
    caller: Caller,
    ifMatch: string | undefined,
    kind: { revisionType: RevisionType; source: RevisionSource; wholeTree?: string },
    build: (base: RevisionTree, editor: TreeEditor) => Promise<T>,
  ): Promise<WriteOutcome<T>> {
    const stream = contentStream(space.id);
    for (let attempt = 1; ; attempt += 1) {
      const { state } = await this.load(stream, contentDecider);
      const base = state.head?.revisionId ?? initialRevisionId(space.id);
      const stale = refuseStaleHead(space.id, ifMatch, base);
      if (stale) throw stale;
      const baseTree = await this.trees.tree(state.head?.tree ?? EMPTY_TREE_ROOT);
      const built = await this.builder.buildOn(baseTree, build);
      const tree = kind.wholeTree ?? built.tree;
      const touched = kind.wholeTree !== undefined ? await this.touchedBetween(baseTree, kind.wholeTree) : built.touched;
      const result = built.result;
      const revisionId = newId();
      try {
        const outcome = await this.decide(
          stream,
          contentDecider,
          {
            kind: 'CommitRevision',
            spaceId: space.id,
            revisionId,
            base,
            ...(ifMatch !== undefined ? { ifMatch } : {}),
            revisionType: kind.revisionType,
            tree,
            pages: touchedPages(touched),
            source: kind.source,
            space: spaceFacts(space),
            by: caller.kind === 'user' ? caller.userId : null,
            now: this.now(),
          },
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
    const created = after
      .pages()
      .filter((page) => !before.page(page.id))
      .map((page) => page.id);
    const deleted = before
      .pages()
      .filter((page) => !after.page(page.id))
      .map((page) => page.id);
    const updated = after
      .pages()
      .filter((page) => before.page(page.id) && before.page(page.id)!.nodeHash !== page.nodeHash)
      .map((page) => page.id);
    return { created, updated, deleted };
  }
}

/** `POST /spaces/{spaceId}/content`: the batch of changes, all or nothing; `ifMatch` a revision id (412 when the head moved on). */
export class WriteContent extends Command<ContentWriteResult> {
  constructor(
    readonly spaceId: string,
    /** The request's `changes`, parsed and checked by the handler. */
    readonly changes: unknown,
    readonly caller: Caller,
    readonly ifMatch?: string,
  ) {
    super();
  }
}

@CommandHandler(WriteContent)
export class WriteContentHandler extends MainLineHandler {
  constructor(
    private readonly access: ContentAccess,
    private readonly presenter: ContentPresenter,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {
    super();
  }

  async execute({ spaceId, changes: rawChanges, caller, ifMatch }: WriteContent): Promise<ContentWriteResult> {
    const changes = parseChanges(rawChanges);
    const space = await this.access.writableSpace(spaceId, caller);
    const batch = await this.builder.prepareBatch(changes);
    const outcome = await this.commit(space, caller, ifMatch, { revisionType: 'edits', source: { kind: 'batch' } }, (base, editor) =>
      this.builder.applyChanges(space, base, editor, batch, this.now(), () => this.parentRevisionOf(space.id, base)),
    );
    // Files just written, as the answer shows them (from the entries: no read model involved).
    const insertedFiles = outcome.result.insertedFiles.map((file) => this.presenter.file(space, outcome.revisionId, file));
    return { revisionId: outcome.revisionId, changes: outcome.result.changes, insertedFiles };
  }

  /** The revision a `revert_page` without `revision` goes back to: the head's first parent (the state before the last write). */
  private async parentRevisionOf(spaceId: string, base: RevisionTree): Promise<string> {
    const head = (await this.load(contentStream(spaceId), contentDecider)).state.head;
    if (!head || head.tree !== base.rootHash) return initialRevisionId(spaceId);
    const doc = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(head.revisionId);
    return doc?.parents[0] ?? initialRevisionId(spaceId);
  }
}

/**
 * `POST /spaces/{spaceId}/content/import` and `.../content/page/{pageId}/import` (`pageId`: into that
 * page). A stale `If-Match` is refused after the access check and before anything is fetched: a 412
 * costs no download, and a source the import would refuse does not hide that the client's view is stale.
 */
export class ImportContent extends Command<ImportResult> {
  constructor(
    readonly spaceId: string,
    readonly pageId: string | undefined,
    readonly request: { source: ImportSource; url: string },
    readonly caller: Caller,
    readonly ifMatch?: string,
  ) {
    super();
  }
}

@CommandHandler(ImportContent)
export class ImportContentHandler extends MainLineHandler {
  constructor(private readonly access: ContentAccess) {
    super();
  }

  async execute({ spaceId, pageId, request, caller, ifMatch }: ImportContent): Promise<ImportResult> {
    const space = await this.access.writableSpace(spaceId, caller);
    const stale = refuseStaleHead(spaceId, ifMatch, (await this.mainHead(spaceId)).revisionId);
    if (stale) throw stale;
    const plan = await this.builder.prepareImport(request);
    const outcome = await this.commit(space, caller, ifMatch, { revisionType: 'edits', source: importSource(request) }, (base, editor) =>
      this.builder.applyImport(space, base, editor, plan, pageId, request.source, this.now()),
    );
    return { revision: outcome.revisionId, importedResources: plan.importedResources, totalResources: plan.totalResources };
  }
}

/** `POST /spaces/{spaceId}/revisions/{revisionId}/rollback`: the space, or one page, back to that revision; answers the new revision's id (the head when nothing changed). */
export class RollbackContent extends Command<string> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly pageId: string | undefined,
    readonly caller: Caller,
    readonly ifMatch?: string,
  ) {
    super();
  }
}

@CommandHandler(RollbackContent)
export class RollbackContentHandler extends MainLineHandler {
  constructor(
    private readonly access: ContentAccess,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {
    super();
  }

  async execute({ spaceId, revisionId, pageId, caller, ifMatch }: RollbackContent): Promise<string> {
    const space = await this.access.writableSpace(spaceId, caller);
    const target = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!target || target.spaceId !== spaceId) throw DomainError.notFound(`no revision ${revisionId} in space ${spaceId}`);
    const from = await this.trees.tree(target.tree);
    if (pageId !== undefined && !from.page(pageId)) throw DomainError.notFound(`no page ${pageId} in revision ${revisionId}`);
    const source: RevisionSource = { kind: 'rollback', to: revisionId, ...(pageId !== undefined ? { page: pageId } : {}) };
    const outcome = await this.commit(
      space,
      caller,
      ifMatch,
      { revisionType: 'rollback', source, wholeTree: pageId === undefined ? target.tree : undefined },
      async (base, editor) => {
        if (pageId !== undefined) editor.revertPage(pageId, from, this.now());
      },
    );
    return outcome.revisionId;
  }
}

/**
 * A duplicate's content (reactor `content-lifecycle`, on `SpaceCreated` with `duplicatedFrom`): the
 * source's head tree as the copy's first revision, sharing every blob. Only while the copy has no
 * content of its own, so a redelivered event appends nothing. A system command: `caller` is the
 * reaction's.
 */
export class CopyContent extends Command<void> {
  constructor(
    readonly copyId: string,
    readonly sourceTree: string,
    readonly sourceRevision: string,
    readonly sourceSpaceId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CopyContent)
export class CopyContentHandler extends DecidingHandler {
  constructor(
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly trees: ContentTrees,
  ) {
    super();
  }

  async execute({ copyId, sourceTree, sourceRevision, sourceSpaceId, caller }: CopyContent): Promise<void> {
    const { state } = await this.load(contentStream(copyId), contentDecider);
    if (state.head !== null || sourceTree === EMPTY_TREE_ROOT) return;
    const copy = await this.spaces.spaceById(copyId);
    if (!copy) return;
    const tree = await this.trees.tree(sourceTree);
    await this.decide(
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
}

/**
 * A new version of a spec the space's content uses (reactor `content-dependencies`): recorded on
 * the space's stream once per version, while the space is live and still in the organization
 * the version belongs to (the decider says when a version is no news). A system command: `caller`
 * is the reaction's.
 */
export class RecordDependencyUpdate extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly organizationId: string,
    readonly dependency: ContentDependency,
    readonly version: { versionId: string; createdAt: string },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RecordDependencyUpdate)
export class RecordDependencyUpdateHandler extends DecidingHandler {
  constructor(@Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces) {
    super();
  }

  async execute({ spaceId, organizationId, dependency, version, caller }: RecordDependencyUpdate): Promise<void> {
    const space = await this.spaces.spaceById(spaceId);
    if (!space || space.organizationId !== organizationId) return;
    await this.decide(
      contentStream(spaceId),
      contentDecider,
      {
        kind: 'RecordDependencyUpdate',
        spaceId,
        space: { organizationId, deleted: space.deleted },
        dependency,
        versionId: version.versionId,
        versionCreatedAt: version.createdAt,
        now: this.now(),
      },
      { caller },
    );
  }
}

/**
 * A change request's merge as one revision on the main line (change requests' CHANGE_REQUEST_CONTENT
 * port), with two parents (main's head `base` and the request's head) and `mergedFrom`. `stale` when
 * main moved on from `base` meanwhile: the caller merges again against the new head.
 */
export class CommitMerge extends Command<{ revisionId: string } | 'stale'> {
  constructor(
    readonly space: ContentSpace,
    readonly merge: { base: string; tree: string; touched: TouchedPages; changeRequestHead: string; changeRequestId: string },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CommitMerge)
export class CommitMergeHandler extends DecidingHandler {
  async execute({ space, merge, caller }: CommitMerge): Promise<{ revisionId: string } | 'stale'> {
    const revisionId = newId();
    try {
      await this.decide(
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
          space: spaceFacts(space),
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
}

/**
 * The head of a space's main line, from its stream (change requests' CHANGE_REQUEST_CONTENT port:
 * what a merge builds on). A read of the write side, so it sits with the writes; the content
 * queries read only read models.
 */
export class GetMainHead extends Query<{ revisionId: string; tree: string }> {
  constructor(readonly spaceId: string) {
    super();
  }
}

@QueryHandler(GetMainHead)
export class GetMainHeadHandler implements IQueryHandler<GetMainHead> {
  constructor(@Inject(COMMAND_RUNNER) private readonly runner: CommandRunner) {}

  async execute({ spaceId }: GetMainHead): Promise<{ revisionId: string; tree: string }> {
    return mainHeadOf(spaceId, (await this.runner.load(contentStream(spaceId), contentDecider)).state);
  }
}

export const contentCommandHandlers = [
  WriteContentHandler,
  ImportContentHandler,
  RollbackContentHandler,
  CopyContentHandler,
  RecordDependencyUpdateHandler,
  CommitMergeHandler,
  GetMainHeadHandler,
];
