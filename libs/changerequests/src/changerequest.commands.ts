import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import {
  CHANGE_REQUEST_CONTENT,
  CHANGE_REQUEST_ORGANIZATIONS,
  CHANGE_REQUEST_SPACES,
  type ChangeRequestContent,
  type ChangeRequestOrganizations,
  type ChangeRequestSpace,
  type ChangeRequestSpaces,
  type ContentConflict,
  type ContentRevisionSource,
  type TouchedPageIds,
} from './changerequests.needs';
import {
  changeRequestDecider,
  changeRequestNumbersStream,
  changeRequestStream,
  numberingDecider,
  refuseMerge,
  refuseWriter,
  StaleLineError,
  type ChangeRequestCommand,
  type ChangeRequestSpaceFacts,
} from './changerequest.decider';
import type { ChangeRequestStatus, ReviewStatus } from './changerequest.events';
import { ChangeRequestDescriptions } from './changerequest.descriptions';
import { findChangeRequest } from './changerequest.queries';

/*
 * The change-request writes. Merges and updates run the three-way merge (content's) and commit the
 * result on one stream with an expected revision, so of two racing merges one wins and the other is
 * merged again against the new main, or answers 409. `ref` names a request by id or by number (the
 * path's `changeRequestId` accepts both).
 */

/** A PATCH of a change request as the request sends it (the platform's members). */
export interface ChangeRequestEdit {
  subject?: string;
  status?: ChangeRequestStatus;
  /** A JSON document, validated and stored by ChangeRequestDescriptions. */
  description?: unknown;
  links?: Array<{ id?: string; ref: { kind: 'url'; url: string }; title?: string }>;
}

/** Attempts at a merge or an update whose base moved meanwhile (another write landed first) before giving up with 409. */
const ATTEMPTS = 5;

/** A three-way merge that found overlapping edits: 409 with the conflicts, nothing changed. */
export class MergeConflictError extends DomainError {
  constructor(changeRequestId: string, what: 'merge' | 'update', conflicts: ContentConflict[]) {
    super(
      409,
      `change request ${changeRequestId} cannot be ${what === 'merge' ? 'merged' : 'updated from main'}: ${conflicts.length} conflicting edit${conflicts.length === 1 ? '' : 's'}`,
      { conflicts },
    );
  }
}

/** `POST /spaces/{spaceId}/change-requests`: a draft branching from main's head; answers the new id. */
export class CreateChangeRequest extends Command<string> {
  constructor(
    readonly spaceId: string,
    readonly body: { subject?: string; agentTaskId?: string },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateChangeRequest)
export class CreateChangeRequestHandler extends DecidingHandler {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {
    super();
  }

  async execute({ spaceId, body, caller }: CreateChangeRequest): Promise<string> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const facts = spaceFacts(space);
    if (facts.deleted) throw DomainError.conflict(`space ${spaceId} is deleted: restore it first`);
    if (!facts.mayEdit) throw DomainError.forbidden(`you may not create change requests in space ${spaceId}`);
    const changeRequestId = newId();
    const numbered = await this.decide(
      changeRequestNumbersStream(spaceId),
      numberingDecider,
      { kind: 'NumberChangeRequest', spaceId, changeRequestId },
      { caller, wait: false },
    );
    const number = numbered.state.numbers.get(changeRequestId)!;
    const main = await this.content.mainHead(spaceId);
    await this.decide(
      changeRequestStream(changeRequestId),
      changeRequestDecider,
      {
        kind: 'CreateChangeRequest',
        changeRequestId,
        spaceId,
        number,
        subject: body.subject ?? `Change request #${number}`,
        ...(body.agentTaskId !== undefined ? { agentTaskId: body.agentTaskId } : {}),
        main,
        space: facts,
        by: by(caller),
        now: this.now(),
      },
      { caller },
    );
    return changeRequestId;
  }
}

