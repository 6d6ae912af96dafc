import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { TeamRole } from '../../platform/src/permissions';
import type { Projection } from '../../read-store/src/projections/projection';
import type { Collection, Doc, ReadStoreTransaction } from '../../read-store/src/read-store.port';
import type { OrganizationMemberRemoved, SpaceTeamAccessEvent, TeamEvent } from './team.events';

export const TEAMS = 'teams';
export const TEAM_MEMBERSHIPS = 'team_memberships';
export const TEAM_SPACES = 'team_spaces';

export interface TeamDoc extends Doc {
  organizationId: string;
  title: string;
  /** For the case-insensitive title filter and the title order of lists. */
  titleLower: string;
  createdAt: string;
  createdBy: string;
  /** Number of `team_memberships` of the team, recounted whenever they change. */
  members: number;
  /** Number of spaces granting the team a role (`team_spaces` with `granted`), recounted whenever they change. */
  spaces: number;
  /** Revision of the team's stream: its ETag, and the guard that makes applying an event twice a no-op. */
  revision: number;
  /** Set on deletion; a deleted team keeps its document (a tombstone) and loses its memberships. */
  deletedAt?: string;
}

/** `_id` is `<teamId>:<userId>`. */
export interface TeamMembershipDoc extends Doc {
  teamId: string;
  organizationId: string;
  userId: string;
  role: TeamRole;
  addedAt: string;
  /** Revision of the team stream at which they joined: members list in the order they joined. */
  addedRevision: number;
  /** The team's title, lower-cased: a member's teams are filtered and ordered by it without a join. */
  titleLower: string;
}

export const teamMembershipId = (teamId: string, userId: string) => `${teamId}:${userId}`;

/**
 * `_id` is `<teamId>:<spaceId>`: whether the space grants the team a role, from the spaces
 * context's team-access events. Kept (with `granted: false`) once the grant is removed, so that
 * the space-stream `revision` guards against an older event applied again.
 */
export interface TeamSpaceDoc extends Doc {
  teamId: string;
  spaceId: string;
  granted: boolean;
  /** Revision of the space stream last applied. */
  revision: number;
}

export const teamSpaceId = (teamId: string, spaceId: string) => `${teamId}:${spaceId}`;

/** Documents of teams that are not deleted. */
export const LIVE_TEAM = { deletedAt: { $exists: false } } as const;

const SPACE_TEAM_EVENTS: ReadonlySet<string> = new Set<SpaceTeamAccessEvent['type']>(['SpaceTeamAccessSet', 'SpaceTeamAccessRemoved']);

const TEAM_EVENTS: ReadonlySet<string> = new Set<TeamEvent['type']>([
  'TeamCreated',
  'TeamRenamed',
  'TeamDeleted',
  'TeamMemberAdded',
  'TeamMemberRoleChanged',
  'TeamMemberRemoved',
]);

/**
 * Teams and team memberships, from the team streams, plus the organizations context's
 * `MemberRemoved` (someone who leaves an organization leaves its teams).
 *
 * Replay safety: a team-stream event whose revision the team document has already reached is
 * skipped, so applying an event twice changes nothing; `members` is recounted from
 * `team_memberships` rather than incremented. `MemberRemoved` only deletes and recounts, which is
 * idempotent by itself. The spaces context's team-access events set `team_spaces` documents,
 * skipped when their space-stream revision is already reached, and `spaces` is recounted from them.
 */
