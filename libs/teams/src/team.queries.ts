import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { teamPermissions, type TeamPermissions, type TeamRole } from '#platform/permissions';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { byIds } from '#platform/by-ids';
import { TeamAccess, TeamDirectory } from './team.access';
import {
  LIVE_TEAM,
  TEAM_MEMBER_COUNTS,
  TEAM_MEMBERSHIPS,
  TEAMS,
  teamMemberCountId,
  teamMembershipId,
  type TeamDoc,
  type TeamMemberCountDoc,
  type TeamMembershipDoc,
} from './team.projections';
import { TEAM_ORGANIZATIONS, type OrganizationMemberObject, type TeamOrganizations } from './teams.needs';

/* The team reads, with the caller's permissions; and what the adapters answer other contexts' ports with (teams.provides.ts). */

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

export function presentTeam(team: TeamDoc, permissions: TeamPermissions): TeamObject {
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

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Case-insensitive "contains" on the title, through the lower-cased copy. */
const titleContains = (title: string | undefined): Filter => (title ? { titleLower: { $regex: escapeRegex(title.toLowerCase()) } } : {});

export interface TeamListOptions {
  page?: string;
  limit?: number;
  /** Member id: only the teams that member can manage. */
  owner?: string;
  /** Case-insensitive "contains". */
  title?: string;
}

/**
 * `GET /teams`, by title. Guests see the teams they are in. With `owner`: every team when that
 * member is an organization admin, else the teams they own; an `owner` outside the organization
 * manages none.
 */
export class ListTeams extends Query<ListEnvelope<TeamObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly options: TeamListOptions,
  ) {
    super();
  }
}

@QueryHandler(ListTeams)
export class ListTeamsHandler implements IQueryHandler<ListTeams> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(TEAM_ORGANIZATIONS) private readonly organizations: TeamOrganizations,
    private readonly access: TeamAccess,
    private readonly directory: TeamDirectory,
  ) {}

  async execute({ organizationId, caller, options }: ListTeams): Promise<ListEnvelope<TeamObject>> {
    const viewer = await this.access.viewer(organizationId, caller);
    const restrictions: Filter[] = [];
    if (viewer.organizationRole === null)
      restrictions.push({ _id: { $in: await this.directory.teamIdsOf(organizationId, viewer.userId) } });
    if (options.owner !== undefined) {
      const owner = await this.organizations.roleOf(organizationId, options.owner);
      if (!owner?.member) return listEnvelope<TeamObject>({ items: [], count: 0 });
      if (owner.role !== 'admin')
        restrictions.push({ _id: { $in: await this.directory.teamIdsOf(organizationId, options.owner, 'owner') } });
    }
    const filter: Filter = {
      organizationId,
      ...LIVE_TEAM,
      ...titleContains(options.title),
      ...(restrictions.length > 0 ? { $and: restrictions } : {}),
    };
    const page = await this.reads
      .collection<TeamDoc>(TEAMS)
      .find(filter, { sort: { titleLower: 1 }, limit: options.limit, after: options.page });
    const roles = await this.directory.rolesOf(
      viewer.userId,
      page.items.map((team) => team._id),
    );
    const items = page.items.map((team) => presentTeam(team, teamPermissions(viewer.organizationRole, roles.get(team._id) ?? null)));
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/** `GET /teams/{teamId}`: the team and its ETag source (the stream revision). */
export class GetTeam extends Query<{ team: TeamObject; revision: number }> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetTeam)
export class GetTeamHandler implements IQueryHandler<GetTeam> {
  constructor(private readonly access: TeamAccess) {}

  async execute({ organizationId, teamId, caller }: GetTeam): Promise<{ team: TeamObject; revision: number }> {
    const { team, permissions } = await this.access.team(organizationId, teamId, caller);
    return { team: presentTeam(team, permissions), revision: team.revision };
  }
}

/** `GET /teams/{teamId}/members`: in the order they joined, each with the organization's Member object. */
export class ListTeamMembers extends Query<ListEnvelope<TeamMembershipItem>> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListTeamMembers)
export class ListTeamMembersHandler implements IQueryHandler<ListTeamMembers> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(TEAM_ORGANIZATIONS) private readonly organizations: TeamOrganizations,
    private readonly access: TeamAccess,
  ) {}

  async execute({ organizationId, teamId, caller, paging }: ListTeamMembers): Promise<ListEnvelope<TeamMembershipItem>> {
    const { permissions } = await this.access.team(organizationId, teamId, caller);
    const found = await this.reads
      .collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS)
      .find({ teamId }, { sort: { addedRevision: 1 }, limit: paging.limit, after: paging.page });
    const presented = await this.organizations.presentMembers(
      organizationId,
      found.items.map((m) => m.userId),
    );
    const items = found.items.flatMap((membership): TeamMembershipItem[] => {
      const member = presented.get(membership.userId);
      return member ? [{ organization: member, team: { role: membership.role }, permissions: { view: permissions.view } }] : [];
    });
    return listEnvelope({ items, count: found.count, next: found.next });
  }
}

/**
 * `GET /members/{userId}/teams`, by title: the member's teams with their role in each. Members of
 * the organization see anyone's; guests only their own (403 otherwise); people outside get 404.
 */
export class ListMemberTeams extends Query<ListEnvelope<MemberTeamItem>> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly caller: Caller,
    readonly options: { page?: string; limit?: number; title?: string },
  ) {
    super();
  }
}

