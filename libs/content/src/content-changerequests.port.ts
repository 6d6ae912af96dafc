import type { Caller } from '../../platform/src/http/auth';
import type { RevisionSource, TouchedPages } from './content.events';

/** A change request's line as content reads and writes it. */
export interface ContentChangeRequest {
  id: string;
  spaceId: string;
  status: string;
  /** Its latest revision and the main revision it builds on. */
  head: { revisionId: string; tree: string };
  base: { revisionId: string; tree: string };
}

/**
 * What content needs of the change-requests context (a port content owns, bound at the
 * composition root to ChangeRequestsForContent): the request a path names, with its line's head,
 * and one new revision on that line (the request's stream decides it: a merged or archived request
 * refuses, a moved head answers `stale` and content builds again on the new head).
 */
export interface ContentChangeRequests {
  /** The request named by id or number in the space, or 404 when the caller may not see it. */
  line(spaceId: string, ref: string, caller: Caller): Promise<ContentChangeRequest>;
  /** The request as the change-request reads present it (a merge revision's `mergedFrom`), or 404 when the caller may not see it. */
  presented(spaceId: string, changeRequestId: string, caller: Caller): Promise<Record<string, unknown>>;
  commitRevision(
    spaceId: string,
    changeRequestId: string,
    commit: { base: string; ifMatch?: string; revisionId: string; tree: string; pages: TouchedPages; source: RevisionSource },
    caller: Caller,
  ): Promise<'committed' | 'unchanged' | 'stale'>;
}

export const CONTENT_CHANGE_REQUESTS = Symbol('CONTENT_CHANGE_REQUESTS');
