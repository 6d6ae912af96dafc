import { Inject, Injectable } from '@nestjs/common';
import { SpaceFactsReader } from './space-facts';
import { DomainError } from '../../platform/src/errors';
import { ORGANIZATION_ROLES, type OrganizationRole } from '../../platform/src/permissions';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { SPACE_TEAMS, type SpaceTeams } from './space-teams.port';
import { readAll } from '../../read-store/src/read-all';
import { SpaceAccess, SpacePresenter, type SpaceObject } from './space.access';
import { COLLECTIONS, LIVE_COLLECTION, LIVE_SPACE, SPACES, type CollectionDoc, type SpaceDoc } from './space.projections';
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

/**
 * Which spaces members have a role on (their effective role through the collection tree and the
 * roles spaces grant to their teams), for the organizations context's member objects (`spaces`
 * count) and member space lists. The organizations context passes the members' roles in, so this
 * reads only spaces, collections and (through the SPACE_TEAMS port) team memberships.
 */
@Injectable()
export class MemberSpaces {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly presenter: SpacePresenter,
    @Inject(SPACE_TEAMS) private readonly teams: SpaceTeams,
    private readonly counters: SpaceFactsReader,
  ) {}

  /**
   * How many live spaces each member has a role on. A member with an organization role has one on
   * every space (`spaceRole`: a default level only ever raises it), so theirs is the organization's
   * count of live spaces, kept by the read store; a guest's role comes only from team grants, so
   * theirs counts the spaces granting a role to one of their teams. No read visits every space.
   */
  async spaceCountsByUser(organizationId: string, members: ReadonlyArray<{ userId: string; role: OrganizationRole }>): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const spaces = this.reads.collection<SpaceDoc>(SPACES);
    const withRole = members.filter((member) => contentRole(member.role) !== null);
    const guests = members.filter((member) => contentRole(member.role) === null);
    const [live, teamIds] = await Promise.all([
      withRole.length > 0 ? spaces.count({ organizationId, ...LIVE_SPACE }) : 0,
      guests.length > 0 ? this.teams.teamIdsByUser(organizationId, guests.map((guest) => guest.userId)) : new Map<string, string[]>(),
    ]);
    for (const member of withRole) counts.set(member.userId, live);
    for (const guest of guests) {
      const teams = teamIds.get(guest.userId) ?? [];
      const granted = { $in: ORGANIZATION_ROLES as readonly string[] };
      counts.set(guest.userId, teams.length === 0 ? 0 : await spaces.count({ organizationId, ...LIVE_SPACE, $or: teams.map((team) => ({ [`teamRoles.${team}`]: granted })) }));
    }
    return counts;
  }

  /**
   * The member's spaces with their role on each, newest first by default. Only spaces the caller
   * may see are listed, each with the caller's permissions, as every space object is.
   */
  async list(
    organizationId: string,
    member: { userId: string; role: OrganizationRole },
    caller: { userId: string; member: boolean; role: OrganizationRole },
    options: { page?: string; limit?: number; order?: 'asc' | 'desc' },
  ): Promise<MemberSpacesPage> {
    const [{ spaces, collections }, teamIds] = await Promise.all([this.contentOf(organizationId), this.teams.teamIdsByUser(organizationId, [member.userId, caller.userId])]);
    const standing: OrganizationStanding = { member: true, role: contentRole(member.role), teams: teamIds.get(member.userId) ?? [] };
    const callerStanding: OrganizationStanding = { member: caller.member, role: contentRole(caller.role), teams: caller.member ? (teamIds.get(caller.userId) ?? []) : [] };
    const direction = options.order === 'asc' ? 1 : -1;
    const rows = spaces
      .map((space) => {
        const parents = SpaceAccess.chainFrom(collections, space.parent);
        const role = SpaceAccess.spaceAccess(standing, space, parents, false).role;
        const { permissions } = SpaceAccess.spaceAccess(callerStanding, space, parents, false);
        return { space, role, permissions };
      })
      .filter((row) => row.role !== null && row.permissions.view)
      .sort((a, b) => direction * (compare(a.space.createdAt, b.space.createdAt) || compare(a.space._id, b.space._id)));
    const after = options.page === undefined ? null : decodeCursor(options.page);
    const start = after === null ? 0 : rows.findIndex((row) => direction * (compare(row.space.createdAt, after[0]) || compare(row.space._id, after[1])) > 0);
    const limit = options.limit ?? 50;
    const pageRows = start < 0 ? [] : rows.slice(start, start + limit);
    const counts = await this.counters.forSpaces(pageRows.map((row) => row.space._id));
    const last = pageRows.at(-1);
    const more = start >= 0 && start + limit < rows.length;
    return {
      ...(more && last ? { next: { page: encodeCursor([last.space.createdAt, last.space._id]) } } : {}),
      count: rows.length,
      items: pageRows.map((row) => ({ permission: row.role as OrganizationRole, space: this.presenter.space(row.space, row.permissions, counts.get(row.space._id)) })),
    };
  }

  private async contentOf(organizationId: string) {
    const [spaces, collections] = await Promise.all([
      readAll<SpaceDoc>(this.reads, SPACES, { organizationId, ...LIVE_SPACE }),
      readAll<CollectionDoc>(this.reads, COLLECTIONS, { organizationId, ...LIVE_COLLECTION }),
    ]);
    return { spaces, collections: new Map(collections.map((collection) => [collection._id, collection])) };
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function encodeCursor(key: [string, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === 2 && key.every((part) => typeof part === 'string')) return key as [string, string];
  } catch {
    // falls through to the error below
  }
  throw DomainError.invalid('invalid page cursor: use the `next` value of a previous page');
}
