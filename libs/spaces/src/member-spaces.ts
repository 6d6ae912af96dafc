import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SpaceFactsReader } from './space-facts';
import { ORGANIZATION_ROLES, type OrganizationRole } from '#platform/permissions';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { SPACE_TEAMS, type SpaceTeams } from './spaces.needs';
import { SpaceAccess, SpacePresenter, type SpaceObject } from './space.access';
import { LIVE_SPACE, SPACES, type SpaceDoc } from './space.projections';
import { contentRole, type OrganizationStanding } from './space.permissions';

/** A member's access to one space: `GET /v1/orgs/{id}/members/{userId}/spaces` items. */
export interface MemberSpaceItem {
  permission: OrganizationRole;
  space: SpaceObject;
}

export interface MemberSpacesPage {
  next?: { page: string };
  count: number;
  items: MemberSpaceItem[];
}

/*
 * Which spaces members have a role on (their effective role through the collection tree and the
 * roles spaces grant to their teams), for the organizations context's member objects (`spaces`
 * count) and member space lists. The organizations context passes the members' roles in, so these
 * read only spaces, the collections above a page's spaces and (through the SPACE_TEAMS port) team
 * memberships.
 */

/**
 * How many live spaces each member has a role on. A member with an organization role has one on
 * every space (`spaceRole`: a default level only ever raises it), so theirs is the organization's
 * count of live spaces, kept by the read store; a guest's role comes only from team grants, so
 * theirs counts the spaces granting a role to one of their teams. No read visits every space.
 */
export class CountMemberSpaces extends Query<Map<string, number>> {
  constructor(
    readonly organizationId: string,
    readonly members: ReadonlyArray<{ userId: string; role: OrganizationRole }>,
  ) {
    super();
  }
}

@QueryHandler(CountMemberSpaces)
export class CountMemberSpacesHandler implements IQueryHandler<CountMemberSpaces> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SPACE_TEAMS) private readonly teams: SpaceTeams,
  ) {}

  async execute({ organizationId, members }: CountMemberSpaces): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const spaces = this.reads.collection<SpaceDoc>(SPACES);
    const withRole = members.filter((member) => contentRole(member.role) !== null);
    const guests = members.filter((member) => contentRole(member.role) === null);
    const [live, teamIds] = await Promise.all([
      withRole.length > 0 ? spaces.count({ organizationId, ...LIVE_SPACE }) : 0,
      guests.length > 0
        ? this.teams.teamIdsByUser(
            organizationId,
            guests.map((guest) => guest.userId),
          )
        : new Map<string, string[]>(),
    ]);
    for (const member of withRole) counts.set(member.userId, live);
    for (const guest of guests) {
      const teams = teamIds.get(guest.userId) ?? [];
      counts.set(guest.userId, teams.length === 0 ? 0 : await spaces.count({ organizationId, ...LIVE_SPACE, ...grantingAnyOf(teams) }));
    }
    return counts;
  }
}

/**
 * `GET /v1/orgs/{organizationId}/members/{userId}/spaces` (the organizations context's route): the
 * member's spaces with their role on each, newest first by default, one page read through an
 * index. Whoever may list members has an organization role, hence a role on every space
 * (`spaceRole`: a default level only ever raises it), so every space the member has a role on is
 * one the caller may see; each is presented with the caller's permissions, as every space object
 * is. A member with an organization role has one on every live space; a guest on the spaces
 * granting a role to one of their teams (the same rule as `CountMemberSpaces`).
 */
export class ListMemberSpaces extends Query<MemberSpacesPage> {
  constructor(
    readonly organizationId: string,
    readonly member: { userId: string; role: OrganizationRole },
    readonly caller: { userId: string; role: OrganizationRole },
    readonly options: { page?: string; limit?: number; order?: 'asc' | 'desc' },
  ) {
    super();
  }
}

@QueryHandler(ListMemberSpaces)
export class ListMemberSpacesHandler implements IQueryHandler<ListMemberSpaces> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly presenter: SpacePresenter,
    private readonly access: SpaceAccess,
    @Inject(SPACE_TEAMS) private readonly teams: SpaceTeams,
    private readonly counters: SpaceFactsReader,
  ) {}

  async execute({ organizationId, member, caller, options }: ListMemberSpaces): Promise<MemberSpacesPage> {
    const memberRole = contentRole(member.role);
    // A guest's role comes only from team grants: the filter needs all their teams.
    const guestTeams = memberRole === null ? await this.teams.teamIdsOf(organizationId, member.userId) : null;
    const filter: Filter =
      guestTeams === null
        ? { organizationId, ...LIVE_SPACE }
        : { organizationId, ...LIVE_SPACE, ...(guestTeams.length === 0 ? { _id: { $in: [] } } : grantingAnyOf(guestTeams)) };
    const direction = options.order === 'asc' ? 1 : -1;
    const page = await this.reads
      .collection<SpaceDoc>(SPACES)
      .find(filter, { sort: { createdAt: direction, _id: direction }, limit: options.limit ?? 50, after: options.page });
    // A guest's standing has all their teams already; the others need only the teams the page grants to.
    const withoutTeams = (role: OrganizationRole): OrganizationStanding => ({ member: true, role: contentRole(role), teams: [] });
    const [standing, callerStanding, collections, counts] = await Promise.all([
      guestTeams !== null
        ? { member: true, role: null, teams: guestTeams }
        : this.access.withTeamsOn(organizationId, member.userId, withoutTeams(member.role), page.items),
      this.access.withTeamsOn(organizationId, caller.userId, withoutTeams(caller.role), page.items),
      this.access.collectionsAbove(
        organizationId,
        page.items.map((space) => space.parent),
      ),
      this.counters.forSpaces(page.items.map((space) => space._id)),
    ]);
    const items = page.items.map((space) => {
      const parents = SpaceAccess.chainFrom(collections, space.parent);
      const { role } = SpaceAccess.spaceAccess(standing, space, parents, false);
      const { permissions } = SpaceAccess.spaceAccess(callerStanding, space, parents, false);
      // Whoever may list members reads this list: they see whom merge rules name.
      return { permission: role as OrganizationRole, space: this.presenter.space(space, permissions, counts.get(space._id), true) };
    });
    return { ...(page.next !== undefined ? { next: { page: page.next } } : {}), count: page.count, items };
  }
}

/** Spaces granting a role to one of `teams` (non-empty): a guest's spaces. */
function grantingAnyOf(teams: readonly string[]): Filter {
  const granted = { $in: ORGANIZATION_ROLES as readonly string[] };
  return { $or: teams.map((team) => ({ [`teamRoles.${team}`]: granted })) };
}
