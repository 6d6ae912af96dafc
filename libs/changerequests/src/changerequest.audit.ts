import { auditCatalog } from '#platform/audit-catalog';
import type { ChangeRequestEvent } from './changerequest.events';

const target = (data: { changeRequestId: string }) => ({ type: 'change-request', id: data.changeRequestId });

/** Every change-request event is one audit entry on the request, in the space's organization. */
export const changeRequestAuditCatalog = auditCatalog<ChangeRequestEvent>({
  ChangeRequestCreated: (data) => ({
    action: 'change_request.created',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, number: data.number },
  }),
  ChangeRequestSubjectChanged: (data) => ({
    action: 'change_request.renamed',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, subject: data.subject },
  }),
  ChangeRequestStatusChanged: (data) => ({
    action: 'change_request.status_changed',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, from: data.from, to: data.to },
  }),
  ChangeRequestContentEdited: (data) => ({
    action: 'change_request.content_edited',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, revision: data.revision.revisionId, pages: data.revision.pages },
  }),
  ChangeRequestUpdated: (data) => ({
    action: 'change_request.updated_from_main',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, revision: data.revision.revisionId, main: data.mergedAncestor },
  }),
  ChangeRequestReviewersRequested: (data) => ({
    action: 'change_request.reviewers_requested',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, reviewers: data.reviewers },
  }),
  ChangeRequestReviewerRemoved: (data) => ({
    action: 'change_request.reviewer_removed',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, reviewer: data.reviewer },
  }),
  ChangeRequestReviewed: (data) => ({
    action: 'change_request.reviewed',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, review: data.reviewId, status: data.status },
  }),
  ChangeRequestMerged: (data) => ({
    action: 'change_request.merged',
    organizationId: data.organizationId,
    target: target(data),
    details: { space: data.spaceId, revision: data.revisionMerged },
  }),
});
