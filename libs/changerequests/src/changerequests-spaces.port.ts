import type { Caller } from '../../platform/src/http/auth';

/** A space as change requests read it, with what the caller may do there (the spaces context's role rules). */
export interface ChangeRequestSpace {
  id: string;
  organizationId: string;
  title: string;
  editMode: 'live' | 'locked';
  visibility: string;
  deleted: boolean;
  createdAt: string;
  permissions: { view: boolean; edit: boolean; comment: boolean; admin: boolean; review: boolean; merge: boolean };
}

/** What change requests need of the spaces context (bound at the composition root to spaces' adapter). */
export interface ChangeRequestSpaces {
  /** The space, or 404 when the caller may not see it (exactly as `GET /spaces/{spaceId}` answers). */
  spaceFor(spaceId: string, caller: Caller): Promise<ChangeRequestSpace>;
  /** Live spaces of the organization the caller may read; 404 for people outside the organization. */
  readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>>;
  /** Whether the caller may read every space of the organization (members with an organization role); 404 for people outside it. */
  readsEverySpace(organizationId: string, caller: Caller): Promise<boolean>;
}

export const CHANGE_REQUEST_SPACES = Symbol('CHANGE_REQUEST_SPACES');

/** What change requests need of organizations: the organization's merge rule (`changeRequestsRequireApproval`), and who belongs to it. */
export interface ChangeRequestOrganizations {
  requiresApproval(organizationId: string): Promise<boolean>;
  /** Those of these users who are members of the organization (guests included): the only people a request may name. */
  membersAmong(organizationId: string, userIds: readonly string[]): Promise<ReadonlySet<string>>;
}

export const CHANGE_REQUEST_ORGANIZATIONS = Symbol('CHANGE_REQUEST_ORGANIZATIONS');

/** What change requests need of comments: open comments per request (the Change request object's `comments`). */
export interface ChangeRequestComments {
  openComments(changeRequestIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
}

export const CHANGE_REQUEST_COMMENTS = Symbol('CHANGE_REQUEST_COMMENTS');

/** What change requests need of identity: the users a request names, as identity presents them. */
export interface ChangeRequestUsers {
  byIds(userIds: readonly string[]): Promise<ReadonlyMap<string, { _id: string }>>;
  present(user: { _id: string }): { object: 'user'; id: string };
}

export const CHANGE_REQUEST_USERS = Symbol('CHANGE_REQUEST_USERS');
