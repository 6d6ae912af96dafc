import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { isOrganizationRole, teamPermissions, type OrganizationRole, type TeamPermissions, type TeamRole } from '../../platform/src/permissions';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { byIds } from '../../platform/src/by-ids';
import { LIVE_TEAM, TEAM_MEMBERSHIPS, TEAMS, teamMembershipId, type TeamDoc, type TeamMembershipDoc } from './team.projections';
import { TEAM_ORGANIZATIONS, type OrganizationMemberObject, type TeamOrganizations } from './team-organizations.port';

/** The Team resource. */
export interface TeamObject {
  object: 'team';
  id: string;
  title: string;
  members: number;
  spaces: number;
  createdAt: string;
  /** What the caller may do with the team. */
  permissions: TeamPermissions;
}

/** An item of `GET /teams/{teamId}/members`. */
export interface TeamMembershipItem {
  organization: OrganizationMemberObject;
  team: { role: TeamRole };
  permissions: { view: boolean };
}

/** An item of `GET /members/{userId}/teams`. */
export interface MemberTeamItem {
  team: TeamObject;
  member: { role: TeamRole };
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Case-insensitive "contains" on the title, through the lower-cased copy. */
const titleContains = (title: string | undefined): Filter => (title ? { titleLower: { $regex: escapeRegex(title.toLowerCase()) } } : {});

/**
 * Team memberships and live teams: the teams context's own reads, and what its adapters answer
 * other contexts' ports with (team.ports.ts: the `teams` count of organizations' Member objects, the
 * roles spaces grant to teams).
 */
@Injectable()
export class TeamDirectory {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  /**
   * How many (live) teams of the organization each user is in; users in none count 0. One count per
   * user on the `(organizationId, userId)` index, so a page of members costs the same however many
   * memberships the organization (or a member in every team) has.
   */
  async teamCountsByUser(organizationId: string, userIds: readonly string[]): Promise<Map<string, number>> {
    const memberships = this.reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS);
    const unique = [...new Set(userIds)];
    const counts = await Promise.all(unique.map((userId) => memberships.count({ organizationId, userId })));
    return new Map(unique.map((userId, i) => [userId, counts[i]]));
  }

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

  /** Those of `teamIds` (teams of the organization) the user is in: one membership lookup each. */
  async teamsAmong(organizationId: string, userId: string, teamIds: readonly string[]): Promise<string[]> {
    if (teamIds.length === 0) return [];
    const memberships = await byIds(this.reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS), teamIds.map((teamId) => teamMembershipId(teamId, userId)));
    return memberships.filter((membership) => membership.organizationId === organizationId).map((membership) => membership.teamId);
  }

  /** The ids of the organization's teams each user is in; users in none map to []. */
  async teamIdsByUser(organizationId: string, userIds: readonly string[]): Promise<Map<string, string[]>> {
    const teamIds = new Map<string, string[]>(userIds.map((userId) => [userId, []]));
    if (userIds.length === 0) return teamIds;
    const filter = { organizationId, userId: { $in: [...new Set(userIds)] } };
    let after: string | undefined;
    do {
      const page = await this.reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).find(filter, { limit: 1000, after, count: false });
      for (const membership of page.items) teamIds.get(membership.userId)?.push(membership.teamId);
      after = page.next;
    } while (after !== undefined);
    return teamIds;
  }

  /** Whether `teamId` is a live (not deleted) team of the organization. */
  async liveTeam(organizationId: string, teamId: string): Promise<boolean> {
    const team = await this.reads.collection<TeamDoc>(TEAMS).get(teamId);
    return team !== null && team.deletedAt === undefined && team.organizationId === organizationId;
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

@Injectable()
export class TeamPresenter {
  present(team: TeamDoc, permissions: TeamPermissions): TeamObject {
    return {
      object: 'team',
      id: team._id,
      title: team.title,
      members: team.members,
      spaces: team.spaces,
      createdAt: team.createdAt,
      permissions,
    };
  }
}

/** The caller in an organization, and in one of its teams. */
export interface TeamViewer {
  userId: string;
  organizationRole: OrganizationRole;
}

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
  async team(organizationId: string, teamId: string, caller: Caller): Promise<{ team: TeamDoc; viewer: TeamViewer; permissions: TeamPermissions }> {
    const viewer = await this.viewer(organizationId, caller);
    const [team, roles] = await Promise.all([this.reads.collection<TeamDoc>(TEAMS).get(teamId), this.directory.rolesOf(viewer.userId, [teamId])]);
    if (!team || team.deletedAt !== undefined || team.organizationId !== organizationId) throw DomainError.notFound(`no team ${teamId}`);
    const permissions = teamPermissions(viewer.organizationRole, roles.get(teamId) ?? null);
    if (!permissions.view) throw DomainError.forbidden(`only members of team ${teamId} and of organization ${organizationId} with a role may see it`);
    return { team, viewer, permissions };
  }
}

