import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { teamPermissions } from '../../platform/src/permissions';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { teamDecider, teamStream } from './team.decider';
import { TEAMS, type TeamDoc } from './team.projections';
import { TeamPresenter, type TeamObject } from './team.queries';
import { TEAM_ORGANIZATIONS, type TeamOrganizations } from './team-organizations.port';

/**
 * What single sign-on needs from teams (the sso context's SSO_TEAMS port, matched structurally so
 * that neither context imports the other; bound at the composition root).
 */
@Injectable()
export class TeamsForSso {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(TEAM_ORGANIZATIONS) private readonly membership: TeamOrganizations,
    private readonly presenter: TeamPresenter,
  ) {}

  /**
   * The Team object of a live team of the organization, or null. SAML providers (which embed it as
   * `defaultTeam`) are managed by organization admins, so its permissions are an admin's.
   */
  async findTeam(organizationId: string, teamId: string): Promise<({ id: string; object: 'team' } & Record<string, unknown>) | null> {
    const team = await this.reads.collection<TeamDoc>(TEAMS).get(teamId);
    if (!team || team.deletedAt !== undefined || team.organizationId !== organizationId) return null;
    const presented: TeamObject = this.presenter.present(team, teamPermissions('admin', null));
    return { ...presented };
  }

  /**
   * Adds a member of the organization to one of its teams as `member` (no user permission check:
   * the SAML login acts as the service); someone already in the team is left as they are.
   * 404 for a team that is gone, 400 for a user outside the organization.
   */
  async addMember(organizationId: string, teamId: string, userId: string, caller: Caller): Promise<void> {
    if (!(await this.membership.roleOf(organizationId, userId))?.member) throw DomainError.invalid(`not members of organization ${organizationId}: ${JSON.stringify(userId)}`);
    const now = this.commands.now().toISOString();
    await this.commands.run(teamStream(teamId), teamDecider, { kind: 'JoinTeamBySso', teamId, organizationId, userId, now }, { caller, source: 'system' });
  }
}
