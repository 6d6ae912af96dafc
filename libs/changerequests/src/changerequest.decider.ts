import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import {
  MAX_CHANGE_REQUEST_LINKS,
  type ChangeRequestEvent,
  type ChangeRequestLink,
  type ChangeRequestNumberEvent,
  type ChangeRequestStatus,
  type LineRevision,
  type ReviewStatus,
} from './changerequest.events';

export const changeRequestStream = (changeRequestId: string) => `changerequest-${changeRequestId}`;
export const changeRequestNumbersStream = (spaceId: string) => `changerequestnumbers-${spaceId}`;

/** A revision as a line names it: its id and its tree's root hash. */
export interface LinePoint {
  revisionId: string;
  tree: string;
}

export interface Review {
  reviewId: string;
  reviewer: string;
  status: ReviewStatus;
  /** The request's head when it was given: a later revision makes it outdated. */
  revision: string;
}

export interface ChangeRequestState {
  created: null | { spaceId: string; organizationId: string; number: number; createdBy: string | null };
  status: ChangeRequestStatus;
  subject: string;
  /** The description's blob hash, when one was set. */
  description: string | null;
  links: readonly ChangeRequestLink[];
  /** The request's latest revision. */
  head: LinePoint;
  /** The main revision the line builds on: where it branched, then the main revision of its last update. */
  base: LinePoint;
  reviewers: ReadonlySet<string>;
  reviews: ReadonlyMap<string, Review>;
  merged: null | { revisionMerged: string; mergedHead: string };
}

/** Facts about the space and the caller, read by the command handler when the command is made. */
export interface ChangeRequestSpaceFacts {
  organizationId: string;
  deleted: boolean;
  editMode: 'live' | 'locked';
  /** The caller may create and edit change requests (`edit` and above); always true for the service itself. */
  mayEdit: boolean;
  /** The caller may review and merge (`review` and above). */
  mayReview: boolean;
}

interface Acting {
  changeRequestId: string;
  space: ChangeRequestSpaceFacts;
  by: string | null;
  now: string;
}

export type ChangeRequestCommand =
  | (Acting & { kind: 'CreateChangeRequest'; spaceId: string; number: number; subject: string; agentTaskId?: string; main: LinePoint })
  /**
   * `description`: the hash of the new description in the blob store. `links`: the whole new list as
   * sent (a link with an `id` keeps that link; one without is new and takes the next of `newLinkIds`).
   */
  | (Acting & {
      kind: 'EditChangeRequest';
      subject?: string;
      status?: ChangeRequestStatus;
      description?: string;
      links?: LinkInput[];
      newLinkIds?: string[];
    })
  | (Acting & { kind: 'CommitChangeRequestRevision'; base: string; ifMatch?: string; revision: LineRevision })
  | (Acting & { kind: 'UpdateChangeRequest'; base: string; main: LinePoint; revision: LineRevision })
  /** `notMembers`: those of `reviewers` who are not members of the space's organization (users that do not exist among them). */
  | (Acting & { kind: 'RequestReviewers'; reviewers: string[]; notMembers: string[] })
  | (Acting & { kind: 'RemoveReviewer'; reviewer: string })
  | (Acting & { kind: 'ReviewChangeRequest'; reviewId: string; status: ReviewStatus; body?: string })
  | (Acting & { kind: 'RecordMerge'; revisionMerged: string; mergedHead: string });

/** Raised when the request's head moved between reading it and committing: the caller builds again on the new head. */
export class StaleLineError extends DomainError {
  constructor(changeRequestId: string, base: string, head: string) {
    super(409, `change request ${changeRequestId} moved on from revision ${base} to ${head}`);
  }
}

/**
 * The allowed status moves. `merged` is final and only a merge reaches it; an archived request can
 * be reopened (to draft or open); draft and open move freely between each other.
 */
const MOVES: Readonly<Record<ChangeRequestStatus, readonly ChangeRequestStatus[]>> = {
  draft: ['open', 'archived'],
  open: ['draft', 'archived'],
  archived: ['draft', 'open'],
  merged: [],
};

