import type { RecordedEvent } from '../../event-store/src/event-store.port';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import { TEAM_MEMBERSHIPS, TEAM_SPACES, TEAMS, teamProjection } from './team.projections';
import { teamAuditCatalog } from './team.audit';

const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
let position = 0n;
/** One event at revision `revision` of its stream, at the next log position. */
function at(streamId: string, revision: number, type: string, data: object): RecordedEvent {
  return { id: `${streamId}#${revision}`, streamId, revision, position: ++position, type, data, metadata: {}, recordedAt: now };
}
/** Events of one stream, numbered from 0. */
function stream(streamId: string, events: Array<[string, object]>): RecordedEvent[] {
  return events.map(([type, data], revision) => at(streamId, revision, type, data));
}

const t1 = { teamId: 't1', organizationId: 'o1' };
const t2 = { teamId: 't2', organizationId: 'o1' };
const team1 = stream('team-t1', [
  ['TeamCreated', { ...t1, title: 'Writers', createdBy: 'olga', createdAt: now }],
  ['TeamMemberAdded', { ...t1, userId: 'olga', role: 'owner', addedAt: now }],
  ['TeamMemberAdded', { ...t1, userId: 'mia', role: 'member', addedAt: now }],
  ['TeamMemberAdded', { ...t1, userId: 'eve', role: 'member', addedAt: later }],
  ['TeamRenamed', { ...t1, title: 'Editors' }],
  ['TeamMemberRoleChanged', { ...t1, userId: 'mia', role: 'owner' }],
  ['TeamMemberRemoved', { ...t1, userId: 'eve' }],
]);
const team2 = stream('team-t2', [
  ['TeamCreated', { ...t2, title: 'Reviewers', createdBy: 'olga', createdAt: now }],
  ['TeamMemberAdded', { ...t2, userId: 'olga', role: 'owner', addedAt: now }],
  ['TeamMemberAdded', { ...t2, userId: 'mia', role: 'member', addedAt: now }],
]);

async function apply(store: MemoryReadStore, events: RecordedEvent[]): Promise<void> {
  await store.transaction(async (tx) => {
    for (const event of events) if (!teamProjection.handles || teamProjection.handles.includes(event.type)) await teamProjection.apply(event, tx);
  });
}

async function snapshot(store: MemoryReadStore) {
  const [teams, memberships] = await Promise.all([store.collection(TEAMS).find({}, { limit: 1000 }), store.collection(TEAM_MEMBERSHIPS).find({}, { limit: 1000 })]);
  return { teams: teams.items, memberships: memberships.items };
}

describe('team projection', () => {
  it('given a team created, joined, renamed and changed, then its document with the member count and its membership documents', async () => {
    const store = new MemoryReadStore();
    await apply(store, team1);
    expect(await store.collection(TEAMS).get('t1')).toEqual({
      _id: 't1',
      organizationId: 'o1',
      title: 'Editors',
      titleLower: 'editors',
      createdAt: now,
      createdBy: 'olga',
      members: 2,
      spaces: 0,
      revision: 6,
    });
    expect((await snapshot(store)).memberships).toEqual([
      { _id: 't1:mia', teamId: 't1', organizationId: 'o1', userId: 'mia', role: 'owner', addedAt: now, addedRevision: 2, titleLower: 'editors' },
      { _id: 't1:olga', teamId: 't1', organizationId: 'o1', userId: 'olga', role: 'owner', addedAt: now, addedRevision: 1, titleLower: 'editors' },
    ]);
  });

  it('given the same events applied twice, then the documents are unchanged (no count doubles)', async () => {
    const once = new MemoryReadStore();
    await apply(once, [...team1, ...team2]);
    const twice = new MemoryReadStore();
    await apply(twice, [...team1, ...team2]);
    await apply(twice, [...team1, ...team2]);
    expect(await snapshot(twice)).toEqual(await snapshot(once));
  });

  it('given one event applied again out of order, then nothing changes', async () => {
    const store = new MemoryReadStore();
    await apply(store, team1);
    const before = await snapshot(store);
    await apply(store, [team1[3], team1[0], team1[6]]); // eve added again, created again, removed again
    expect(await snapshot(store)).toEqual(before);
  });

  it('given a deleted team, then it is a tombstone without memberships', async () => {
    const store = new MemoryReadStore();
    await apply(store, [...team1, ...team2, at('team-t2', 3, 'TeamDeleted', { ...t2, deletedAt: later })]);
    expect(await store.collection(TEAMS).get('t2')).toMatchObject({ _id: 't2', deletedAt: later, members: 0, revision: 3 });
    expect(await store.collection(TEAM_MEMBERSHIPS).count({ teamId: 't2' })).toBe(0);
    expect(await store.collection(TEAM_MEMBERSHIPS).count({ teamId: 't1' })).toBe(2);
  });

  it('given the organization removed a member, then their memberships in its teams go and the counts follow; applied twice, no change', async () => {
    const store = new MemoryReadStore();
    const otherOrganization = stream('team-t3', [
      ['TeamCreated', { teamId: 't3', organizationId: 'o2', title: 'Elsewhere', createdBy: 'mia', createdAt: now }],
      ['TeamMemberAdded', { teamId: 't3', organizationId: 'o2', userId: 'mia', role: 'owner', addedAt: now }],
    ]);
    const memberRemoved = stream('organization-o1', [['MemberRemoved', { organizationId: 'o1', userId: 'mia' }]]);
    await apply(store, [...team1, ...team2, ...otherOrganization, ...memberRemoved]);
    const after = await snapshot(store);
    expect(after.memberships.map((m) => m._id)).toEqual(['t1:olga', 't2:olga', 't3:mia']);
    expect(after.teams.map((t) => [t._id, t.members])).toEqual([
      ['t1', 1],
      ['t2', 1],
      ['t3', 1],
    ]);
    await apply(store, memberRemoved);
    expect(await snapshot(store)).toEqual(after);
    // The team streams then agree (RemoveUserFromAllTeams): their TeamMemberRemoved changes nothing more.
    await apply(store, [at('team-t1', 7, 'TeamMemberRemoved', { ...t1, userId: 'mia' }), at('team-t2', 3, 'TeamMemberRemoved', { ...t2, userId: 'mia' })]);
    const swept = await snapshot(store);
    expect(swept.memberships).toEqual(after.memberships);
    expect(swept.teams.map((t) => [t._id, t.members, t.revision])).toEqual([
      ['t1', 1, 7],
      ['t2', 1, 3],
      ['t3', 1, 1],
    ]);
  });

  it('given a MemberRemoved for someone in no team, then nothing changes', async () => {
    const store = new MemoryReadStore();
    await apply(store, team1);
    const before = await snapshot(store);
    await apply(store, stream('organization-o1', [['MemberRemoved', { organizationId: 'o1', userId: 'nobody' }]]));
    expect(await snapshot(store)).toEqual(before);
  });
});

