import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Caller } from '../../platform/src/http/auth';
import { JoinTeamBySso } from './team.commands';
import { FindTeamForSso } from './team.queries';

/**
 * What single sign-on needs from teams (the sso context's SSO_TEAMS port, matched structurally so
 * that neither context imports the other; bound at the composition root).
 */
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
