import { multiDocumentProjection, type ProjectedDoc, type Projection, type Recorded } from '#read-store/projections/projection';
import type { SpaceEvent } from '#spaces';
import type { ChangeRequestEvent, ChangeRequestLink, ChangeRequestStatus, ReviewStatus } from './changerequest.events';

export const CHANGE_REQUESTS = 'change_requests';
export const CHANGE_REQUEST_REVIEWS = 'change_request_reviews';
export const CHANGE_REQUEST_COUNTS = 'change_request_counts';

export interface ChangeRequestDoc extends ProjectedDoc {
  spaceId: string;
  organizationId: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string;
  /** The description's blob hash (its JSON document is in the blob store), when one was set. */
  description?: string;
  /** Absent on documents written before links were kept: none. */
  links?: ChangeRequestLink[];
  agentTaskId?: string;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  /** The request's head (`revision`), where it started, the main revision of its last update, its merge. */
  revision: string;
  revisionInitial: string;
  revisionMergedAncestor?: string;
  revisionMerged?: string;
  mergedBy?: string | null;
  mergedAt?: string;
  /** The main revision the line builds on: the request is outdated once main's head is another. */
  baseRevision: string;
  /** The creator and everyone who edited its content (the `contributor` filter). */
  contributors: string[];
  reviewers: string[];
  /** Revision of the `changerequest-<id>` stream: the ETag. */
  streamRevision: number;
  /** The space was purged: kept only as a tombstone. */
  purged?: true;
  /** The space is deleted (it may still be restored): organization-wide lists leave the request out. */
  spaceDeleted?: true;
}

export interface ReviewDoc extends ProjectedDoc {
  changeRequestId: string;
  spaceId: string;
  reviewer: string;
  status: ReviewStatus;
  body?: string;
  /** The request's head when given. */
  revision: string;
  createdAt: string;
}

/** Requests of a space by status, for the Space object's counters. */
export interface ChangeRequestCountsDoc extends ProjectedDoc {
  total: number;
  open: number;
  draft: number;
}

/**
 * The change-request read models: one document per request (guarded: the stream's document),
 * its reviews, and each space's counts, recounted from the requests whenever one is created or
 * changes status (so a count is always what the requests say).
 */
