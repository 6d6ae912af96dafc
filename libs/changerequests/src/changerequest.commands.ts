import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import type { RevisionSource, TouchedPages } from '../../content/src';
import { CHANGE_REQUEST_CONTENT, type ChangeRequestContent, type ContentConflict } from './changerequests-content.port';
import { CHANGE_REQUEST_ORGANIZATIONS, CHANGE_REQUEST_SPACES, type ChangeRequestOrganizations, type ChangeRequestSpace, type ChangeRequestSpaces } from './changerequests-spaces.port';
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
  type ChangeRequestState,
  type LinePoint,
} from './changerequest.decider';
import type { ChangeRequestStatus, ReviewStatus } from './changerequest.events';
import { ChangeRequestDescriptions } from './changerequest.descriptions';
import { ChangeRequestQueries } from './changerequest.queries';

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
    super(409, `change request ${changeRequestId} cannot be ${what === 'merge' ? 'merged' : 'updated from main'}: ${conflicts.length} conflicting edit${conflicts.length === 1 ? '' : 's'}`, { conflicts });
  }
}

/** A change request's line as content reads and writes it. */
export interface ChangeRequestLine {
  id: string;
  spaceId: string;
  number: number;
  status: ChangeRequestStatus;
  head: LinePoint;
  base: LinePoint;
}

/**
 * The change-request writes: one method per command. Merges and updates run the three-way merge
 * (content's) and commit the result on one stream with an expected revision, so of two racing
 * merges one wins and the other is merged again against the new main, or answers 409.
 */
