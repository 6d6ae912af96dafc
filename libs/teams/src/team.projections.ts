import type { TeamRole } from '#platform/permissions';
import { multiDocumentProjection, type ProjectedDoc, type ProjectionDocuments, type Recorded } from '#read-store/projections/projection';
import type { OrganizationMemberRemoved, SpaceTeamAccessEvent, TeamEvent } from './team.events';

export const TEAMS = 'teams';
export const TEAM_MEMBERSHIPS = 'team_memberships';
export const TEAM_SPACES = 'team_spaces';
export const TEAM_MEMBER_COUNTS = 'team_member_counts';

export interface TeamDoc extends ProjectedDoc {
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
  /** Revision of the team's stream: its ETag. */
  revision: number;
  /** Set on deletion; a deleted team keeps its document (a tombstone) and loses its memberships. */
  deletedAt?: string;
}

/** `_id` is `<teamId>:<userId>`. */
export interface TeamMembershipDoc extends ProjectedDoc {
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
 * `_id` is `<organizationId>:<userId>`: how many (live) teams of the organization the user is in,
 * the `teams` of Member objects, so that a page of members reads it rather than counting per member.
 * Recounted from `team_memberships` whenever one of the user's memberships comes or goes (a
 * team deleted, the member gone); absent for a user in none.
 */
export interface TeamMemberCountDoc extends ProjectedDoc {
  organizationId: string;
  userId: string;
  teams: number;
}

export const teamMemberCountId = (organizationId: string, userId: string) => `${organizationId}:${userId}`;

/**
 * `_id` is `<teamId>:<spaceId>`: whether the space grants the team a role, from the spaces
 * context's team-access events. Kept (with `granted: false`) once the grant is removed, so that
 * its `_position` keeps an older grant applied again from reviving it.
 */
export interface TeamSpaceDoc extends ProjectedDoc {
  teamId: string;
  spaceId: string;
  granted: boolean;
}

export const teamSpaceId = (teamId: string, spaceId: string) => `${teamId}:${spaceId}`;

/** Documents of teams that are not deleted. */
export const LIVE_TEAM = { deletedAt: { $exists: false } } as const;

type TeamsInput = TeamEvent | OrganizationMemberRemoved | SpaceTeamAccessEvent;

/**
 * Teams and team memberships, from the team streams, plus the organizations context's
 * `MemberRemoved` (someone who leaves an organization leaves its teams) and the spaces context's
 * team-access events (`spaces` counts).
 *
 * Every write is guarded by the event's log position. A team-stream event is skipped whole once
 * the team document (which every such event writes: its revision is the ETag) has seen it, so an
 * older event applied again brings back no membership; a team-access event likewise once its
 * `team_spaces` document has. `members` and `spaces` are recounted, never incremented.
 */
export const teamProjection = multiDocumentProjection<TeamsInput>({
  name: 'teams',
  collections: [TEAMS, TEAM_MEMBERSHIPS, TEAM_SPACES, TEAM_MEMBER_COUNTS],
  indexes: [
    { collection: TEAMS, fields: { organizationId: 1, titleLower: 1 } },
    { collection: TEAM_MEMBERSHIPS, fields: { teamId: 1, addedRevision: 1 } },
    { collection: TEAM_MEMBERSHIPS, fields: { organizationId: 1, userId: 1, titleLower: 1 } },
    { collection: TEAM_SPACES, fields: { teamId: 1, granted: 1 } },
  ],
  handles: [
    'TeamCreated',
    'TeamRenamed',
    'TeamDeleted',
    'TeamMemberAdded',
    'TeamMemberRoleChanged',
    'TeamMemberRemoved',
    'MemberRemoved',
    'SpaceTeamAccessSet',
    'SpaceTeamAccessRemoved',
  ],
  guard(event) {
    switch (event.type) {
      case 'MemberRemoved':
        return null;
      case 'SpaceTeamAccessSet':
      case 'SpaceTeamAccessRemoved':
        return { collection: TEAM_SPACES, id: teamSpaceId(event.data.teamId, event.data.spaceId) };
      default:
        return { collection: TEAMS, id: event.data.teamId };
    }
  },
  async apply(event, documents) {
    const teams = documents.collection<TeamDoc>(TEAMS);
    const memberships = documents.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS);
    const revision = event.revision;
    switch (event.type) {
      case 'MemberRemoved':
        await dropDepartedMember(event.data, documents);
        return;
      case 'SpaceTeamAccessSet':
      case 'SpaceTeamAccessRemoved':
        await applySpaceTeamAccess(event, documents);
        return;
      case 'TeamCreated': {
        const { teamId, organizationId, title, createdBy, createdAt } = event.data;
        await teams.put({
          _id: teamId,
          organizationId,
          title,
          titleLower: title.toLowerCase(),
          createdAt,
          createdBy,
          members: await memberships.count({ teamId }),
          spaces: await documents.collection<TeamSpaceDoc>(TEAM_SPACES).count({ teamId, granted: true }),
          revision,
        });
        return;
      }
    }
    const { teamId } = event.data;
    // Every other event follows TeamCreated in its stream; without the team there is nothing to change.
    const team = await teams.get(teamId);
    if (!team) return;
    switch (event.type) {
      case 'TeamRenamed': {
        const titleLower = event.data.title.toLowerCase();
        await teams.update(teamId, { $set: { title: event.data.title, titleLower, revision } });
        await memberships.updateMany({ teamId }, { $set: { titleLower } });
        return;
      }
      case 'TeamDeleted': {
        const userIds = await membersOf(documents, { teamId });
        await memberships.deleteMany({ teamId });
        await teams.update(teamId, { $set: { deletedAt: event.data.deletedAt, members: 0, revision } });
        for (const userId of userIds) await recountMember(documents, team.organizationId, userId);
        return;
      }
      case 'TeamMemberAdded': {
        const { organizationId, userId, role, addedAt } = event.data;
        await memberships.put({
          _id: teamMembershipId(teamId, userId),
          teamId,
          organizationId,
          userId,
          role,
          addedAt,
          addedRevision: revision,
          titleLower: team.titleLower,
        });
        await recount(documents, teamId, { revision });
        await recountMember(documents, organizationId, userId);
        return;
      }
      case 'TeamMemberRoleChanged':
        await memberships.update(teamMembershipId(teamId, event.data.userId), { $set: { role: event.data.role } });
        await teams.update(teamId, { $set: { revision } });
        return;
      case 'TeamMemberRemoved':
        await memberships.delete(teamMembershipId(teamId, event.data.userId));
        await recount(documents, teamId, { revision });
        await recountMember(documents, team.organizationId, event.data.userId);
        return;
    }
  },
});

