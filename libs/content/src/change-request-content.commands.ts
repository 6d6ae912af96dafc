import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '#platform/clock';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { CONTENT_CHANGE_REQUESTS, type ContentChangeRequest, type ContentChangeRequests } from './content.needs';
import type { ContentSpace } from './content.needs';
import { ContentAccess } from './content.access';
import { ContentBuilder, importSource, type BuiltTree, type ImportSource } from './content.builder';
import { parseChanges } from './content.changes';
import type { ContentWriteResult, ImportResult } from './content.commands';
import { touchedPages, type RevisionSource } from './content.events';
import { ContentPresenter } from './content.presenter';
import { ContentTrees } from './content.trees';
import type { RevisionTree } from './tree/revision-tree';
import type { TreeEditor } from './tree/tree-editor';

/*
 * Writes to a change request's content (`POST /spaces/{spaceId}/change-requests/{changeRequestId}/content`
 * and its imports): the same batch and imports as the space's own, built on the request's head and
 * committed as one revision on the request's line, which the change-requests context decides (so
 * these handlers decide nothing themselves: the CONTENT_CHANGE_REQUESTS port commits). A locked
 * space still takes edits through change requests; only direct edits are locked.
 */

/** Attempts at a write whose base moved meanwhile (another write landed first) before giving up with 409. */
const WRITE_ATTEMPTS = 5;

/** What a write to a request's content answers: the request's id besides the batch write's answer. */
export interface ChangeRequestContentWriteResult extends ContentWriteResult {
  changeRequestId: string;
}

/** What building on a request's line needs. */
interface LineWriting {
  changeRequests: ContentChangeRequests;
  trees: ContentTrees;
  builder: ContentBuilder;
  /** The time stamped on what a build writes (the service's clock, as the commands' `now`). */
  clock: Clock;
}

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/content` (`ref`: the request's id or number); `ifMatch` the request's head revision. */
export class WriteChangeRequestContent extends Command<ChangeRequestContentWriteResult> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    /** The request's `changes`, parsed and checked by the handler. */
    readonly changes: unknown,
    readonly caller: Caller,
    readonly ifMatch?: string,
  ) {
    super();
  }
}

@CommandHandler(WriteChangeRequestContent)
export class WriteChangeRequestContentHandler implements ICommandHandler<WriteChangeRequestContent> {
  constructor(
    private readonly access: ContentAccess,
    private readonly builder: ContentBuilder,
    private readonly trees: ContentTrees,
    private readonly presenter: ContentPresenter,
    @Inject(CONTENT_CHANGE_REQUESTS) private readonly changeRequests: ContentChangeRequests,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({
    spaceId,
    ref,
    changes: rawChanges,
    caller,
    ifMatch,
  }: WriteChangeRequestContent): Promise<ChangeRequestContentWriteResult> {
    const changes = parseChanges(rawChanges);
    const space = await this.access.editableSpace(spaceId, caller);
    const batch = await this.builder.prepareBatch(changes);
    const writing: LineWriting = { changeRequests: this.changeRequests, trees: this.trees, builder: this.builder, clock: this.clock };
    const outcome = await commitOnLine(writing, space, ref, caller, ifMatch, { kind: 'batch' }, (base, editor, requestBase, now) =>
      this.builder.applyChanges(space, base, editor, batch, now, async () => requestBase),
    );
    // Files just written, as the answer shows them (from the entries: no read model involved).
    const insertedFiles = outcome.result.insertedFiles.map((file) => this.presenter.file(space, outcome.revisionId, file));
    return { changeRequestId: outcome.changeRequestId, revisionId: outcome.revisionId, changes: outcome.result.changes, insertedFiles };
  }
}

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/content/import` and `.../content/page/{pageId}/import` (`pageId`: into that page). */
export class ImportChangeRequestContent extends Command<ImportResult> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly pageId: string | undefined,
    readonly request: { source: ImportSource; url: string },
    readonly caller: Caller,
    readonly ifMatch?: string,
  ) {
    super();
  }
}

@CommandHandler(ImportChangeRequestContent)
export class ImportChangeRequestContentHandler implements ICommandHandler<ImportChangeRequestContent> {
  constructor(
    private readonly access: ContentAccess,
    private readonly builder: ContentBuilder,
    private readonly trees: ContentTrees,
    @Inject(CONTENT_CHANGE_REQUESTS) private readonly changeRequests: ContentChangeRequests,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ spaceId, ref, pageId, request, caller, ifMatch }: ImportChangeRequestContent): Promise<ImportResult> {
    const space = await this.access.editableSpace(spaceId, caller);
    // The request must exist (and be visible), and If-Match name its head, before anything is fetched.
    refuseStaleLine(await this.changeRequests.line(spaceId, ref, caller), ifMatch);
    const plan = await this.builder.prepareImport(request);
    const writing: LineWriting = { changeRequests: this.changeRequests, trees: this.trees, builder: this.builder, clock: this.clock };
    const outcome = await commitOnLine(writing, space, ref, caller, ifMatch, importSource(request), (base, editor, _requestBase, now) =>
      this.builder.applyImport(space, base, editor, plan, pageId, request.source, now),
    );
    return { revision: outcome.revisionId, importedResources: plan.importedResources, totalResources: plan.totalResources };
  }
}

export const changeRequestContentCommandHandlers = [WriteChangeRequestContentHandler, ImportChangeRequestContentHandler];

/**
 * Builds on the request's head and commits one revision on its line; when the line moved meanwhile
 * the build starts again on the new head, unless `If-Match` pinned it (412 then).
 */
async function commitOnLine<T>(
  { changeRequests, trees, builder, clock }: LineWriting,
  space: ContentSpace,
  ref: string,
  caller: Caller,
  ifMatch: string | undefined,
  source: RevisionSource,
  build: (base: RevisionTree, editor: TreeEditor, requestBase: string, now: string) => Promise<T>,
): Promise<{ changeRequestId: string; revisionId: string; created: boolean; result: T }> {
  for (let attempt = 1; ; attempt += 1) {
    const line = await changeRequests.line(space.id, ref, caller);
    refuseStaleLine(line, ifMatch);
    if (line.status === 'merged' || line.status === 'archived')
      throw DomainError.conflict(`change request ${line.id} is ${line.status}: its content can no longer change`);
    const built: BuiltTree<T> = await builder.buildOn(await trees.tree(line.head.tree), (base, editor) =>
      build(base, editor, line.base.revisionId, clock.now().toISOString()),
    );
    const revisionId = newId();
    const outcome = await changeRequests.commitRevision(
      space.id,
      line.id,
      {
        base: line.head.revisionId,
        ...(ifMatch !== undefined ? { ifMatch } : {}),
        revisionId,
        tree: built.tree,
        pages: touchedPages(built.touched),
        source,
      },
      caller,
    );
    if (outcome === 'stale') {
      if (ifMatch === undefined && attempt < WRITE_ATTEMPTS) continue;
      throw DomainError.conflict(`change request ${line.id} kept changing while this write was built; retry`);
    }
    const created = outcome === 'committed';
    return { changeRequestId: line.id, revisionId: created ? revisionId : line.head.revisionId, created, result: built.result };
  }
}

/** A write pinned by `If-Match` to a revision that is no longer the request's head: 412 (the request's stream checks it again on commit). */
function refuseStaleLine(line: ContentChangeRequest, ifMatch: string | undefined): void {
  if (ifMatch !== undefined && ifMatch !== line.head.revisionId)
    throw DomainError.preconditionFailed(
      `change request ${line.id} has changed: If-Match names revision ${ifMatch} but it is at ${line.head.revisionId}`,
    );
}
