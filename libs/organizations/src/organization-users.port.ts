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
