/**
 * The teams context's implementations of ports other contexts declare (organizations, spaces),
 * matched structurally so that the consumer does not import this context; the composition root
 * binds them. Each dispatches one of the context's queries. (TeamsForSso, for the sso context, is
 * in team.sso.ts.)
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CheckLiveTeam, CountTeamsByUser, FindTeamsAmong, ListTeamIdsByUser, ListTeamIdsOfMember } from './team.queries';

/** What teams offer the organizations context (its MEMBER_TEAM_COUNTS port): the `teams` count of Member objects. */
@Injectable()
export class TeamsForOrganizations {
  constructor(private readonly queryBus: QueryBus) {}

  teamCountsByUser(organizationId: string, userIds: readonly string[]): Promise<Map<string, number>> {
    return this.queryBus.execute(new CountTeamsByUser(organizationId, userIds));
  }
}

/** What teams offer the spaces context (its SPACE_TEAMS port): memberships and live teams, for the roles spaces grant to teams. */
@Injectable()
export class TeamsForSpaces {
  constructor(private readonly queryBus: QueryBus) {}

  teamIdsOf(organizationId: string, userId: string): Promise<string[]> {
    return this.queryBus.execute(new ListTeamIdsOfMember(organizationId, userId));
  }

  teamIdsByUser(organizationId: string, userIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.queryBus.execute(new ListTeamIdsByUser(organizationId, userIds));
  }

  liveTeam(organizationId: string, teamId: string): Promise<boolean> {
    return this.queryBus.execute(new CheckLiveTeam(organizationId, teamId));
  }

  teamsAmong(organizationId: string, userId: string, teamIds: readonly string[]): Promise<string[]> {
    return this.queryBus.execute(new FindTeamsAmong(organizationId, userId, teamIds));
  }
}