@Injectable()
export class ChangeRequestCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
    @Inject(CHANGE_REQUEST_ORGANIZATIONS) private readonly organizations: ChangeRequestOrganizations,
    private readonly queries: ChangeRequestQueries,
    private readonly descriptions: ChangeRequestDescriptions,
  ) {}

  /** `POST /spaces/{spaceId}/change-requests`: a draft branching from main's head. */
  async create(spaceId: string, body: { subject?: string; agentTaskId?: string }, caller: Caller): Promise<string> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const facts = this.facts(space);
    if (facts.deleted) throw DomainError.conflict(`space ${spaceId} is deleted: restore it first`);
    if (!facts.mayEdit) throw DomainError.forbidden(`you may not create change requests in space ${spaceId}`);
    const changeRequestId = newId();
    const numbered = await this.commands.run(changeRequestNumbersStream(spaceId), numberingDecider, { kind: 'NumberChangeRequest', spaceId, changeRequestId }, { caller }, { wait: false });
    const number = numbered.state.numbers.get(changeRequestId)!;
    const main = await this.content.mainHead(spaceId);
    await this.run({ kind: 'CreateChangeRequest', changeRequestId, spaceId, number, subject: body.subject ?? `Change request #${number}`, ...(body.agentTaskId !== undefined ? { agentTaskId: body.agentTaskId } : {}), main, space: facts, by: by(caller), now: this.now() }, caller);
    return changeRequestId;
  }

  /** `PATCH /spaces/{spaceId}/change-requests/{changeRequestId}`: subject, status, description and links. */
  async edit(spaceId: string, ref: string, body: ChangeRequestEdit, caller: Caller, ifMatch?: number): Promise<string> {
    const { id, space } = await this.resolve(spaceId, ref, caller);
    const facts = this.facts(space);
    const denied = refuseWriter(id, 'edit', facts);
    if (denied) throw denied;
    // Checked before the description is stored: a caller who may not edit leaves nothing in the blob store.
    if (body.description !== undefined && (facts.deleted || !facts.mayEdit)) throw facts.deleted ? DomainError.conflict(`the space of change request ${id} is deleted: restore it first`) : DomainError.forbidden(`you may not edit change request ${id}`);
    const description = body.description !== undefined ? await this.descriptions.store(body.description) : undefined;
    const links = body.links?.map((link) => ({ ...(link.id !== undefined ? { id: link.id } : {}), url: link.ref.url, ...(link.title !== undefined ? { title: link.title } : {}) }));
    const command: ChangeRequestCommand = {
      kind: 'EditChangeRequest',
      changeRequestId: id,
      ...(body.subject !== undefined ? { subject: body.subject } : {}),
      ...(body.status !== undefined ? { status: body.status } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(links !== undefined ? { links, newLinkIds: links.filter((link) => link.id === undefined).map(() => newId()) } : {}),
      space: facts,
      by: by(caller),
      now: this.now(),
    };
    await this.run(command, caller, ifMatch);
    return id;
  }

  /**
   * `POST .../merge`: the request's line merged into main as one `merge` revision. `ifMatch`, the
   * request's stream revision, is compared before any merging work: the merge commits to main's
   * stream first, so it cannot be left to the request's own append at the end.
   */
  async merge(spaceId: string, ref: string, caller: Caller, ifMatch?: number): Promise<{ revision: string; changeRequestId: string }> {
    const { id, space } = await this.resolve(spaceId, ref, caller);
    const facts = this.facts(space);
    const denied = refuseWriter(id, 'merge', facts);
    if (denied) throw denied;
    const requireApproval = await this.organizations.requiresApproval(space.organizationId);
    for (let attempt = 1; ; attempt += 1) {
      const { state, revision } = await this.load(id);
      refuseStaleRevision(ifMatch, revision);
      // Merged by a racing request meanwhile: the same answer as the merge that won.
      if (state.merged) throw DomainError.conflict(`change request ${id} is already merged`);
      const refused = refuseMerge(id, state, facts, requireApproval);
      if (refused) throw refused;
      const main = await this.content.mainHead(spaceId);
      const merged = await this.content.merge({ ancestor: state.base.tree, ours: state.head.tree, theirs: main.tree }, main.tree);
      if (!merged.ok) throw new MergeConflictError(id, 'merge', merged.conflicts);
      const outcome = await this.content.commitMerge(space, { base: main.revisionId, tree: merged.tree, touched: merged.touched, changeRequestHead: state.head.revisionId, changeRequestId: id }, caller);
      if (outcome === 'stale') {
        if (attempt < ATTEMPTS) continue;
        throw DomainError.conflict(`main content of space ${spaceId} kept moving while change request ${id} was merged; retry`);
      }
      await this.recordMerge(id, space, outcome.revisionId, state.head.revisionId, caller);
      return { revision: outcome.revisionId, changeRequestId: id };
    }
  }

  /** Records a merge on the request's stream (idempotent: the reactor repeats it if the request's own step was lost). */
  async recordMerge(changeRequestId: string, space: Pick<ChangeRequestSpace, 'organizationId' | 'deleted' | 'editMode'>, revisionMerged: string, mergedHead: string, caller: Caller): Promise<void> {
    const facts: ChangeRequestSpaceFacts = { organizationId: space.organizationId, deleted: space.deleted, editMode: space.editMode, mayEdit: true, mayReview: true };
    await this.run({ kind: 'RecordMerge', changeRequestId, revisionMerged, mergedHead, space: facts, by: by(caller), now: this.now() }, caller);
  }

  /**
   * `POST .../update`: main merged into the request's line, as one `update` revision. `ifMatch` is
   * compared before the three-way merge, and again by the append (412 if the request moved meanwhile).
   */
  async update(spaceId: string, ref: string, caller: Caller, ifMatch?: number): Promise<{ revision: string; changeRequestId: string }> {
    const { id, space } = await this.resolve(spaceId, ref, caller);
    const facts = this.facts(space);
    const denied = refuseWriter(id, 'update', facts);
    if (denied) throw denied;
    for (let attempt = 1; ; attempt += 1) {
      const { state, revision } = await this.load(id);
      refuseStaleRevision(ifMatch, revision);
      const main = await this.content.mainHead(spaceId);
      if (main.revisionId === state.base.revisionId) {
        // Already up to date: the decider's checks still apply (a merged request answers 409).
        await this.run({ kind: 'UpdateChangeRequest', changeRequestId: id, base: state.head.revisionId, main, revision: { revisionId: state.head.revisionId, parents: [], revisionType: 'update', tree: state.head.tree, pages: emptyTouched(), source: { kind: 'update', changeRequest: id, main: main.revisionId } }, space: facts, by: by(caller), now: this.now() }, caller, ifMatch);
        return { revision: state.head.revisionId, changeRequestId: id };
      }
      const merged = await this.content.merge({ ancestor: state.base.tree, ours: state.head.tree, theirs: main.tree }, state.head.tree);
      if (!merged.ok) throw new MergeConflictError(id, 'update', merged.conflicts);
      const revisionId = newId();
      const source: RevisionSource = { kind: 'update', changeRequest: id, main: main.revisionId };
      try {
        await this.run(
          { kind: 'UpdateChangeRequest', changeRequestId: id, base: state.head.revisionId, main, revision: { revisionId, parents: [state.head.revisionId, main.revisionId], revisionType: 'update', tree: merged.tree, pages: merged.touched, source }, space: facts, by: by(caller), now: this.now() },
          caller,
          ifMatch,
        );
        return { revision: revisionId, changeRequestId: id };
      } catch (error) {
        if (error instanceof StaleLineError && attempt < ATTEMPTS) continue;
        throw error;
      }
    }
  }

  /** `POST .../requested-reviewers`. */
  async requestReviewers(spaceId: string, ref: string, reviewers: string[], caller: Caller): Promise<string> {
    const { id, space } = await this.resolve(spaceId, ref, caller);
    const members = await this.organizations.membersAmong(space.organizationId, reviewers);
    const notMembers = [...new Set(reviewers)].filter((user) => !members.has(user));
    await this.run({ kind: 'RequestReviewers', changeRequestId: id, reviewers, notMembers, space: this.facts(space), by: by(caller), now: this.now() }, caller);
    return id;
  }

  /** `DELETE .../requested-reviewers/{userId}`: `ifMatch` is the request's stream revision (its reviewers live in its stream). */
  async removeReviewer(spaceId: string, ref: string, reviewer: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { id, space } = await this.resolve(spaceId, ref, caller);
    const facts = this.facts(space);
    const denied = refuseWriter(id, 'remove-reviewer', facts);
    if (denied) throw denied;
    await this.run({ kind: 'RemoveReviewer', changeRequestId: id, reviewer, space: facts, by: by(caller), now: this.now() }, caller, ifMatch);
  }

  /** `POST .../reviews`: approved or changes-requested, on the request's current head. */
  async review(spaceId: string, ref: string, review: { status: ReviewStatus; body?: string }, caller: Caller): Promise<{ reviewId: string; changeRequestId: string }> {
    const { id, space } = await this.resolve(spaceId, ref, caller);
    const reviewId = newId();
    await this.run({ kind: 'ReviewChangeRequest', changeRequestId: id, reviewId, ...review, space: this.facts(space), by: by(caller), now: this.now() }, caller);
    return { reviewId, changeRequestId: id };
  }

  // ---- the request's line, for content's reads and writes (ChangeRequestsForContent) -------------

  /** The request named by id or number, with its line's head from its stream (404 when the caller may not see it). */
  async line(spaceId: string, ref: string, caller: Caller): Promise<ChangeRequestLine> {
    const { id } = await this.resolve(spaceId, ref, caller);
    const state = await this.state(id);
    return { id, spaceId, number: state.created!.number, status: state.status, head: state.head, base: state.base };
  }

  /** One revision on the request's line: `stale` when its head moved on from `base`, `unchanged` when the tree is its head's. */
  async commitRevision(
    spaceId: string,
    changeRequestId: string,
    commit: { base: string; ifMatch?: string; revisionId: string; tree: string; pages: TouchedPages; source: RevisionSource },
    caller: Caller,
  ): Promise<'committed' | 'unchanged' | 'stale'> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const { base, ifMatch, revisionId, tree, pages, source } = commit;
    try {
      const appended = await this.run(
        { kind: 'CommitChangeRequestRevision', changeRequestId, base, ...(ifMatch !== undefined ? { ifMatch } : {}), revision: { revisionId, parents: [base], revisionType: 'edits', tree, pages, source }, space: this.facts(space), by: by(caller), now: this.now() },
        caller,
      );
      return appended ? 'committed' : 'unchanged';
    } catch (error) {
      if (error instanceof StaleLineError) return 'stale';
      throw error;
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private async resolve(spaceId: string, ref: string, caller: Caller): Promise<{ id: string; space: ChangeRequestSpace }> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const request = await this.queries.find(spaceId, ref);
    return { id: request._id, space };
  }

  private async state(changeRequestId: string): Promise<ChangeRequestState> {
    return (await this.load(changeRequestId)).state;
  }

  /** The request's state and its stream revision (its ETag). */
  private load(changeRequestId: string): Promise<{ state: ChangeRequestState; revision: number | null }> {
    return this.commands.load(changeRequestStream(changeRequestId), changeRequestDecider);
  }

  private facts(space: ChangeRequestSpace): ChangeRequestSpaceFacts {
    return { organizationId: space.organizationId, deleted: space.deleted, editMode: space.editMode, mayEdit: space.permissions.edit, mayReview: space.permissions.review };
  }

  /** Runs a command on the request's stream; whether it appended anything. */
  private async run(command: ChangeRequestCommand, caller: Caller, ifMatch?: number): Promise<boolean> {
    const outcome = await this.commands.run(changeRequestStream(command.changeRequestId), changeRequestDecider, command, { caller }, ifMatch !== undefined ? { ifMatch } : {});
    return outcome.events.length > 0;
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}

/** A write pinned by `If-Match` to another revision of the request's stream than the one loaded: 412, as the command processor answers it. */
function refuseStaleRevision(ifMatch: number | undefined, revision: number | null): void {
  if (ifMatch !== undefined && ifMatch !== revision) throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
}

const by = (caller: Caller): string | null => (caller.kind === 'user' ? caller.userId : null);

const emptyTouched = (): TouchedPages => ({ created: [], updated: [], deleted: [], counts: { created: 0, updated: 0, deleted: 0 } });
