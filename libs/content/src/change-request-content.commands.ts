import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { CONTENT_CHANGE_REQUESTS, type ContentChangeRequest, type ContentChangeRequests } from './content-changerequests.port';
import { CONTENT_SPACES, type ContentSpace, type ContentSpaces } from './content-spaces.port';
import { parseChanges } from './content.changes';
import { ContentCommands, importSource, type BuiltTree, type ImportSource } from './content.commands';
import { touchedPages, type RevisionSource } from './content.events';
import { ContentTrees } from './content.trees';
import type { RevisionTree } from './tree/revision-tree';
import type { TreeEditor } from './tree/tree-editor';

/** Attempts at a write whose base moved meanwhile (another write landed first) before giving up with 409. */
const WRITE_ATTEMPTS = 5;

/**
 * Writes to a change request's content (`POST /spaces/{spaceId}/change-requests/{changeRequestId}/content`
 * and its imports): the same batch and imports as the space's own, built on the request's head and
 * committed as one revision on the request's line, which the change-requests context decides. A
 * locked space still takes edits through change requests; only direct edits are locked.
 */
@Injectable()
export class ChangeRequestContentCommands {
  constructor(
    private readonly content: ContentCommands,
    private readonly trees: ContentTrees,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    @Inject(CONTENT_CHANGE_REQUESTS) private readonly changeRequests: ContentChangeRequests,
  ) {}

  async write(spaceId: string, ref: string, rawChanges: unknown, caller: Caller, ifMatch?: string) {
    const changes = parseChanges(rawChanges);
    const space = await this.editableSpace(spaceId, caller);
    const batch = await this.content.prepareBatch(changes);
    const outcome = await this.commit(space, ref, caller, ifMatch, { kind: 'batch' }, (base, editor, requestBase) => this.content.applyChanges(space, base, editor, batch, async () => requestBase));
    return { ...outcome, space };
  }

  async import(spaceId: string, ref: string, request: { source: ImportSource; url: string }, caller: Caller, pageId?: string, ifMatch?: string) {
    const space = await this.editableSpace(spaceId, caller);
    // The request must exist (and be visible), and If-Match name its head, before anything is fetched.
    refuseStaleLine(await this.changeRequests.line(spaceId, ref, caller), ifMatch);
    const plan = await this.content.prepareImport(request);
    const outcome = await this.commit(space, ref, caller, ifMatch, importSource(request), (base, editor) => this.content.applyImport(space, base, editor, plan, pageId, request.source));
    return { revision: outcome.revisionId, importedResources: plan.importedResources, totalResources: plan.totalResources };
  }

  private async editableSpace(spaceId: string, caller: Caller): Promise<ContentSpace> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    if (space.deleted) throw DomainError.conflict(`space ${spaceId} is deleted: restore it first`);
    if (!space.permissions.edit) throw DomainError.forbidden(`you may not edit the content of space ${spaceId}`);
    return space;
  }

  private async commit<T>(
    space: ContentSpace,
    ref: string,
    caller: Caller,
    ifMatch: string | undefined,
    source: RevisionSource,
    build: (base: RevisionTree, editor: TreeEditor, requestBase: string) => Promise<T>,
  ): Promise<{ changeRequestId: string; revisionId: string; created: boolean; result: T }> {
    for (let attempt = 1; ; attempt += 1) {
      const line = await this.changeRequests.line(space.id, ref, caller);
      refuseStaleLine(line, ifMatch);
      if (line.status === 'merged' || line.status === 'archived') throw DomainError.conflict(`change request ${line.id} is ${line.status}: its content can no longer change`);
      const built: BuiltTree<T> = await this.content.buildOn(await this.trees.tree(line.head.tree), (base, editor) => build(base, editor, line.base.revisionId));
      const revisionId = newId();
      const outcome = await this.changeRequests.commitRevision(space.id, line.id, { base: line.head.revisionId, ...(ifMatch !== undefined ? { ifMatch } : {}), revisionId, tree: built.tree, pages: touchedPages(built.touched), source }, caller);
      if (outcome === 'stale') {
        if (ifMatch === undefined && attempt < WRITE_ATTEMPTS) continue;
        throw DomainError.conflict(`change request ${line.id} kept changing while this write was built; retry`);
      }
      const created = outcome === 'committed';
      return { changeRequestId: line.id, revisionId: created ? revisionId : line.head.revisionId, created, result: built.result };
    }
  }
}

/** A write pinned by `If-Match` to a revision that is no longer the request's head: 412 (the request's stream checks it again on commit). */
function refuseStaleLine(line: ContentChangeRequest, ifMatch: string | undefined): void {
  if (ifMatch !== undefined && ifMatch !== line.head.revisionId) throw DomainError.preconditionFailed(`change request ${line.id} has changed: If-Match names revision ${ifMatch} but it is at ${line.head.revisionId}`);
}
