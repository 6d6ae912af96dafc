import type { Caller } from '#platform/http/auth';
import type { CommentBody } from './comment.events';

/*
 * What the comments context needs of others: every port it consumes, the types they speak in, and
 * their tokens. Each is bound at the composition root (libs/composition/src/contexts.ts) to an
 * adapter another context provides.
 */

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

/** A page as a comment's target shows it. */
export interface CommentPage {
  id: string;
  title: string;
  emoji?: string;
  icon?: string;
  createdAt: string;
  updatedAt: string;
  path: string;
}

/**
 * What comments need of the content context (bound to content's ContentForComments): bodies
 * converted with content's converter, and the pages and blocks comments point at.
 */
export interface CommentContent {
  /**
   * A body as a document (markdown through content's converter, or a JSON document validated: 400
   * when invalid) and as markdown rendered from that document, both off the request thread.
   */
  document(body: { markdown: string } | { document: unknown }): Promise<{ document: CommentBody; markdown: string }>;
  /** A stored body's markdown, rendered when read: only for bodies stored without their markdown. */
  markdown(document: CommentBody): string;
  /** The page (and the block with that key) in a revision of the space; null when the page is not there, `node` null when the block is not. */
  target(
    spaceId: string,
    revisionId: string,
    pageId: string,
    nodeKey?: string,
  ): Promise<{ page: CommentPage; node: { preview: string; fingerprint: string } | null } | null>;
  /** For each target, the fingerprint of the block in that revision (null when the page or the block is gone), and the page as it is there. */
  current(
    spaceId: string,
    revisionId: string,
    targets: ReadonlyArray<{ pageId: string; nodeKey?: string }>,
  ): Promise<Array<{ page: CommentPage | null; fingerprint: string | null }>>;
  /** The head revision of the space's main line. */
  head(spaceId: string): Promise<string>;
}

export const COMMENT_CONTENT = Symbol('COMMENT_CONTENT');
