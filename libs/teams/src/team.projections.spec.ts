import { inStream, projectionSpec, recordEvents } from '#testing';
import { TEAM_MEMBER_COUNTS, TEAM_MEMBERSHIPS, TEAM_SPACES, TEAMS, teamProjection } from './team.projections';
import { teamAuditCatalog } from './team.audit';
import type { TeamEvent } from './team.events';

const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const spec = projectionSpec(teamProjection);

const t1 = { teamId: 't1', organizationId: 'o1' };
const t2 = { teamId: 't2', organizationId: 'o1' };
const team1Events: TeamEvent[] = [
  { type: 'TeamCreated', data: { ...t1, title: 'Writers', createdBy: 'olga', createdAt: now } },
  { type: 'TeamMemberAdded', data: { ...t1, userId: 'olga', role: 'owner', addedAt: now } },
  { type: 'TeamMemberAdded', data: { ...t1, userId: 'mia', role: 'member', addedAt: now } },
  { type: 'TeamMemberAdded', data: { ...t1, userId: 'eve', role: 'member', addedAt: later } },
  { type: 'TeamRenamed', data: { ...t1, title: 'Editors' } },
  { type: 'TeamMemberRoleChanged', data: { ...t1, userId: 'mia', role: 'owner' } },
  { type: 'TeamMemberRemoved', data: { ...t1, userId: 'eve' } },
];
const team1 = inStream('team-t1', team1Events);
const team2 = inStream('team-t2', [
  { type: 'TeamCreated', data: { ...t2, title: 'Reviewers', createdBy: 'olga', createdAt: now } },
  { type: 'TeamMemberAdded', data: { ...t2, userId: 'olga', role: 'owner', addedAt: now } },
  { type: 'TeamMemberAdded', data: { ...t2, userId: 'mia', role: 'member', addedAt: now } },
]);

/** The read model of team1 alone. */
const team1Documents = {
  [TEAMS]: [
    {
      _id: 't1',
      organizationId: 'o1',
      title: 'Editors',
      titleLower: 'editors',
      createdAt: now,
      createdBy: 'olga',
      members: 2,
      spaces: 0,
      revision: 6,
    },
  ],
  [TEAM_MEMBERSHIPS]: [
    {
      _id: 't1:mia',
      teamId: 't1',
      organizationId: 'o1',
      userId: 'mia',
      role: 'owner',
      addedAt: now,
      addedRevision: 2,
      titleLower: 'editors',
    },
    {
      _id: 't1:olga',
      teamId: 't1',
      organizationId: 'o1',
      userId: 'olga',
      role: 'owner',
      addedAt: now,
      addedRevision: 1,
      titleLower: 'editors',
    },
  ],
};

