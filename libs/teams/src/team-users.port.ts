/** A user as the teams context reads it: only its id. */
export interface TeamUser {
  _id: string;
}

/**
 * What the teams context needs from the identity context, bound at the composition root: who the
 * entries of a team change (user ids or e-mail addresses) name.
 */
export interface TeamUsers {
  byIds(userIds: readonly string[]): Promise<ReadonlyMap<string, TeamUser>>;
  byEmail(email: string): Promise<TeamUser | null>;
}

export const TEAM_USERS = Symbol('TEAM_USERS');
