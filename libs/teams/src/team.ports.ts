/**
 * The teams context's implementations of ports other contexts declare (organizations, spaces),
 * matched structurally so that the consumer does not import this context; the composition root
 * binds them. (TeamsForSso, for the sso context, is in team.sso.ts.)
 */
import { Injectable } from '@nestjs/common';
import { TeamDirectory } from './team.queries';

/** What teams offer the organizations context (its MEMBER_TEAM_COUNTS port): the `teams` count of Member objects. */
@Injectable()
export class TeamsForOrganizations {
  constructor(private readonly directory: TeamDirectory) {}

  teamCountsByUser(organizationId: string, userIds: readonly string[]): Promise<Map<string, number>> {
    return this.directory.teamCountsByUser(organizationId, userIds);
  }
}

/** What teams offer the spaces context (its SPACE_TEAMS port): memberships and live teams, for the roles spaces grant to teams. */
@Injectable()
export class TeamsForSpaces {
  constructor(private readonly directory: TeamDirectory) {}

  teamIdsOf(organizationId: string, userId: string): Promise<string[]> {
    return this.directory.teamIdsOf(organizationId, userId);
  }

  teamIdsByUser(organizationId: string, userIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.directory.teamIdsByUser(organizationId, userIds);
  }

  liveTeam(organizationId: string, teamId: string): Promise<boolean> {
    return this.directory.liveTeam(organizationId, teamId);
  }

  teamsAmong(organizationId: string, userId: string, teamIds: readonly string[]): Promise<string[]> {
    return this.directory.teamsAmong(organizationId, userId, teamIds);
  }
}