export function refuseStatusMove(changeRequestId: string, from: ChangeRequestStatus, to: ChangeRequestStatus): DomainError | null {
  if (from === to) return null;
  if (from === 'merged') return DomainError.conflict(`change request ${changeRequestId} is merged: its status is final`);
  if (to === 'merged')
    return DomainError.conflict(`change request ${changeRequestId} cannot be set to merged: merge it with POST .../merge`);
  if (!MOVES[from].includes(to)) return DomainError.conflict(`change request ${changeRequestId} cannot move from ${from} to ${to}`);
  return null;
}

/** Why the request's content or reviews may not change now, if they may not. */
export function refuseChange(changeRequestId: string, state: ChangeRequestState): DomainError | null {
  if (state.status === 'merged') return DomainError.conflict(`change request ${changeRequestId} is merged: it can no longer change`);
  if (state.status === 'archived') return DomainError.conflict(`change request ${changeRequestId} is archived: reopen it first`);
  return null;
}

/** Reviews that still count: each reviewer's latest, on the request's current head. */
export function currentReviews(state: Pick<ChangeRequestState, 'reviews' | 'head'>): Review[] {
  const latest = new Map<string, Review>();
  for (const review of state.reviews.values()) latest.set(review.reviewer, review);
  return [...latest.values()].filter((review) => review.revision === state.head.revisionId);
}

/** Requested reviewers outside the organization: 400 naming them, worded alike for users that exist and users that do not. */
function notMembersError(organizationId: string, userIds: readonly string[]): DomainError {
  const one = userIds.length === 1;
  return DomainError.invalid(
    `users: ${userIds.join(', ')} ${one ? 'is not a member' : 'are not members'} of organization ${organizationId}`,
  );
}

/** Writes of an existing request whose caller needs a role in the space (reviews and content edits have rules of their own). */
export type ChangeRequestWrite = 'edit' | 'update' | 'remove-reviewer' | 'merge';

/**
 * Pure rule: why the caller's role does not let them make this write of the request, if it does
 * not. The command handler asks before it compares If-Match (who may not change a request gets
 * 403, never a 412 about its version), and the decider asks again.
 */
export function refuseWriter(
  changeRequestId: string,
  write: ChangeRequestWrite,
  space: Pick<ChangeRequestSpaceFacts, 'mayEdit' | 'mayReview'>,
): DomainError | null {
  switch (write) {
    case 'edit':
      return space.mayEdit ? null : DomainError.forbidden(`you may not edit change request ${changeRequestId}`);
    case 'update':
      return space.mayEdit ? null : DomainError.forbidden(`you may not update change request ${changeRequestId}`);
    case 'remove-reviewer':
      return space.mayEdit ? null : DomainError.forbidden(`you may not change the reviewers of change request ${changeRequestId}`);
    case 'merge':
      return space.mayReview
        ? null
        : DomainError.forbidden(`you may not merge change request ${changeRequestId}: merging needs the review role`);
  }
}

/** Pure rule: why the request may not be merged now (before any merging work), if it may not. */
export function refuseMerge(
  changeRequestId: string,
  state: ChangeRequestState,
  space: ChangeRequestSpaceFacts,
  requireApproval: boolean,
): DomainError | null {
  if (!state.created) return DomainError.notFound(`no change request ${changeRequestId}`);
  if (space.deleted) return DomainError.conflict(`the space of change request ${changeRequestId} is deleted: restore it first`);
  const refused = refuseWriter(changeRequestId, 'merge', space) ?? refuseChange(changeRequestId, state);
  if (refused) return refused;
  if (space.editMode === 'locked')
    return DomainError.conflict(`the space of change request ${changeRequestId} is locked: nothing can be merged into it`);
  if (requireApproval) {
    const reviews = currentReviews(state);
    if (reviews.some((review) => review.status === 'changes-requested'))
      return DomainError.conflict(`change request ${changeRequestId} has changes requested on its latest revision`);
    if (!reviews.some((review) => review.status === 'approved'))
      return DomainError.conflict(`change request ${changeRequestId} needs an approval of its latest revision before it can be merged`);
  }
  return null;
}

const NO_POINT: LinePoint = { revisionId: '', tree: '' };