async function recount(documents: ProjectionDocuments, teamId: string, also: Partial<TeamDoc> = {}): Promise<void> {
  const members = await documents.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).count({ teamId });
  await documents.collection<TeamDoc>(TEAMS).update(teamId, { $set: { ...also, members } });
}

/** The user's count of the organization's teams, recounted on the `(organizationId, userId)` index; no document for none. */
async function recountMember(documents: ProjectionDocuments, organizationId: string, userId: string): Promise<void> {
  const teams = await documents.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS).count({ organizationId, userId });
  const counts = documents.collection<TeamMemberCountDoc>(TEAM_MEMBER_COUNTS);
  const _id = teamMemberCountId(organizationId, userId);
  if (teams === 0) await counts.delete(_id);
  else await counts.put({ _id, organizationId, userId, teams });
}

/** The memberships matching `filter`, every page of them. */
async function membershipsOf(documents: ProjectionDocuments, filter: Partial<TeamMembershipDoc>): Promise<TeamMembershipDoc[]> {
  const memberships = documents.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS);
  const found: TeamMembershipDoc[] = [];
  let after: string | undefined;
  do {
    const page = await memberships.find(filter, { limit: 1000, after, count: false });
    found.push(...page.items);
    after = page.next;
  } while (after !== undefined);
  return found;
}

async function membersOf(documents: ProjectionDocuments, filter: Partial<TeamMembershipDoc>): Promise<string[]> {
  return (await membershipsOf(documents, filter)).map((m) => m.userId);
}

/** The user left the organization: their memberships of its teams go, those teams are recounted, and so is the user (none). */
async function dropDepartedMember(
  { organizationId, userId }: OrganizationMemberRemoved['data'],
  documents: ProjectionDocuments,
): Promise<void> {
  const memberships = documents.collection<TeamMembershipDoc>(TEAM_MEMBERSHIPS);
  const teamIds = (await membershipsOf(documents, { organizationId, userId })).map((m) => m.teamId);
  if (teamIds.length === 0) return;
  await memberships.deleteMany({ organizationId, userId });
  for (const teamId of teamIds) await recount(documents, teamId);
  await recountMember(documents, organizationId, userId);
}

/** A space granted the team a role, or stopped granting one: the grant is recorded and the team's spaces recounted. */
async function applySpaceTeamAccess(event: Recorded<SpaceTeamAccessEvent>, documents: ProjectionDocuments): Promise<void> {
  const grants = documents.collection<TeamSpaceDoc>(TEAM_SPACES);
  const { teamId, spaceId } = event.data;
  await grants.put({ _id: teamSpaceId(teamId, spaceId), teamId, spaceId, granted: event.type === 'SpaceTeamAccessSet' });
  await documents.collection<TeamDoc>(TEAMS).update(teamId, { $set: { spaces: await grants.count({ teamId, granted: true }) } });
}
