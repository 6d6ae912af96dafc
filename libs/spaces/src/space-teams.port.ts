/**
 * What the spaces context needs from the teams context, for the roles spaces grant to teams, bound
 * at the composition root:
 * - `teamIdsOf`: the ids of the organization's teams a user is in;
 * - `teamIdsByUser`: the same for several users in one read (users in none map to []);
 * - `teamsAmong`: those of `teamIds` the user is in (by membership, so as cheap for a member of
 *   every team as for a member of none);
 * - `liveTeam`: whether `teamId` is a live (not deleted) team of the organization.
 */
export interface SpaceTeams {
  teamIdsOf(organizationId: string, userId: string): Promise<readonly string[]>;
  teamIdsByUser(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>>;
  teamsAmong(organizationId: string, userId: string, teamIds: readonly string[]): Promise<readonly string[]>;
  liveTeam(organizationId: string, teamId: string): Promise<boolean>;
}

export const SPACE_TEAMS = Symbol('SPACE_TEAMS');
