import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { CONTENT_SPACES, type ContentSpace, type ContentSpaces } from './content.needs';
import { refuseWrite, type ContentSpaceFacts } from './content.decider';
import { CONTENT_HEADS, CONTENT_REVISIONS, type ContentHeadDoc, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import type { RevisionTree } from './tree/revision-tree';

/** A space, a revision of it and that revision's tree: what a content read answers from. */
export interface ResolvedContent {
  space: ContentSpace;
  revision: RevisionDoc;
  tree: RevisionTree;
}

/** What a space's content write carries to the decider about the space. */
export function spaceFacts(space: ContentSpace): ContentSpaceFacts {
  return { organizationId: space.organizationId, editMode: space.editMode, deleted: space.deleted, mayEdit: space.permissions.edit };
}

/**
 * Who may read and write a space's content, decided in one place for every handler: a read
 * resolves the space (404 when the caller may not see it) and then the revision it names (404 for
 * a revision of another space); a write is refused before any work is done.
 */
@Injectable()
export class ContentAccess {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly trees: ContentTrees,
  ) {}

  /** The space and the revision a read names: 404 for a revision of another space. */
  async resolve(spaceId: string, caller: Caller, options: { revision?: string; shareKey?: string } = {}): Promise<ResolvedContent> {
    const space = await this.spaces.spaceFor(spaceId, caller, options.shareKey);
    return this.resolveIn(space, options.revision);
  }

  async resolveIn(space: ContentSpace, revisionId?: string): Promise<ResolvedContent> {
    const revision =
      revisionId === undefined
        ? await this.headRevision(space.id)
        : await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!revision || revision.spaceId !== space.id)
      throw DomainError.notFound(`no revision ${revisionId ?? ''} in space ${space.id}`.replace('  ', ' '));
    return { space, revision, tree: await this.trees.tree(revision.tree) };
  }

  /** The space's primary content as the read models have it (null before its first revision). */
  async headRevision(spaceId: string): Promise<RevisionDoc | null> {
    const head = await this.reads.collection<ContentHeadDoc>(CONTENT_HEADS).get(spaceId);
    return head ? this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(head.revisionId) : null;
  }

  /** A revision's tree, without a caller check (the published site); null when the revision is not the space's. */
  async revisionTree(spaceId: string, revisionId: string): Promise<RevisionTree | null> {
    const revision = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    return revision && revision.spaceId === spaceId ? this.trees.tree(revision.tree) : null;
  }

  /** The space, if the caller may write its content now: refused before any work is done. */
  async writableSpace(spaceId: string, caller: Caller): Promise<ContentSpace> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const refused = refuseWrite(spaceId, spaceFacts(space));
    if (refused) throw refused;
    return space;
  }

  /** The space, if the caller may edit its change requests' content: a locked space still takes edits through change requests. */
  async editableSpace(spaceId: string, caller: Caller): Promise<ContentSpace> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    if (space.deleted) throw DomainError.conflict(`space ${spaceId} is deleted: restore it first`);
    if (!space.permissions.edit) throw DomainError.forbidden(`you may not edit the content of space ${spaceId}`);
    return space;
  }
}