/** A link as a PATCH sends it (the platform's ChangeRequestLinkInput, its `ref` read as the URL). */
export interface LinkInput {
  id?: string;
  url: string;
  title?: string;
}

/**
 * The request's links after a PATCH that sends `sent`, the whole list: at most the platform's ten;
 * a link sent with an `id` must be one of the request's (ids are the request's: a client passes
 * one back to keep or change that link), and each id once; a link sent without one is new and
 * takes the next of `newIds`. Links left out are removed.
 */
export function linksAfter(
  changeRequestId: string,
  state: Pick<ChangeRequestState, 'links'>,
  sent: readonly LinkInput[],
  newIds: readonly string[],
): ChangeRequestLink[] | DomainError {
  if (sent.length > MAX_CHANGE_REQUEST_LINKS)
    return DomainError.invalid(`links: at most ${MAX_CHANGE_REQUEST_LINKS} links, not ${sent.length}`);
  const known = new Set(state.links.map((link) => link.id));
  const seen = new Set<string>();
  const fresh = [...newIds];
  const links: ChangeRequestLink[] = [];
  for (const [index, link] of sent.entries()) {
    let id = link.id;
    if (id !== undefined) {
      if (!known.has(id))
        return DomainError.invalid(`links[${index}].id: change request ${changeRequestId} has no link ${id} (leave id out to add a link)`);
      if (seen.has(id)) return DomainError.invalid(`links[${index}].id: link ${id} is given twice`);
    } else {
      id = fresh.shift();
      if (id === undefined) return DomainError.invalid(`links[${index}]: no id left for a new link`);
    }
    seen.add(id);
    links.push(link.title !== undefined ? { id, url: link.url, title: link.title } : { id, url: link.url });
  }
  return links;
}

const sameLinks = (a: readonly ChangeRequestLink[], b: readonly ChangeRequestLink[]) =>
  a.length === b.length && a.every((link, index) => link.id === b[index].id && link.url === b[index].url && link.title === b[index].title);

