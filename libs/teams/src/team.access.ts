import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import { userOf, type Caller } from '#platform/http/auth';
import { isOrganizationRole, teamPermissions, type OrganizationRole, type TeamPermissions, type TeamRole } from '#platform/permissions';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { TEAM_MEMBERSHIPS, TEAMS, teamMembershipId, type TeamDoc, type TeamMembershipDoc } from './team.projections';
import { TEAM_ORGANIZATIONS, type TeamOrganizations } from './teams.needs';

/** Team memberships as several reads of the context need them (the list's `owner` filter, the caller's roles). */
@Injectable()
export class TeamDirectory {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  /** The ids of the teams of the organization a user is in (with that role, when given). */
  async teamIdsOf(organizationId: string, userId: string, role?: TeamRole): Promise<string[]> {
    const filter: Filter = { organizationId, userId, ...(role ? { role } : {}) };
    const teamIds: string[] = [];
    let after: string | undefined;
    do {
      const page = await this.reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).find(filter, { limit: 1000, after, count: false });
      teamIds.push(...page.items.map((m) => m.teamId));
      after = page.next;
    } while (after !== undefined);
    return teamIds;
  }

  /** The user's role in each of these teams where they have one. */
  async rolesOf(userId: string, teamIds: readonly string[]): Promise<Map<string, TeamRole>> {
    if (teamIds.length === 0) return new Map();
    const page = await this.reads
      .collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS)
      .find({ _id: { $in: teamIds.map((teamId) => teamMembershipId(teamId, userId)) } }, { limit: 1000, count: false });
    return new Map(page.items.map((m) => [m.teamId, m.role]));
  }
}

/**
 * The caller in an organization, and in one of its teams. It is also the `by` of the team
 * decider's commands (`TeamActor`): the caller with their organization role.
 */
export interface TeamViewer {
  userId: string;
  organizationRole: OrganizationRole;
}

/** The access checks the team commands and reads share: 404 for "invisible", 403 for "not allowed", decided here. */
@Injectable()
export class TeamAccess {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(TEAM_ORGANIZATIONS) private readonly membership: TeamOrganizations,
    private readonly directory: TeamDirectory,
  ) {}

  /** The caller and their organization role; 404 for people outside the organization. */
  async viewer(organizationId: string, caller: Caller): Promise<TeamViewer> {
    const userId = userOf(caller).userId;
    const organizationRole = await this.membership.requireMember(organizationId, caller);
    // Anything that is not a role (a member document without one) counts as none.
    return { userId, organizationRole: isOrganizationRole(organizationRole) ? organizationRole : null };
  }

  /** A live team of the organization the caller may see: 404 when there is none (or the caller is outside), 403 without `view`. */
  async team(
    organizationId: string,
    teamId: string,
    caller: Caller,
  ): Promise<{ team: TeamDoc; viewer: TeamViewer; permissions: TeamPermissions }> {
    const viewer = await this.viewer(organizationId, caller);
    const [team, roles] = await Promise.all([
      this.reads.collection<TeamDoc>(TEAMS).get(teamId),
      this.directory.rolesOf(viewer.userId, [teamId]),
    ]);
    if (!team || team.deletedAt !== undefined || team.organizationId !== organizationId) throw DomainError.notFound(`no team ${teamId}`);
    const permissions = teamPermissions(viewer.organizationRole, roles.get(teamId) ?? null);
    if (!permissions.view)
      throw DomainError.forbidden(`only members of team ${teamId} and of organization ${organizationId} with a role may see it`);
    return { team, viewer, permissions };
  }
}