@QueryHandler(ListMemberTeams)
export class ListMemberTeamsHandler implements IQueryHandler<ListMemberTeams> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(TEAM_ORGANIZATIONS) private readonly organizations: TeamOrganizations,
    private readonly access: TeamAccess,
    private readonly directory: TeamDirectory,
  ) {}

  async execute({ organizationId, userId, caller, options }: ListMemberTeams): Promise<ListEnvelope<MemberTeamItem>> {
    const viewer = await this.access.viewer(organizationId, caller);
    const self = viewer.userId === userId;
    if (!self && viewer.organizationRole === null) throw DomainError.forbidden('guests may only list their own teams');
    if (!self && !(await this.organizations.roleOf(organizationId, userId))?.member)
      throw DomainError.notFound(`no member ${userId} in organization ${organizationId}`);
    const found = await this.reads
      .collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS)
      .find(
        { organizationId, userId, ...titleContains(options.title) },
        { sort: { titleLower: 1 }, limit: options.limit, after: options.page },
      );
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
      return [{ team: presentTeam(team, permissions), member: { role: membership.role } }];
    });
    return listEnvelope({ items, count: found.count, next: found.next });
  }
}

/*
 * What the adapters answer other contexts' ports with: no caller (the consuming context has made
 * its own checks), one read each, in the batch shapes the ports ask for.
 */

/**
 * For organizations' Member objects (`teams`): how many (live) teams of the organization each user
 * is in; users in none count 0. The projection keeps each user's count (`team_member_counts`), so a
 * page of members is one read by ids, however many memberships the organization has.
 */
export class CountTeamsByUser extends Query<Map<string, number>> {
  constructor(
    readonly organizationId: string,
    readonly userIds: readonly string[],
  ) {
    super();
  }
}

@QueryHandler(CountTeamsByUser)
export class CountTeamsByUserHandler implements IQueryHandler<CountTeamsByUser> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ organizationId, userIds }: CountTeamsByUser): Promise<Map<string, number>> {
    const unique = [...new Set(userIds)];
    const counts = new Map(unique.map((userId) => [userId, 0]));
    if (unique.length === 0) return counts;
    const kept = await byIds(
      this.reads.collection<TeamMemberCountDoc>(TEAM_MEMBER_COUNTS),
      unique.map((userId) => teamMemberCountId(organizationId, userId)),
    );
    for (const doc of kept) if (doc.organizationId === organizationId) counts.set(doc.userId, doc.teams);
    return counts;
  }
}

/** For the roles spaces grant to teams: the ids of the teams of the organization a user is in. */
export class ListTeamIdsOfMember extends Query<string[]> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
  ) {
    super();
  }
}

@QueryHandler(ListTeamIdsOfMember)
export class ListTeamIdsOfMemberHandler implements IQueryHandler<ListTeamIdsOfMember> {
  constructor(private readonly directory: TeamDirectory) {}

  execute({ organizationId, userId }: ListTeamIdsOfMember): Promise<string[]> {
    return this.directory.teamIdsOf(organizationId, userId);
  }
}

/** For the roles spaces grant to teams, a page of users at once: the ids of the organization's teams each user is in; users in none map to []. */
export class ListTeamIdsByUser extends Query<Map<string, string[]>> {
  constructor(
    readonly organizationId: string,
    readonly userIds: readonly string[],
  ) {
    super();
  }
}

@QueryHandler(ListTeamIdsByUser)
export class ListTeamIdsByUserHandler implements IQueryHandler<ListTeamIdsByUser> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ organizationId, userIds }: ListTeamIdsByUser): Promise<Map<string, string[]>> {
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
}

/** For spaces granting a role to a team: whether `teamId` is a live (not deleted) team of the organization. */
export class CheckLiveTeam extends Query<boolean> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
  ) {
    super();
  }
}

@QueryHandler(CheckLiveTeam)
export class CheckLiveTeamHandler implements IQueryHandler<CheckLiveTeam> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ organizationId, teamId }: CheckLiveTeam): Promise<boolean> {
    const team = await this.reads.collection<TeamDoc>(TEAMS).get(teamId);
    return team !== null && team.deletedAt === undefined && team.organizationId === organizationId;
  }
}

/** For spaces: those of `teamIds` (teams of the organization) the user is in, one membership lookup each. */
export class FindTeamsAmong extends Query<string[]> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly teamIds: readonly string[],
  ) {
    super();
  }
}

@QueryHandler(FindTeamsAmong)
export class FindTeamsAmongHandler implements IQueryHandler<FindTeamsAmong> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ organizationId, userId, teamIds }: FindTeamsAmong): Promise<string[]> {
    if (teamIds.length === 0) return [];
    const memberships = await byIds(
      this.reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS),
      teamIds.map((teamId) => teamMembershipId(teamId, userId)),
    );
    return memberships.filter((membership) => membership.organizationId === organizationId).map((membership) => membership.teamId);
  }
}

/**
 * For single sign-on: the Team object of a live team of the organization, or null. SAML providers
 * (which embed it as `defaultTeam`) are managed by organization admins, so its permissions are an admin's.
 */
export class FindTeamForSso extends Query<TeamObject | null> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
  ) {
    super();
  }
}

@QueryHandler(FindTeamForSso)
export class FindTeamForSsoHandler implements IQueryHandler<FindTeamForSso> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ organizationId, teamId }: FindTeamForSso): Promise<TeamObject | null> {
    const team = await this.reads.collection<TeamDoc>(TEAMS).get(teamId);
    if (!team || team.deletedAt !== undefined || team.organizationId !== organizationId) return null;
    return presentTeam(team, teamPermissions('admin', null));
  }
}

export const teamQueryHandlers = [
  ListTeamsHandler,
  GetTeamHandler,
  ListTeamMembersHandler,
  ListMemberTeamsHandler,
  CountTeamsByUserHandler,
  ListTeamIdsOfMemberHandler,
  ListTeamIdsByUserHandler,
  CheckLiveTeamHandler,
  FindTeamsAmongHandler,
  FindTeamForSsoHandler,
];
