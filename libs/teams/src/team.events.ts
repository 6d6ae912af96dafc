import type { TeamRole } from '#platform/permissions';

/**
 * Teams. One stream per team, `team-<teamId>`: the team and its membership, so that every rule
 * over the team's members is checked against one consistent state.
 */
export type TeamEvent =
  | { type: 'TeamCreated'; data: { teamId: string; organizationId: string; title: string; createdBy: string; createdAt: string } }
  | { type: 'TeamRenamed'; data: { teamId: string; organizationId: string; title: string } }
  | { type: 'TeamDeleted'; data: { teamId: string; organizationId: string; deletedAt: string } }
  | { type: 'TeamMemberAdded'; data: { teamId: string; organizationId: string; userId: string; role: TeamRole; addedAt: string } }
  | { type: 'TeamMemberRoleChanged'; data: { teamId: string; organizationId: string; userId: string; role: TeamRole } }
  | { type: 'TeamMemberRemoved'; data: { teamId: string; organizationId: string; userId: string } };

export type TeamEventType = TeamEvent['type'];

/**
 * The organizations context's event this context reacts to (its projection drops the user's team
 * memberships in that organization). Only the shape relied upon is written here.
 */
export interface OrganizationMemberRemoved {
  type: 'MemberRemoved';
  data: { organizationId: string; userId: string };
}

/**
 * The spaces context's team-access events this context counts (`spaces` on Team objects). Only the
 * shape relied upon is written here.
 */
export type SpaceTeamAccessEvent =
  | { type: 'SpaceTeamAccessSet'; data: { spaceId: string; teamId: string } }
  | { type: 'SpaceTeamAccessRemoved'; data: { spaceId: string; teamId: string } };
