/**
 * Everything the organizations context needs from outside it: the ports it declares (interfaces
 * with exactly the methods it uses, the types they speak in, and their tokens), each bound at the
 * composition root (libs/composition/src/contexts.ts) to another context's adapter or to a value.
 * Nothing here imports another context.
 */
import type { ListEnvelope } from '#platform/http/list';
import type { OrganizationRole } from '#platform/permissions';

// ---- identity (ORGANIZATION_USERS) --------------------------------------------------------------

/** A user as the organizations context reads it: only its id (identity presents the rest). */
export interface OrganizationUser {
  _id: string;
}

/** The identity context's User object, embedded as identity presents it (Member objects, `GET /v1/users/{userId}`). */
export interface PresentedUser {
  object: 'user';
  id: string;
}

/**
 * What the organizations context needs from the identity context, bound at the composition root:
 * users by id (one read for a page of members) and their User object.
 */
export interface OrganizationUsers {
  byId(userId: string): Promise<OrganizationUser | null>;
  byIds(userIds: readonly string[]): Promise<ReadonlyMap<string, OrganizationUser>>;
  present(user: OrganizationUser): PresentedUser;
}

export const ORGANIZATION_USERS = Symbol('ORGANIZATION_USERS');

// ---- teams (MEMBER_TEAM_COUNTS) -----------------------------------------------------------------

/** Per-member counts kept by other contexts (teams, spaces), joined in at read time. */
export interface MemberCounts {
  teamCountsByUser(organizationId: string, userIds: readonly string[]): Promise<Map<string, number>>;
}
export const MEMBER_TEAM_COUNTS = Symbol('MEMBER_TEAM_COUNTS');

// ---- spaces (MEMBER_SPACES) ---------------------------------------------------------------------

/** Members' spaces, from the spaces context: counts for member objects, and `GET /members/{userId}/spaces`. */
export interface MemberSpacesSource {
  spaceCountsByUser(
    organizationId: string,
    members: ReadonlyArray<{ userId: string; role: OrganizationRole }>,
  ): Promise<Map<string, number>>;
  list(
    organizationId: string,
    member: { userId: string; role: OrganizationRole },
    /** A member who may list members (so with an organization role). */
    caller: { userId: string; role: OrganizationRole },
    options: { page?: string; limit?: number; order?: 'asc' | 'desc' },
  ): Promise<ListEnvelope<unknown>>;
}
export const MEMBER_SPACES = Symbol('MEMBER_SPACES');

// ---- the composition root (VISITOR_CLAIMS_KEY, a value) -----------------------------------------

/** The secret that signs visitor claims, derived from the admin token (every API replica shares it; `visitorClaimsKey`). */
export const VISITOR_CLAIMS_KEY = Symbol('VISITOR_CLAIMS_KEY');