/** `PATCH /spaces/{spaceId}/change-requests/{changeRequestId}`: subject, status, description and links; answers the request's id. */
export class EditChangeRequest extends Command<string> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly changes: ChangeRequestEdit,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(EditChangeRequest)
export class EditChangeRequestHandler extends DecidingHandler {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly descriptions: ChangeRequestDescriptions,
  ) {
    super();
  }

  async execute({ spaceId, ref, changes, caller, ifMatch }: EditChangeRequest): Promise<string> {
    const { id, space } = await resolve(this.spaces, this.reads, spaceId, ref, caller);
    const facts = spaceFacts(space);
    const denied = refuseWriter(id, 'edit', facts);
    if (denied) throw denied;
    // Checked before the description is stored: a caller who may not edit leaves nothing in the blob store.
    if (changes.description !== undefined && (facts.deleted || !facts.mayEdit))
      throw facts.deleted
        ? DomainError.conflict(`the space of change request ${id} is deleted: restore it first`)
        : DomainError.forbidden(`you may not edit change request ${id}`);
    const description = changes.description !== undefined ? await this.descriptions.store(changes.description) : undefined;
    const links = changes.links?.map((link) => ({
      ...(link.id !== undefined ? { id: link.id } : {}),
      url: link.ref.url,
      ...(link.title !== undefined ? { title: link.title } : {}),
    }));
    const command: ChangeRequestCommand = {
      kind: 'EditChangeRequest',
      changeRequestId: id,
      ...(changes.subject !== undefined ? { subject: changes.subject } : {}),
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(links !== undefined ? { links, newLinkIds: links.filter((link) => link.id === undefined).map(() => newId()) } : {}),
      space: facts,
      by: by(caller),
      now: this.now(),
    };
    await this.decide(changeRequestStream(id), changeRequestDecider, command, { caller, ifMatch });
    return id;
  }
}

/**
 * `POST /spaces/{spaceId}/change-requests/{changeRequestId}/merge`: the request's line merged into
 * main as one `merge` revision. `ifMatch`, the request's stream revision, is compared before any
 * merging work: the merge commits to main's stream first, so it cannot be left to the request's own
 * append at the end.
 */
export class MergeChangeRequest extends Command<{ revision: string; changeRequestId: string }> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(MergeChangeRequest)
export class MergeChangeRequestHandler extends DecidingHandler {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
    @Inject(CHANGE_REQUEST_ORGANIZATIONS) private readonly organizations: ChangeRequestOrganizations,
  ) {
    super();
  }

  async execute({ spaceId, ref, caller, ifMatch }: MergeChangeRequest): Promise<{ revision: string; changeRequestId: string }> {
    const { id, space } = await resolve(this.spaces, this.reads, spaceId, ref, caller);
    const facts = spaceFacts(space);
    const denied = refuseWriter(id, 'merge', facts);
    if (denied) throw denied;
    const requireApproval = await this.organizations.requiresApproval(space.organizationId);
    for (let attempt = 1; ; attempt += 1) {
      const { state, revision } = await this.load(changeRequestStream(id), changeRequestDecider);
      refuseStaleRevision(ifMatch, revision);
      // Merged by a racing request meanwhile: the same answer as the merge that won.
      if (state.merged) throw DomainError.conflict(`change request ${id} is already merged`);
      const refused = refuseMerge(id, state, facts, requireApproval);
      if (refused) throw refused;
      const main = await this.content.mainHead(spaceId);
      const merged = await this.content.merge({ ancestor: state.base.tree, ours: state.head.tree, theirs: main.tree }, main.tree);
      if (!merged.ok) throw new MergeConflictError(id, 'merge', merged.conflicts);
      const outcome = await this.content.commitMerge(
        space,
        {
          base: main.revisionId,
          tree: merged.tree,
          touched: merged.touched,
          changeRequestHead: state.head.revisionId,
          changeRequestId: id,
        },
        caller,
      );
      if (outcome === 'stale') {
        if (attempt < ATTEMPTS) continue;
        throw DomainError.conflict(`main content of space ${spaceId} kept moving while change request ${id} was merged; retry`);
      }
      await this.decide(
        changeRequestStream(id),
        changeRequestDecider,
        recordMergeCommand(id, space, outcome.revisionId, state.head.revisionId, caller, this.now()),
        { caller },
      );
      return { revision: outcome.revisionId, changeRequestId: id };
    }
  }
}

/**
 * A system command: records a merge on the request's stream (idempotent: the merges reactor repeats
 * it if the merging request's own step was lost). No permission check: the merge was decided on main.
 */
export class RecordMerge extends Command<void> {
  constructor(
    readonly changeRequestId: string,
    readonly space: Pick<ChangeRequestSpace, 'organizationId' | 'deleted' | 'editMode'>,
    readonly revisionMerged: string,
    readonly mergedHead: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RecordMerge)
export class RecordMergeHandler extends DecidingHandler {
  async execute({ changeRequestId, space, revisionMerged, mergedHead, caller }: RecordMerge): Promise<void> {
    await this.decide(
      changeRequestStream(changeRequestId),
      changeRequestDecider,
      recordMergeCommand(changeRequestId, space, revisionMerged, mergedHead, caller, this.now()),
      { caller },
    );
  }
}

/**
 * `POST /spaces/{spaceId}/change-requests/{changeRequestId}/update`: main merged into the request's
 * line, as one `update` revision. `ifMatch` is compared before the three-way merge, and again by the
 * append (412 if the request moved meanwhile).
 */
export class UpdateChangeRequestFromMain extends Command<{ revision: string; changeRequestId: string }> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateChangeRequestFromMain)
export class UpdateChangeRequestFromMainHandler extends DecidingHandler {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {
    super();
  }

