import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole, TeamRole } from '#platform/permissions';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { TeamAccess, TeamDirectory } from './team.access';
import { TEAM_MEMBERSHIPS, TEAMS, teamMembershipId, type TeamDoc, type TeamMembershipDoc } from './team.projections';
import type { TeamOrganizations } from './teams.needs';

/** Who sees a team: 404 outside its organization or for a team that is not there, 403 for guests outside the team. */
const user = (userId: string): Caller => ({ kind: 'user', userId, tokenId: 't', user: { id: userId } as never });
const organizationRoles: Record<string, OrganizationRole | 'stray'> = { ada: 'admin', rita: 'read', gus: null, tim: null, stray: 'stray' };
const organizations = {
  async requireMember(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    const userId = (caller as { userId?: string }).userId ?? '';
    if (organizationId !== 'o1' || !(userId in organizationRoles)) throw DomainError.notFound(`no organization ${organizationId}`);
    return organizationRoles[userId] as OrganizationRole;
  },
} as unknown as TeamOrganizations;

const team = (id: string, also: Partial<TeamDoc> = {}): TeamDoc =>
  ({
    _id: id,
    organizationId: 'o1',
    title: id,
    titleLower: id,
    createdAt: 'now',
    createdBy: 'ada',
    members: 0,
    spaces: 0,
    ...also,
  }) as TeamDoc;
const membership = (teamId: string, userId: string, role: TeamRole, organizationId = 'o1'): TeamMembershipDoc => ({
  _id: teamMembershipId(teamId, userId),
  teamId,
  organizationId,
  userId,
  role,
  addedAt: 'now',
  addedRevision: 0,
  titleLower: teamId,
});

async function statusOf(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe('team access', () => {
  let reads: MemoryReadStore;
  let directory: TeamDirectory;
  let access: TeamAccess;

  beforeEach(async () => {
    reads = new MemoryReadStore();
    for (const doc of [team('t1'), team('gone', { deletedAt: 'now' } as Partial<TeamDoc>), team('elsewhere', { organizationId: 'o2' })])
      await reads.collection<TeamDoc>(TEAMS).put(doc);
    for (const doc of [
      membership('t1', 'tim', 'member'),
      membership('t2', 'tim', 'owner'),
      membership('t3', 'tim', 'member'),
      membership('t9', 'tim', 'owner', 'o2'),
    ]) {
      await reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).put(doc);
    }
    directory = new TeamDirectory(reads);
    access = new TeamAccess(reads, organizations, directory);
  });

  afterEach(() => reads.close());

  describe('viewer', () => {
    it('given a member of the organization, then the viewer is their id and organization role', async () => {
      expect(await access.viewer('o1', user('ada'))).toEqual({ userId: 'ada', organizationRole: 'admin' });
    });

    it('given a member document whose role is not a role, then the viewer has none', async () => {
      expect(await access.viewer('o1', user('stray'))).toEqual({ userId: 'stray', organizationRole: null });
    });

    it('given a caller outside the organization, then 404', async () => {
      expect(await statusOf(access.viewer('o1', user('zed')))).toBe(404);
    });
  });

  describe('team', () => {
    it('given an organization member with a role, when they read a team they are not in, then they see it without admin rights unless they are admin', async () => {
      const read = await access.team('o1', 't1', user('rita'));
      expect(read).toEqual({
        team: team('t1'),
        viewer: { userId: 'rita', organizationRole: 'read' },
        permissions: { view: true, admin: false },
      });
      expect((await access.team('o1', 't1', user('ada'))).permissions).toEqual({ view: true, admin: true });
    });

    it('given a guest of the organization who is in the team, then they see it', async () => {
      expect((await access.team('o1', 't1', user('tim'))).permissions).toEqual({ view: true, admin: false });
    });

    it('given a guest of the organization outside the team, then 403 with the reason', async () => {
      await expect(access.team('o1', 't1', user('gus'))).rejects.toThrow(
        'only members of team t1 and of organization o1 with a role may see it',
      );
      expect(await statusOf(access.team('o1', 't1', user('gus')))).toBe(403);
    });

    it('given a team that is not there, then 404 naming it', async () => {
      await expect(access.team('o1', 'nope', user('ada'))).rejects.toThrow('no team nope');
      expect(await statusOf(access.team('o1', 'nope', user('ada')))).toBe(404);
    });

    it('given a deleted team, then 404', async () => {
      expect(await statusOf(access.team('o1', 'gone', user('ada')))).toBe(404);
    });

    it("given another organization's team, then 404 (nothing leaks across organizations)", async () => {
      expect(await statusOf(access.team('o1', 'elsewhere', user('ada')))).toBe(404);
    });
  });

  describe('directory', () => {
    it("given a user's memberships, then teamIdsOf lists the teams of that organization only", async () => {
      expect((await directory.teamIdsOf('o1', 'tim')).sort()).toEqual(['t1', 't2', 't3']);
    });

    it('given a role, then teamIdsOf lists only the teams where the user has it', async () => {
      expect(await directory.teamIdsOf('o1', 'tim', 'owner')).toEqual(['t2']);
    });

    it('given more memberships than one page holds, then teamIdsOf reads every page', async () => {
      for (let i = 0; i < 1001; i += 1)
        await reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).put(membership(`many${i}`, 'max', 'member'));
      expect(await directory.teamIdsOf('o1', 'max')).toHaveLength(1001);
    });

    it('given team ids, then rolesOf answers the role in each team the user is in', async () => {
      expect(await directory.rolesOf('tim', ['t1', 't2', 'nope'])).toEqual(
        new Map([
          ['t1', 'member'],
          ['t2', 'owner'],
        ]),
      );
    });

    it('given more team ids than a default page holds, then rolesOf answers the role in each of them', async () => {
      const teamIds = Array.from({ length: 60 }, (_, i) => `many${i}`);
      for (const teamId of teamIds) await reads.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).put(membership(teamId, 'max', 'member'));
      expect((await directory.rolesOf('max', teamIds)).size).toBe(60);
    });

    it('given no team ids, then rolesOf answers nothing without reading', async () => {
      const find = jest.spyOn(reads, 'collection');
      expect(await directory.rolesOf('tim', [])).toEqual(new Map());
      expect(find).not.toHaveBeenCalled();
    });
  });
});
