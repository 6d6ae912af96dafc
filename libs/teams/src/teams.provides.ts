/**
 * What the teams context provides to other contexts: its implementations of ports they declare
 * (organizations, spaces, sso), matched structurally so that the consumer does not import this
 * context; the composition root binds them. Each injects only the buses and dispatches one of the
 * context's queries or commands.
 */
import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import { JoinTeamBySso } from './team.commands';
import { CheckLiveTeam, CountTeamsByUser, FindTeamForSso, FindTeamsAmong, ListTeamIdsByUser, ListTeamIdsOfMember } from './team.queries';

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

/** What single sign-on needs from teams (the sso context's SSO_TEAMS port). */
@Injectable()
export class TeamsForSso {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /** The Team object of a live team of the organization (an admin's permissions), or null. */
  async findTeam(organizationId: string, teamId: string): Promise<({ id: string; object: 'team' } & Record<string, unknown>) | null> {
    const team = await this.queryBus.execute(new FindTeamForSso(organizationId, teamId));
    return team ? { ...team } : null;
  }

  /** Adds a member of the organization to one of its teams as `member`, acting as the service (see JoinTeamBySso). */
  addMember(organizationId: string, teamId: string, userId: string, caller: Caller): Promise<void> {
    return this.commandBus.execute(new JoinTeamBySso(organizationId, teamId, userId, caller));
  }
}