  async execute({ spaceId, ref, caller, ifMatch }: UpdateChangeRequestFromMain): Promise<{ revision: string; changeRequestId: string }> {
    const { id, space } = await resolve(this.spaces, this.reads, spaceId, ref, caller);
    const facts = spaceFacts(space);
    const denied = refuseWriter(id, 'update', facts);
    if (denied) throw denied;
    for (let attempt = 1; ; attempt += 1) {
      const { state, revision } = await this.load(changeRequestStream(id), changeRequestDecider);
      refuseStaleRevision(ifMatch, revision);
      const main = await this.content.mainHead(spaceId);
      if (main.revisionId === state.base.revisionId) {
        // Already up to date: the decider's checks still apply (a merged request answers 409).
        await this.decide(
          changeRequestStream(id),
          changeRequestDecider,
          {
            kind: 'UpdateChangeRequest',
            changeRequestId: id,
            base: state.head.revisionId,
            main,
            revision: {
              revisionId: state.head.revisionId,
              parents: [],
              revisionType: 'update',
              tree: state.head.tree,
              pages: emptyTouched(),
              source: { kind: 'update', changeRequest: id, main: main.revisionId },
            },
            space: facts,
            by: by(caller),
            now: this.now(),
          },
          { caller, ifMatch },
        );
        return { revision: state.head.revisionId, changeRequestId: id };
      }
      const merged = await this.content.merge({ ancestor: state.base.tree, ours: state.head.tree, theirs: main.tree }, state.head.tree);
      if (!merged.ok) throw new MergeConflictError(id, 'update', merged.conflicts);
      const revisionId = newId();
      const source: ContentRevisionSource = { kind: 'update', changeRequest: id, main: main.revisionId };
      try {
        await this.decide(
          changeRequestStream(id),
          changeRequestDecider,
          {
            kind: 'UpdateChangeRequest',
            changeRequestId: id,
            base: state.head.revisionId,
            main,
            revision: {
              revisionId,
              parents: [state.head.revisionId, main.revisionId],
              revisionType: 'update',
              tree: merged.tree,
              pages: merged.touched,
              source,
            },
            space: facts,
            by: by(caller),
            now: this.now(),
          },
          { caller, ifMatch },
        );
        return { revision: revisionId, changeRequestId: id };
      } catch (error) {
        if (error instanceof StaleLineError && attempt < ATTEMPTS) continue;
        throw error;
      }
    }
  }
}

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers`: answers the request's id. */
export class RequestReviewers extends Command<string> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly reviewers: string[],
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RequestReviewers)
export class RequestReviewersHandler extends DecidingHandler {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_ORGANIZATIONS) private readonly organizations: ChangeRequestOrganizations,
  ) {
    super();
  }

  async execute({ spaceId, ref, reviewers, caller }: RequestReviewers): Promise<string> {
    const { id, space } = await resolve(this.spaces, this.reads, spaceId, ref, caller);
    const members = await this.organizations.membersAmong(space.organizationId, reviewers);
    const notMembers = [...new Set(reviewers)].filter((user) => !members.has(user));
    await this.decide(
      changeRequestStream(id),
      changeRequestDecider,
      { kind: 'RequestReviewers', changeRequestId: id, reviewers, notMembers, space: spaceFacts(space), by: by(caller), now: this.now() },
      { caller },
    );
    return id;
  }
}

/** `DELETE /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}`: `ifMatch` is the request's stream revision (its reviewers live in its stream). */
export class RemoveReviewer extends Command<void> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly reviewer: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveReviewer)
export class RemoveReviewerHandler extends DecidingHandler {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {
    super();
  }

  async execute({ spaceId, ref, reviewer, caller, ifMatch }: RemoveReviewer): Promise<void> {
    const { id, space } = await resolve(this.spaces, this.reads, spaceId, ref, caller);
    const facts = spaceFacts(space);
    const denied = refuseWriter(id, 'remove-reviewer', facts);
    if (denied) throw denied;
    await this.decide(
      changeRequestStream(id),
      changeRequestDecider,
      { kind: 'RemoveReviewer', changeRequestId: id, reviewer, space: facts, by: by(caller), now: this.now() },
      { caller, ifMatch },
    );
  }
}

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/reviews`: approved or changes-requested, on the request's current head. */
export class ReviewChangeRequest extends Command<{ reviewId: string; changeRequestId: string }> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly review: { status: ReviewStatus; body?: string },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ReviewChangeRequest)
export class ReviewChangeRequestHandler extends DecidingHandler {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {
    super();
  }