describe('team projection: spaces granting the team a role', () => {
  const grants = (spaceId: string, events: Array<[string, object]>, from = 0) =>
    events.map(([type, data], index) => at(`space-${spaceId}`, from + index, type, { spaceId, organizationId: 'o1', ...data }));
  const s1 = grants('s1', [
    ['SpaceTeamAccessSet', { teamId: 't1', role: 'edit' }],
    ['SpaceTeamAccessSet', { teamId: 't2', role: 'read' }],
    ['SpaceTeamAccessSet', { teamId: 't1', role: 'admin' }],
  ], 1);
  const s2 = grants('s2', [
    ['SpaceTeamAccessSet', { teamId: 't1', role: 'read' }],
    ['SpaceTeamAccessRemoved', { teamId: 't1' }],
    ['SpaceTeamAccessSet', { teamId: 't2', role: 'read' }],
  ], 1);
  const s3 = grants('s3', [['SpaceTeamAccessSet', { teamId: 't1', role: 'comment' }]], 1);
  const spaces = async (store: MemoryReadStore) => (await snapshot(store)).teams.map((team) => [team._id, team.spaces]);

  it('given grants and removals, then each team counts the spaces granting it a role', async () => {
    const store = new MemoryReadStore();
    await apply(store, [...team1, ...team2, ...s1, ...s2, ...s3]);
    expect(await spaces(store)).toEqual([
      ['t1', 2],
      ['t2', 2],
    ]);
    expect(await store.collection(TEAM_SPACES).count({ granted: true })).toBe(4);
  });

  it('given grants recorded before the team document, then the team counts them when created', async () => {
    const store = new MemoryReadStore();
    await apply(store, [...s3, ...team1]);
    expect(await spaces(store)).toEqual([['t1', 1]]);
  });

  it('given the events applied twice, or an older one again, then nothing changes', async () => {
    const once = new MemoryReadStore();
    await apply(once, [...team1, ...team2, ...s1, ...s2, ...s3]);
    const twice = new MemoryReadStore();
    await apply(twice, [...team1, ...team2, ...s1, ...s2, ...s3]);
    await apply(twice, [...team1, ...team2, ...s1, ...s2, ...s3]);
    await apply(twice, [s2[0]]); // the grant removed later, applied again
    expect(await snapshot(twice)).toEqual(await snapshot(once));
    expect(await spaces(twice)).toEqual([
      ['t1', 2],
      ['t2', 2],
    ]);
  });
});

describe('team audit catalog', () => {
  it('describes every team event as an action on the team, with its title where the event carries it', () => {
    const described = team1.map((event) => teamAuditCatalog[event.type](event));
    expect(described).toEqual([
      { action: 'team.created', organizationId: 'o1', target: { type: 'team', id: 't1', label: 'Writers' } },
      { action: 'team.member_added', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.member_added', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.member_added', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.updated', organizationId: 'o1', target: { type: 'team', id: 't1', label: 'Editors' } },
      { action: 'team.member_updated', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.member_removed', organizationId: 'o1', target: { type: 'team', id: 't1' } },
    ]);
    const deletion = at('team-t1', 7, 'TeamDeleted', { ...t1, deletedAt: later });
    expect(teamAuditCatalog.TeamDeleted(deletion)).toEqual({ action: 'team.deleted', organizationId: 'o1', target: { type: 'team', id: 't1' } });
  });
});