export interface TeamListOptions {
  page?: string;
  limit?: number;
  /** Member id: only the teams that member can manage. */
  owner?: string;
  /** Case-insensitive "contains". */
  title?: string;
}

/** The read side of teams, with the caller's permissions. */
@Injectable()
export class TeamQueries {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: TeamAccess,
    @Inject(TEAM_ORGANIZATIONS) private readonly organizations: TeamOrganizations,
    private readonly directory: TeamDirectory,
    private readonly presenter: TeamPresenter,
  ) {}

  /**
   * `GET /teams`, by title. Guests see the teams they are in. With `owner`: every team when that
   * member is an organization admin, else the teams they own; an `owner` outside the organization
   * manages none.
   */
  async list(organizationId: string, caller: Caller, options: TeamListOptions): Promise<ListEnvelope<TeamObject>> {
    const viewer = await this.access.viewer(organizationId, caller);
    const restrictions: Filter[] = [];
    if (viewer.organizationRole === null) restrictions.push({ _id: { $in: await this.directory.teamIdsOf(organizationId, viewer.userId) } });
    if (options.owner !== undefined) {
      const owner = await this.organizations.roleOf(organizationId, options.owner);
      if (!owner?.member) return listEnvelope<TeamObject>({ items: [], count: 0 });
      if (owner.role !== 'admin') restrictions.push({ _id: { $in: await this.directory.teamIdsOf(organizationId, options.owner, 'owner') } });
    }
    const filter: Filter = { organizationId, ...LIVE_TEAM, ...titleContains(options.title), ...(restrictions.length > 0 ? { $and: restrictions } : {}) };
    const page = await this.reads.collection<TeamDoc>(TEAMS).find(filter, { sort: { titleLower: 1 }, limit: options.limit, after: options.page });
    const roles = await this.directory.rolesOf(viewer.userId, page.items.map((team) => team._id));
    const items = page.items.map((team) => this.presenter.present(team, teamPermissions(viewer.organizationRole, roles.get(team._id) ?? null)));
    return listEnvelope({ items, count: page.count, next: page.next });
  }

  async get(organizationId: string, teamId: string, caller: Caller): Promise<{ team: TeamObject; revision: number }> {
    const { team, permissions } = await this.access.team(organizationId, teamId, caller);
    return { team: this.presenter.present(team, permissions), revision: team.revision };
  }

  /** `GET /teams/{teamId}/members`: in the order they joined, each with the organization's Member object. */
  async members(organizationId: string, teamId: string, caller: Caller, paging: { page?: string; limit?: number }): Promise<ListEnvelope<TeamMembershipItem>> {
    const { permissions } = await this.access.team(organizationId, teamId, caller);
    const found = await this.reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).find({ teamId }, { sort: { addedRevision: 1 }, limit: paging.limit, after: paging.page });
    const presented = await this.organizations.presentMembers(organizationId, found.items.map((m) => m.userId));
    const items = found.items.flatMap((membership): TeamMembershipItem[] => {
      const member = presented.get(membership.userId);
      return member ? [{ organization: member, team: { role: membership.role }, permissions: { view: permissions.view } }] : [];
    });
    return listEnvelope({ items, count: found.count, next: found.next });
  }

  /**
   * `GET /members/{userId}/teams`, by title: the member's teams with their role in each. Members of
   * the organization see anyone's; guests only their own (403 otherwise); people outside get 404.
   */
  async memberTeams(organizationId: string, userId: string, caller: Caller, options: { page?: string; limit?: number; title?: string }): Promise<ListEnvelope<MemberTeamItem>> {
    const viewer = await this.access.viewer(organizationId, caller);
    const self = viewer.userId === userId;
    if (!self && viewer.organizationRole === null) throw DomainError.forbidden('guests may only list their own teams');
    if (!self && !(await this.organizations.roleOf(organizationId, userId))?.member) throw DomainError.notFound(`no member ${userId} in organization ${organizationId}`);
    const found = await this.reads
      .collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS)
      .find({ organizationId, userId, ...titleContains(options.title) }, { sort: { titleLower: 1 }, limit: options.limit, after: options.page });
    const teamIds = found.items.map((m) => m.teamId);
    const [teams, viewerRoles] = await Promise.all([
      this.reads.collection<TeamDoc>(TEAMS).find({ _id: { $in: teamIds } }, { limit: 1000, count: false }),
      self ? new Map(found.items.map((m) => [m.teamId, m.role])) : this.directory.rolesOf(viewer.userId, teamIds),
    ]);
    const byId = new Map(teams.items.map((team) => [team._id, team]));
    const items = found.items.flatMap((membership): MemberTeamItem[] => {
      const team = byId.get(membership.teamId);
      if (!team) return [];
      const permissions = teamPermissions(viewer.organizationRole, viewerRoles.get(team._id) ?? null);
      return [{ team: this.presenter.present(team, permissions), member: { role: membership.role } }];
    });
    return listEnvelope({ items, count: found.count, next: found.next });
  }
}