const projection = multiDocumentProjection<ChangeRequestEvent | SpaceEvent>({
  name: 'changerequests',
  collections: [CHANGE_REQUESTS, CHANGE_REQUEST_REVIEWS, CHANGE_REQUEST_COUNTS],
  indexes: [
    { collection: CHANGE_REQUESTS, fields: { spaceId: 1, status: 1, number: -1 } },
    { collection: CHANGE_REQUESTS, fields: { spaceId: 1, number: -1 } },
    { collection: CHANGE_REQUESTS, fields: { organizationId: 1, status: 1, createdAt: -1 } },
    // The lists' orders (`orderBy`: updatedAt, the platform's default, or createdAt).
    { collection: CHANGE_REQUESTS, fields: { spaceId: 1, status: 1, updatedAt: -1, number: -1 } },
    { collection: CHANGE_REQUESTS, fields: { spaceId: 1, status: 1, createdAt: -1, number: -1 } },
    { collection: CHANGE_REQUESTS, fields: { organizationId: 1, status: 1, updatedAt: -1, number: -1 } },
    { collection: CHANGE_REQUESTS, fields: { organizationId: 1, status: 1, createdAt: -1, number: -1 } },
    { collection: CHANGE_REQUEST_REVIEWS, fields: { changeRequestId: 1, createdAt: -1 } },
  ],
  handles: [
    'ChangeRequestCreated',
    'ChangeRequestSubjectChanged',
    'ChangeRequestDescriptionChanged',
    'ChangeRequestLinksChanged',
    'ChangeRequestStatusChanged',
    'ChangeRequestContentEdited',
    'ChangeRequestUpdated',
    'ChangeRequestReviewersRequested',
    'ChangeRequestReviewerRemoved',
    'ChangeRequestReviewed',
    'ChangeRequestMerged',
    'SpaceDeleted',
    'SpaceRestored',
    'SpacePurged',
    'SpaceTransferred',
  ],
  guard: (event) =>
    event.type.startsWith('ChangeRequest')
      ? { collection: CHANGE_REQUESTS, id: (event.data as { changeRequestId: string }).changeRequestId }
      : null,
  async apply(event: Recorded<ChangeRequestEvent | SpaceEvent>, documents) {
    const requests = documents.collection<ChangeRequestDoc>(CHANGE_REQUESTS);
    const reviews = documents.collection<ReviewDoc>(CHANGE_REQUEST_REVIEWS);
    const counts = documents.collection<ChangeRequestCountsDoc>(CHANGE_REQUEST_COUNTS);
    const recount = async (spaceId: string) => {
      const [total, open, draft] = await Promise.all([
        requests.count({ spaceId }),
        requests.count({ spaceId, status: 'open' }),
        requests.count({ spaceId, status: 'draft' }),
      ]);
      await counts.put({ _id: spaceId, total, open, draft });
    };
    if (event.type === 'SpaceDeleted') {
      await requests.updateMany({ spaceId: event.data.spaceId }, { $set: { spaceDeleted: true } });
      return;
    }
    if (event.type === 'SpaceRestored') {
      await requests.updateMany({ spaceId: event.data.spaceId }, { $unset: { spaceDeleted: '' } });
      return;
    }
    if (event.type === 'SpacePurged') {
      await requests.updateMany({ spaceId: event.data.spaceId }, { $set: { purged: true } });
      await counts.delete(event.data.spaceId);
      return;
    }
    if (event.type === 'SpaceTransferred') {
      await requests.updateMany({ spaceId: event.data.spaceId }, { $set: { organizationId: event.data.organizationId } });
      return;
    }
    if (!event.type.startsWith('ChangeRequest')) return;
    const data = event.data as ChangeRequestEvent['data'];
    if (event.type === 'ChangeRequestCreated') {
      const created = (event as Recorded<Extract<ChangeRequestEvent, { type: 'ChangeRequestCreated' }>>).data;
      await requests.put({
        _id: created.changeRequestId,
        spaceId: created.spaceId,
        organizationId: created.organizationId,
        number: created.number,
        status: created.status,
        subject: created.subject,
        ...(created.agentTaskId !== undefined ? { agentTaskId: created.agentTaskId } : {}),
        createdBy: created.createdBy,
        createdAt: created.createdAt,
        updatedAt: created.createdAt,
        revision: created.revisionInitial,
        revisionInitial: created.revisionInitial,
        baseRevision: created.revisionInitial,
        contributors: created.createdBy === null ? [] : [created.createdBy],
        reviewers: [],
        streamRevision: event.revision,
      });
      await recount(created.spaceId);
      return;
    }
    const request = await requests.get(data.changeRequestId);
    if (!request) return;
    const stamp = { streamRevision: event.revision };
    switch (event.type) {
      case 'ChangeRequestSubjectChanged':
        await requests.update(request._id, { $set: { ...stamp, subject: event.data.subject, updatedAt: event.data.changedAt } });
        return;
      case 'ChangeRequestDescriptionChanged':
        await requests.update(request._id, { $set: { ...stamp, description: event.data.description, updatedAt: event.data.changedAt } });
        return;
      case 'ChangeRequestLinksChanged':
        await requests.update(request._id, { $set: { ...stamp, links: event.data.links, updatedAt: event.data.changedAt } });
        return;
      case 'ChangeRequestStatusChanged':
        await requests.update(request._id, { $set: { ...stamp, status: event.data.to, updatedAt: event.data.changedAt } });
        await recount(request.spaceId);
        return;
      case 'ChangeRequestContentEdited': {
        const editor = event.data.editedBy;
        await requests.update(request._id, {
          $set: {
            ...stamp,
            revision: event.data.revision.revisionId,
            updatedAt: event.data.editedAt,
            ...(editor !== null && !request.contributors.includes(editor) ? { contributors: [...request.contributors, editor] } : {}),
          },
        });
        return;
      }
      case 'ChangeRequestUpdated':
        await requests.update(request._id, {
          $set: {
            ...stamp,
            revision: event.data.revision.revisionId,
            revisionMergedAncestor: event.data.mergedAncestor,
            baseRevision: event.data.mergedAncestor,
            updatedAt: event.data.updatedAt,
          },
        });
        return;
      case 'ChangeRequestReviewersRequested':
        await requests.update(request._id, {
          $set: { ...stamp, reviewers: [...new Set([...request.reviewers, ...event.data.reviewers])], updatedAt: event.data.requestedAt },
        });
        return;
      case 'ChangeRequestReviewerRemoved':
        await requests.update(request._id, {
          $set: {
            ...stamp,
            reviewers: request.reviewers.filter((reviewer) => reviewer !== event.data.reviewer),
            updatedAt: event.data.removedAt,
          },
        });
        return;
      case 'ChangeRequestReviewed':
        await reviews.put({
          _id: event.data.reviewId,
          changeRequestId: request._id,
          spaceId: request.spaceId,
          reviewer: event.data.reviewedBy,
          status: event.data.status,
          ...(event.data.body !== undefined ? { body: event.data.body } : {}),
          revision: event.data.revision,
          createdAt: event.data.reviewedAt,
        });
        await requests.update(request._id, { $set: { ...stamp, updatedAt: event.data.reviewedAt } });
        return;
      case 'ChangeRequestMerged':
        await requests.update(request._id, {
          $set: {
            ...stamp,
            status: 'merged',
            revisionMerged: event.data.revisionMerged,
            mergedBy: event.data.mergedBy,
            mergedAt: event.data.mergedAt,
            updatedAt: event.data.mergedAt,
          },
        });
        await recount(request.spaceId);
        return;
    }
  },
});

/** Version 1: `description` and `links`, and the lists' orders by update and creation. */
export const changeRequestProjection: Projection = { ...projection, version: 1 };