export const teamProjection: Projection = {
  name: 'teams',
  collections: [TEAMS, TEAM_MEMBERSHIPS, TEAM_SPACES],
  indexes: [
    { collection: TEAMS, fields: { organizationId: 1, titleLower: 1 } },
    { collection: TEAM_MEMBERSHIPS, fields: { teamId: 1, addedRevision: 1 } },
    { collection: TEAM_MEMBERSHIPS, fields: { organizationId: 1, userId: 1, titleLower: 1 } },
    { collection: TEAM_SPACES, fields: { teamId: 1, granted: 1 } },
  ],
  handles: [...TEAM_EVENTS, 'MemberRemoved', ...SPACE_TEAM_EVENTS],
  async apply(recorded: RecordedEvent, tx) {
    const teams = tx.collection<TeamDoc>(TEAMS);
    const memberships = tx.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS);
    if (recorded.type === 'MemberRemoved') {
      await dropDepartedMember((recorded as unknown as OrganizationMemberRemoved).data, tx);
      return;
    }
    if (SPACE_TEAM_EVENTS.has(recorded.type)) {
      await applySpaceTeamAccess(recorded as unknown as SpaceTeamAccessEvent, recorded.revision, tx);
      return;
    }
    if (!TEAM_EVENTS.has(recorded.type)) return;
    const event = recorded as unknown as TeamEvent;
    const { teamId } = event.data;
    const team = await teams.get(teamId);
    if (team && team.revision >= recorded.revision) return;
    if (event.type === 'TeamCreated') {
      const { organizationId, title, createdBy, createdAt } = event.data;
      await teams.put({
        _id: teamId,
        organizationId,
        title,
        titleLower: title.toLowerCase(),
        createdAt,
        createdBy,
        members: await memberships.count({ teamId }),
        spaces: await tx.collection<TeamSpaceDoc>(TEAM_SPACES).count({ teamId, granted: true }),
        revision: recorded.revision,
      });
      return;
    }
    // Every other event follows TeamCreated in its stream; without the team there is nothing to change.
    if (!team) return;
    const revision = recorded.revision;
    switch (event.type) {
      case 'TeamRenamed': {
        const titleLower = event.data.title.toLowerCase();
        await teams.update(teamId, { $set: { title: event.data.title, titleLower, revision } });
        await memberships.updateMany({ teamId }, { $set: { titleLower } });
        return;
      }
      case 'TeamDeleted':
        await memberships.deleteMany({ teamId });
        await teams.update(teamId, { $set: { deletedAt: event.data.deletedAt, members: 0, revision } });
        return;
      case 'TeamMemberAdded': {
        const { organizationId, userId, role, addedAt } = event.data;
        await memberships.put({ _id: teamMembershipId(teamId, userId), teamId, organizationId, userId, role, addedAt, addedRevision: revision, titleLower: team.titleLower });
        await recount(teams, memberships, teamId, { revision });
        return;
      }
      case 'TeamMemberRoleChanged':
        await memberships.update(teamMembershipId(teamId, event.data.userId), { $set: { role: event.data.role } });
        await teams.update(teamId, { $set: { revision } });
        return;
      case 'TeamMemberRemoved':
        await memberships.delete(teamMembershipId(teamId, event.data.userId));
        await recount(teams, memberships, teamId, { revision });
        return;
    }
  },
};

async function recount(teams: Collection<TeamDoc>, memberships: Collection<TeamMembershipDoc>, teamId: string, also: Partial<TeamDoc> = {}): Promise<void> {
  await teams.update(teamId, { $set: { ...also, members: await memberships.count({ teamId }) } });
}

/** The user left the organization: their memberships of its teams go, and those teams are recounted. */
async function dropDepartedMember({ organizationId, userId }: OrganizationMemberRemoved['data'], tx: ReadStoreTransaction): Promise<void> {
  const teams = tx.collection<TeamDoc>(TEAMS);
  const memberships = tx.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS);
  const teamIds: string[] = [];
  let after: string | undefined;
  do {
    const page = await memberships.find({ organizationId, userId }, { limit: 1000, after, count: false });
    teamIds.push(...page.items.map((m) => m.teamId));
    after = page.next;
  } while (after !== undefined);
  if (teamIds.length === 0) return;
  await memberships.deleteMany({ organizationId, userId });
  for (const teamId of teamIds) await recount(teams, memberships, teamId);
}

/** A space granted the team a role, or stopped granting one: the grant is recorded and the team's spaces recounted. */
async function applySpaceTeamAccess(event: SpaceTeamAccessEvent, revision: number, tx: ReadStoreTransaction): Promise<void> {
  const grants = tx.collection<TeamSpaceDoc>(TEAM_SPACES);
  const { teamId, spaceId } = event.data;
  const id = teamSpaceId(teamId, spaceId);
  const grant = await grants.get(id);
  if (grant && grant.revision >= revision) return;
  await grants.put({ _id: id, teamId, spaceId, granted: event.type === 'SpaceTeamAccessSet', revision });
  const team = await tx.collection<TeamDoc>(TEAMS).get(teamId);
  if (team) await tx.collection<TeamDoc>(TEAMS).update(teamId, { $set: { spaces: await grants.count({ teamId, granted: true }) } });
}