describe('team projection', () => {
  it('given a team created, joined, renamed and changed, then its document with the member count', async () => {
    await spec.given(team1).then({ [TEAMS]: team1Documents[TEAMS] });
  });

  it('given a team created, joined, renamed and changed, then its membership documents', async () => {
    await spec.given(team1).then({ [TEAM_MEMBERSHIPS]: team1Documents[TEAM_MEMBERSHIPS] });
  });

  it('given two teams, when the events are applied twice, then the documents are unchanged (no count doubles)', async () => {
    await spec.given([...team1, ...team2]).thenIdempotent();
  });

  it('given a team, when events are delivered again out of order, then nothing changes', async () => {
    // eve added again, created again, removed again
    await spec.given(team1).redelivered(3, 0, 6).thenIdempotent();
  });

  describe('given a deleted team', () => {
    const history = [...team1, ...team2, ...inStream('team-t2', [{ type: 'TeamDeleted', data: { ...t2, deletedAt: later } }])];

    it('then it is a tombstone', async () => {
      await spec.given(history).then({
        [TEAMS]: [
          expect.objectContaining({ _id: 't1' }),
          expect.objectContaining({ _id: 't2', deletedAt: later, members: 0, revision: 3 }),
        ],
      });
    });

    it('then it has no memberships, and other teams keep theirs', async () => {
      await spec
        .given(history)
        .then({ [TEAM_MEMBERSHIPS]: [expect.objectContaining({ _id: 't1:mia' }), expect.objectContaining({ _id: 't1:olga' })] });
    });
  });

  describe('given the organization removed a member', () => {
    const otherOrganization = inStream('team-t3', [
      { type: 'TeamCreated', data: { teamId: 't3', organizationId: 'o2', title: 'Elsewhere', createdBy: 'mia', createdAt: now } },
      { type: 'TeamMemberAdded', data: { teamId: 't3', organizationId: 'o2', userId: 'mia', role: 'owner', addedAt: now } },
    ]);
    const history = [
      ...team1,
      ...team2,
      ...otherOrganization,
      ...inStream('organization-o1', [{ type: 'MemberRemoved', data: { organizationId: 'o1', userId: 'mia' } }]),
    ];
    // The team streams then agree (RemoveUserFromAllTeams): their TeamMemberRemoved changes nothing more.
    const swept = [
      ...history,
      ...inStream('team-t1', [{ type: 'TeamMemberRemoved', data: { ...t1, userId: 'mia' } }]),
      ...inStream('team-t2', [{ type: 'TeamMemberRemoved', data: { ...t2, userId: 'mia' } }]),
    ];
    const memberships = ['t1:olga', 't2:olga', 't3:mia'].map((_id) => expect.objectContaining({ _id }));

    it('then their memberships in its teams go', async () => {
      await spec.given(history).then({ [TEAM_MEMBERSHIPS]: memberships });
    });

    it('then the member counts follow', async () => {
      await spec.given(history).then({
        [TEAMS]: [
          expect.objectContaining({ _id: 't1', members: 1 }),
          expect.objectContaining({ _id: 't2', members: 1 }),
          expect.objectContaining({ _id: 't3', members: 1 }),
        ],
      });
    });

    it('when the removal is delivered again, then nothing changes', async () => {
      await spec
        .given(history)
        .redelivered(history.length - 1)
        .thenIdempotent();
    });

    it('when the team streams remove them too, then the memberships stay as they are', async () => {
      await spec.given(swept).then({ [TEAM_MEMBERSHIPS]: memberships });
    });

    it('when the team streams remove them too, then only the revisions move', async () => {
      await spec.given(swept).then({
        [TEAMS]: [
          expect.objectContaining({ _id: 't1', members: 1, revision: 7 }),
          expect.objectContaining({ _id: 't2', members: 1, revision: 3 }),
          expect.objectContaining({ _id: 't3', members: 1, revision: 1 }),
        ],
      });
    });
  });

  it('given a MemberRemoved for someone in no team, then nothing changes', async () => {
    await spec
      .given([...team1, ...inStream('organization-o1', [{ type: 'MemberRemoved', data: { organizationId: 'o1', userId: 'nobody' } }])])
      .then(team1Documents);
  });
});

describe('team projection: each member’s count of the organization’s teams', () => {
  const counts = (...members: Array<[string, string, number]>) => ({
    [TEAM_MEMBER_COUNTS]: members.map(([organizationId, userId, teams]) => ({
      _id: `${organizationId}:${userId}`,
      organizationId,
      userId,
      teams,
    })),
  });

  it('given members joining and leaving teams, then each counts the teams they are in (none: no document)', async () => {
    await spec.given([...team1, ...team2]).then(counts(['o1', 'mia', 2], ['o1', 'olga', 2]));
  });

  it('given a team deleted, then its members count one team fewer', async () => {
    await spec
      .given([...team1, ...team2, ...inStream('team-t2', [{ type: 'TeamDeleted', data: { ...t2, deletedAt: later } }])])
      .then(counts(['o1', 'mia', 1], ['o1', 'olga', 1]));
  });

  it('given the organization removed a member, then they count no team of it, and keep their count in another organization', async () => {
    const elsewhere = inStream('team-t3', [
      { type: 'TeamCreated', data: { teamId: 't3', organizationId: 'o2', title: 'Elsewhere', createdBy: 'mia', createdAt: now } },
      { type: 'TeamMemberAdded', data: { teamId: 't3', organizationId: 'o2', userId: 'mia', role: 'owner', addedAt: now } },
    ]);
    const removed = inStream('organization-o1', [{ type: 'MemberRemoved', data: { organizationId: 'o1', userId: 'mia' } }]);
    await spec.given([...team1, ...team2, ...elsewhere, ...removed]).then(counts(['o1', 'olga', 2], ['o2', 'mia', 1]));
  });

  it('given the events delivered again, then the counts are unchanged', async () => {
    await spec
      .given([...team1, ...team2])
      .redelivered(1, 2, 8)
      .thenIdempotent();
  });
});

