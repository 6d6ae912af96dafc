import type { ContentRevisionSource, TouchedPageIds } from './changerequests.needs';

/**
 * Change requests. One stream per request, `changerequest-<changeRequestId>`: its lifecycle, its
 * reviews and its own line of revisions (each content edit and each update from main is one
 * revision, carried by the event as the tree's root hash, like content's main line). A request's
 * number comes from one small stream per space, `changerequestnumbers-<spaceId>`, so two requests
 * created at once never share a number.
 */
export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

export const REVIEW_STATUSES = ['approved', 'changes-requested'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A revision of a change request's line, as content's revisions read it. */
export interface LineRevision {
  revisionId: string;
  parents: string[];
  revisionType: 'edits' | 'update';
  tree: string;
  pages: TouchedPageIds;
  source: ContentRevisionSource;
}

/** An external link of a change request (the platform's ChangeRequestLink, a URL reference). */
export interface ChangeRequestLink {
  id: string;
  url: string;
  title?: string;
}

/** Most links a change request holds (the platform's ChangeRequestLinks). */
export const MAX_CHANGE_REQUEST_LINKS = 10;

interface About {
  changeRequestId: string;
  spaceId: string;
  organizationId: string;
}

export type ChangeRequestEvent =
  | {
      type: 'ChangeRequestCreated';
      data: About & {
        number: number;
        subject: string;
        agentTaskId?: string;
        status: 'draft' | 'open';
        /** The main revision it branched from (`revisionInitial`) and its tree. */
        revisionInitial: string;
        tree: string;
        createdBy: string | null;
        createdAt: string;
      };
    }
  | { type: 'ChangeRequestSubjectChanged'; data: About & { subject: string; changedBy: string | null; changedAt: string } }
  /** The description set: its JSON document in the blob store by hash (`ChangeRequestDescriptions`), never in the event. */
  | { type: 'ChangeRequestDescriptionChanged'; data: About & { description: string; changedBy: string | null; changedAt: string } }
  /** The links set, all of them (the platform's PATCH replaces the list). */
  | { type: 'ChangeRequestLinksChanged'; data: About & { links: ChangeRequestLink[]; changedBy: string | null; changedAt: string } }
  | {
      type: 'ChangeRequestStatusChanged';
      data: About & { from: ChangeRequestStatus; to: Exclude<ChangeRequestStatus, 'merged'>; changedBy: string | null; changedAt: string };
    }
  | { type: 'ChangeRequestContentEdited'; data: About & { revision: LineRevision; editedBy: string | null; editedAt: string } }
  /** Main merged into the request's line: `mergedAncestor` is the main revision it now builds on. */
  | {
      type: 'ChangeRequestUpdated';
      data: About & {
        revision: LineRevision;
        mergedAncestor: string;
        mergedAncestorTree: string;
        updatedBy: string | null;
        updatedAt: string;
      };
    }
  | { type: 'ChangeRequestReviewersRequested'; data: About & { reviewers: string[]; requestedBy: string | null; requestedAt: string } }
  | { type: 'ChangeRequestReviewerRemoved'; data: About & { reviewer: string; removedBy: string | null; removedAt: string } }
  | {
      type: 'ChangeRequestReviewed';
      data: About & { reviewId: string; status: ReviewStatus; body?: string; revision: string; reviewedBy: string; reviewedAt: string };
    }
  /** The request merged into main as the main revision `revisionMerged`; its line's head `mergedHead` is what was merged. */
  | {
      type: 'ChangeRequestMerged';
      data: About & { revisionMerged: string; mergedHead: string; mergedBy: string | null; mergedAt: string };
    };

/** `changerequestnumbers-<spaceId>`: one event per request created in the space. */
export type ChangeRequestNumberEvent = {
  type: 'ChangeRequestNumbered';
  data: { spaceId: string; changeRequestId: string; number: number };
};
