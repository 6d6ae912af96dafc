import type { Caller } from '../../platform/src/http/auth';

/** A space as comments read it, with what the caller may do there (the spaces context's role rules). */
export interface CommentSpace {
  id: string;
  organizationId: string;
  deleted: boolean;
  permissions: { view: boolean; comment: boolean; admin: boolean };
}

/** What comments need of the spaces context: the space a path names, as the caller may see it (404 otherwise). */
export interface CommentSpaces {
  spaceFor(spaceId: string, caller: Caller): Promise<CommentSpace>;
}

export const COMMENT_SPACES = Symbol('COMMENT_SPACES');

/** A change request as comments read it: its id and its head revision (where its comments sit). */
export interface CommentChangeRequest {
  id: string;
  revision: string;
}

/** What comments need of change requests: the request a path names (id or number), 404 when there is none. */
export interface CommentChangeRequests {
  changeRequestIn(spaceId: string, ref: string): Promise<CommentChangeRequest>;
}

export const COMMENT_CHANGE_REQUESTS = Symbol('COMMENT_CHANGE_REQUESTS');

/** What comments need of identity and organizations: users mentioned and shown, members listed (commenters). */
export interface CommentPeople {
  byIds(userIds: readonly string[]): Promise<ReadonlyMap<string, { _id: string; displayName?: string }>>;
  present(user: { _id: string }): { object: 'user'; id: string };
}

export const COMMENT_USERS = Symbol('COMMENT_USERS');

export interface CommentMembers {
  /** Member objects of the organization for these users (those still members), one read for the page. */
  presentMembers(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, { object: 'member'; id: string }>>;
  /** Those of these users who are members of the organization (guests included): the only people a comment may mention by name. */
  membersAmong(organizationId: string, userIds: readonly string[]): Promise<ReadonlySet<string>>;
}

export const COMMENT_MEMBERS = Symbol('COMMENT_MEMBERS');