export const changeRequestDecider: Decider<ChangeRequestCommand, ChangeRequestEvent, ChangeRequestState> = {
  initialState: () => ({
    created: null,
    status: 'draft',
    subject: '',
    description: null,
    links: [],
    head: NO_POINT,
    base: NO_POINT,
    reviewers: new Set(),
    reviews: new Map(),
    merged: null,
  }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ChangeRequestCreated': {
        const { spaceId, organizationId, number, createdBy, revisionInitial, tree } = event.data;
        const point = { revisionId: revisionInitial, tree };
        return {
          ...state,
          created: { spaceId, organizationId, number, createdBy },
          status: event.data.status,
          subject: event.data.subject,
          head: point,
          base: point,
        };
      }
      case 'ChangeRequestSubjectChanged':
        return { ...state, subject: event.data.subject };
      case 'ChangeRequestDescriptionChanged':
        return { ...state, description: event.data.description };
      case 'ChangeRequestLinksChanged':
        return { ...state, links: event.data.links };
      case 'ChangeRequestStatusChanged':
        return { ...state, status: event.data.to };
      case 'ChangeRequestContentEdited':
        return { ...state, head: { revisionId: event.data.revision.revisionId, tree: event.data.revision.tree } };
      case 'ChangeRequestUpdated':
        return {
          ...state,
          head: { revisionId: event.data.revision.revisionId, tree: event.data.revision.tree },
          base: { revisionId: event.data.mergedAncestor, tree: event.data.mergedAncestorTree },
        };
      case 'ChangeRequestReviewersRequested':
        return { ...state, reviewers: new Set([...state.reviewers, ...event.data.reviewers]) };
      case 'ChangeRequestReviewerRemoved':
        return { ...state, reviewers: new Set([...state.reviewers].filter((reviewer) => reviewer !== event.data.reviewer)) };
      case 'ChangeRequestReviewed': {
        const reviews = new Map(state.reviews);
        reviews.set(event.data.reviewId, {
          reviewId: event.data.reviewId,
          reviewer: event.data.reviewedBy,
          status: event.data.status,
          revision: event.data.revision,
        });
        return { ...state, reviews };
      }
      case 'ChangeRequestMerged':
        return { ...state, status: 'merged', merged: { revisionMerged: event.data.revisionMerged, mergedHead: event.data.mergedHead } };
    }
  },
  decide: (command, state) => {
    const id = command.changeRequestId;
    if (command.kind === 'CreateChangeRequest') {
      if (state.created) return [];
      if (command.space.deleted) return DomainError.conflict(`space ${command.spaceId} is deleted: restore it first`);
      if (!command.space.mayEdit) return DomainError.forbidden(`you may not create change requests in space ${command.spaceId}`);
      return [
        {
          type: 'ChangeRequestCreated',
          data: {
            changeRequestId: id,
            spaceId: command.spaceId,
            organizationId: command.space.organizationId,
            number: command.number,
            subject: command.subject,
            ...(command.agentTaskId !== undefined ? { agentTaskId: command.agentTaskId } : {}),
            status: 'draft',
            revisionInitial: command.main.revisionId,
            tree: command.main.tree,
            createdBy: command.by,
            createdAt: command.now,
          },
        },
      ];
    }
    if (!state.created) return DomainError.notFound(`no change request ${id}`);
    const about = { changeRequestId: id, spaceId: state.created.spaceId, organizationId: command.space.organizationId };
    // Merges are recorded whatever the space's state: the main revision exists already.
    if (command.kind === 'RecordMerge') {
      if (state.merged) return [];
      return [
        {
          type: 'ChangeRequestMerged',
          data: {
            ...about,
            revisionMerged: command.revisionMerged,
            mergedHead: command.mergedHead,
            mergedBy: command.by,
            mergedAt: command.now,
          },
        },
      ];
    }
    if (command.space.deleted) return DomainError.conflict(`the space of change request ${id} is deleted: restore it first`);
    switch (command.kind) {
      case 'EditChangeRequest': {
        const denied = refuseWriter(id, 'edit', command.space);
        if (denied) return denied;
        const events: ChangeRequestEvent[] = [];
        if (command.subject !== undefined && command.subject !== state.subject) {
          if (state.status === 'merged') return DomainError.conflict(`change request ${id} is merged: it can no longer change`);
          events.push({
            type: 'ChangeRequestSubjectChanged',
            data: { ...about, subject: command.subject, changedBy: command.by, changedAt: command.now },
          });
        }
        if (command.description !== undefined && command.description !== state.description) {
          if (state.status === 'merged') return DomainError.conflict(`change request ${id} is merged: it can no longer change`);
          events.push({
            type: 'ChangeRequestDescriptionChanged',
            data: { ...about, description: command.description, changedBy: command.by, changedAt: command.now },
          });
        }
        if (command.links !== undefined) {
          const links = linksAfter(id, state, command.links, command.newLinkIds ?? []);
          if (links instanceof DomainError) return links;
          if (!sameLinks(state.links, links)) {
            if (state.status === 'merged') return DomainError.conflict(`change request ${id} is merged: it can no longer change`);
            events.push({ type: 'ChangeRequestLinksChanged', data: { ...about, links, changedBy: command.by, changedAt: command.now } });
          }
        }
        if (command.status !== undefined && command.status !== state.status) {
          const refused = refuseStatusMove(id, state.status, command.status);
          if (refused) return refused;
          events.push({
            type: 'ChangeRequestStatusChanged',
            data: {
              ...about,
              from: state.status,
              to: command.status as Exclude<ChangeRequestStatus, 'merged'>,
              changedBy: command.by,
              changedAt: command.now,
            },
          });
        }
        return events;
      }
      case 'CommitChangeRequestRevision': {
        if (!command.space.mayEdit) return DomainError.forbidden(`you may not edit the content of change request ${id}`);
        const refused = refuseChange(id, state);
        if (refused) return refused;
        if (command.ifMatch !== undefined && command.ifMatch !== state.head.revisionId) {
          return DomainError.preconditionFailed(
            `change request ${id} has changed: If-Match names revision ${command.ifMatch} but it is at ${state.head.revisionId}`,
          );
        }
        if (command.base !== state.head.revisionId) return new StaleLineError(id, command.base, state.head.revisionId);
        // The same tree again is no new revision: a batch that changes nothing.
        if (command.revision.tree === state.head.tree) return [];
        return [
          {
            type: 'ChangeRequestContentEdited',
            data: { ...about, revision: command.revision, editedBy: command.by, editedAt: command.now },
          },
        ];
      }
      case 'UpdateChangeRequest': {
        const refused = refuseWriter(id, 'update', command.space) ?? refuseChange(id, state);
        if (refused) return refused;
        if (command.base !== state.head.revisionId) return new StaleLineError(id, command.base, state.head.revisionId);
        if (command.main.revisionId === state.base.revisionId) return [];
        return [
          {
            type: 'ChangeRequestUpdated',
            data: {
              ...about,
              revision: command.revision,
              mergedAncestor: command.main.revisionId,
              mergedAncestorTree: command.main.tree,
              updatedBy: command.by,
              updatedAt: command.now,
            },
          },
        ];
      }
      case 'RequestReviewers': {
        if (!command.space.mayEdit) return DomainError.forbidden(`you may not request reviewers on change request ${id}`);
        // Only members of the organization can be named, and the answer is the same whether the others exist or not.
        if (command.notMembers.length > 0) return notMembersError(command.space.organizationId, command.notMembers);
        const refused = refuseChange(id, state);
        if (refused) return refused;
        const added = [...new Set(command.reviewers)].filter((reviewer) => !state.reviewers.has(reviewer));
        if (added.length === 0) return [];
        return [
          {
            type: 'ChangeRequestReviewersRequested',
            data: { ...about, reviewers: added, requestedBy: command.by, requestedAt: command.now },
          },
        ];
      }
      case 'RemoveReviewer': {
        const denied = refuseWriter(id, 'remove-reviewer', command.space);
        if (denied) return denied;
        if (!state.reviewers.has(command.reviewer))
          return DomainError.notFound(`user ${command.reviewer} is not a requested reviewer of change request ${id}`);
        const refused = refuseChange(id, state);
        if (refused) return refused;
        return [
          {
            type: 'ChangeRequestReviewerRemoved',
            data: { ...about, reviewer: command.reviewer, removedBy: command.by, removedAt: command.now },
          },
        ];
      }
      case 'ReviewChangeRequest': {
        if (!command.space.mayReview || command.by === null)
          return DomainError.forbidden(`you may not review change request ${id}: reviewing needs the review role`);
        if (command.by === state.created.createdBy) return DomainError.forbidden(`you cannot review your own change request ${id}`);
        const refused = refuseChange(id, state);
        if (refused) return refused;
        return [
          {
            type: 'ChangeRequestReviewed',
            data: {
              ...about,
              reviewId: command.reviewId,
              status: command.status,
              ...(command.body !== undefined ? { body: command.body } : {}),
              revision: state.head.revisionId,
              reviewedBy: command.by,
              reviewedAt: command.now,
            },
          },
        ];
      }
    }
  },
};

/**
 * The numbers given in a space: the last one, and the requests numbered most recently (a retried
 * creation comes right after its first attempt and keeps its number; remembering every request
 * would make each numbering cost the space's whole history).
 */
export interface NumberingState {
  last: number;
  numbers: ReadonlyMap<string, number>;
}

const REMEMBERED_NUMBERS = 64;

export const numberingDecider: Decider<
  { kind: 'NumberChangeRequest'; spaceId: string; changeRequestId: string },
  ChangeRequestNumberEvent,
  NumberingState
> = {
  initialState: () => ({ last: 0, numbers: new Map() }),
  evolve: (state, event) => ({
    last: Math.max(state.last, event.data.number),
    numbers: new Map([...[...state.numbers].slice(-(REMEMBERED_NUMBERS - 1)), [event.data.changeRequestId, event.data.number]]),
  }),
  decide: (command, state) =>
    state.numbers.has(command.changeRequestId)
      ? []
      : [
          {
            type: 'ChangeRequestNumbered',
            data: { spaceId: command.spaceId, changeRequestId: command.changeRequestId, number: state.last + 1 },
          },
        ],
};