  async execute({ spaceId, ref, review, caller }: ReviewChangeRequest): Promise<{ reviewId: string; changeRequestId: string }> {
    const { id, space } = await resolve(this.spaces, this.reads, spaceId, ref, caller);
    const reviewId = newId();
    await this.decide(
      changeRequestStream(id),
      changeRequestDecider,
      { kind: 'ReviewChangeRequest', changeRequestId: id, reviewId, ...review, space: spaceFacts(space), by: by(caller), now: this.now() },
      { caller },
    );
    return { reviewId, changeRequestId: id };
  }
}

// ---- a revision on the request's line (the writes of its content routes) ------------------------

/** One revision on the request's line: `stale` when its head moved on from `base`, `unchanged` when the tree is its head's. */
export class CommitChangeRequestRevision extends Command<'committed' | 'unchanged' | 'stale'> {
  constructor(
    readonly spaceId: string,
    readonly changeRequestId: string,
    readonly commit: {
      base: string;
      ifMatch?: string;
      revisionId: string;
      tree: string;
      pages: TouchedPageIds;
      source: ContentRevisionSource;
    },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CommitChangeRequestRevision)
export class CommitChangeRequestRevisionHandler extends DecidingHandler {
  constructor(@Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces) {
    super();
  }

  async execute({ spaceId, changeRequestId, commit, caller }: CommitChangeRequestRevision): Promise<'committed' | 'unchanged' | 'stale'> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const { base, ifMatch, revisionId, tree, pages, source } = commit;
    try {
      const outcome = await this.decide(
        changeRequestStream(changeRequestId),
        changeRequestDecider,
        {
          kind: 'CommitChangeRequestRevision',
          changeRequestId,
          base,
          ...(ifMatch !== undefined ? { ifMatch } : {}),
          revision: { revisionId, parents: [base], revisionType: 'edits', tree, pages, source },
          space: spaceFacts(space),
          by: by(caller),
          now: this.now(),
        },
        { caller },
      );
      return outcome.events.length > 0 ? 'committed' : 'unchanged';
    } catch (error) {
      if (error instanceof StaleLineError) return 'stale';
      throw error;
    }
  }
}

export const changeRequestCommandHandlers = [
  CreateChangeRequestHandler,
  EditChangeRequestHandler,
  MergeChangeRequestHandler,
  RecordMergeHandler,
  UpdateChangeRequestFromMainHandler,
  RequestReviewersHandler,
  RemoveReviewerHandler,
  ReviewChangeRequestHandler,
  CommitChangeRequestRevisionHandler,
];

// ---- helpers ----------------------------------------------------------------------------------

/** The space (404 when the caller may not see it), then the request of it named by id or number. */
async function resolve(
  spaces: ChangeRequestSpaces,
  reads: ReadStore,
  spaceId: string,
  ref: string,
  caller: Caller,
): Promise<{ id: string; space: ChangeRequestSpace }> {
  const space = await spaces.spaceFor(spaceId, caller);
  const request = await findChangeRequest(reads, spaceId, ref);
  return { id: request._id, space };
}

function spaceFacts(space: ChangeRequestSpace): ChangeRequestSpaceFacts {
  return {
    organizationId: space.organizationId,
    deleted: space.deleted,
    editMode: space.editMode,
    mayEdit: space.permissions.edit,
    mayReview: space.permissions.review,
  };
}

/** The merge recorded on the request's stream, by the merging request or by the reactor (the service itself: it may). */
function recordMergeCommand(
  changeRequestId: string,
  space: Pick<ChangeRequestSpace, 'organizationId' | 'deleted' | 'editMode'>,
  revisionMerged: string,
  mergedHead: string,
  caller: Caller,
  now: string,
): ChangeRequestCommand {
  const facts: ChangeRequestSpaceFacts = {
    organizationId: space.organizationId,
    deleted: space.deleted,
    editMode: space.editMode,
    mayEdit: true,
    mayReview: true,
  };
  return { kind: 'RecordMerge', changeRequestId, revisionMerged, mergedHead, space: facts, by: by(caller), now };
}

/** A write pinned by `If-Match` to another revision of the request's stream than the one loaded: 412, as the command processor answers it. */
function refuseStaleRevision(ifMatch: number | undefined, revision: number | null): void {
  if (ifMatch !== undefined && ifMatch !== revision)
    throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
}

const by = (caller: Caller): string | null => (caller.kind === 'user' ? caller.userId : null);

const emptyTouched = (): TouchedPageIds => ({ created: [], updated: [], deleted: [], counts: { created: 0, updated: 0, deleted: 0 } });