describe('team projection: spaces granting the team a role', () => {
  /** A space stream: created at revision 0 (the team projection skips it), then the grants. */
  const grants = (spaceId: string, events: Array<[string, object]>) =>
    inStream(`space-${spaceId}`, [
      { type: 'SpaceCreated', data: { spaceId, organizationId: 'o1' } },
      ...events.map(([type, data]) => ({ type, data: { spaceId, organizationId: 'o1', ...data } })),
    ]);
  const s1 = grants('s1', [
    ['SpaceTeamAccessSet', { teamId: 't1', role: 'edit' }],
    ['SpaceTeamAccessSet', { teamId: 't2', role: 'read' }],
    ['SpaceTeamAccessSet', { teamId: 't1', role: 'admin' }],
  ]);
  const s2 = grants('s2', [
    ['SpaceTeamAccessSet', { teamId: 't1', role: 'read' }],
    ['SpaceTeamAccessRemoved', { teamId: 't1' }],
    ['SpaceTeamAccessSet', { teamId: 't2', role: 'read' }],
  ]);
  const s3 = grants('s3', [['SpaceTeamAccessSet', { teamId: 't1', role: 'comment' }]]);
  const everything = [...team1, ...team2, ...s1, ...s2, ...s3];
  const counted = (...teams: Array<[string, number]>) => ({
    [TEAMS]: teams.map(([_id, spaces]) => expect.objectContaining({ _id, spaces })),
  });

  it('given grants and removals, then each team counts the spaces granting it a role', async () => {
    await spec.given(everything).then(counted(['t1', 2], ['t2', 2]));
  });

  it('given grants and removals, then one granting document per space and team still granted', async () => {
    await spec.given(everything).thenStore(async (reads) => expect(await reads.collection(TEAM_SPACES).count({ granted: true })).toBe(4));
  });

  it('given grants recorded before the team document, then the team counts them when created', async () => {
    await spec.given([...s3, ...team1]).then(counted(['t1', 1]));
  });

  it('given the grant removed later, when delivered again, then nothing changes', async () => {
    const grantRemovedLater = everything.indexOf(s2[1]);
    await spec
      .given(everything)
      .redelivered(grantRemovedLater)
      .then(counted(['t1', 2], ['t2', 2]));
  });
});

describe('team audit catalog', () => {
  const recorded = recordEvents([...team1, ...inStream('team-t1', [{ type: 'TeamDeleted', data: { ...t1, deletedAt: later } }])]);

  it('describes every team event as an action on the team, with its title where the event carries it', () => {
    expect(recorded.slice(0, 7).map((event) => teamAuditCatalog[event.type](event))).toEqual([
      { action: 'team.created', organizationId: 'o1', target: { type: 'team', id: 't1', label: 'Writers' } },
      { action: 'team.member_added', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.member_added', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.member_added', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.updated', organizationId: 'o1', target: { type: 'team', id: 't1', label: 'Editors' } },
      { action: 'team.member_updated', organizationId: 'o1', target: { type: 'team', id: 't1' } },
      { action: 'team.member_removed', organizationId: 'o1', target: { type: 'team', id: 't1' } },
    ]);
  });

  it('describes a deletion as team.deleted', () => {
    expect(teamAuditCatalog.TeamDeleted(recorded[7])).toEqual({
      action: 'team.deleted',
      organizationId: 'o1',
      target: { type: 'team', id: 't1' },
    });
  });
});
