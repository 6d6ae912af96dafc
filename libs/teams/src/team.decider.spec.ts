import type { OrganizationRole } from '#platform/permissions';
import { deciderSpec } from '#testing';
import type { TeamEvent } from './team.events';
import { planMemberChanges, teamDecider, type TeamActor, type TeamCommand } from './team.decider';

const now = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(teamDecider);
const as = (userId: string, organizationRole: OrganizationRole): TeamActor => ({ userId, organizationRole });

const ada = as('ada', 'admin'); // organization admin
const olga = as('olga', 'create'); // team owner
const mia = as('mia', 'edit'); // team member
const eve = as('eve', 'edit'); // in the organization, not in the team
const gus = as('gus', null); // guest of the organization

const ids = { teamId: 't1', organizationId: 'o1' };
const added = (userId: string, role: 'owner' | 'member'): TeamEvent => ({
  type: 'TeamMemberAdded',
  data: { ...ids, userId, role, addedAt: now },
});
const removed = (userId: string): TeamEvent => ({ type: 'TeamMemberRemoved', data: { ...ids, userId } });
const roleChanged = (userId: string, role: 'owner' | 'member'): TeamEvent => ({
  type: 'TeamMemberRoleChanged',
  data: { ...ids, userId, role },
});
const renamedTo = (title: string): TeamEvent => ({ type: 'TeamRenamed', data: { ...ids, title } });

const created: TeamEvent[] = [
  { type: 'TeamCreated', data: { ...ids, title: 'Writers', createdBy: 'olga', createdAt: now } },
  added('olga', 'owner'),
  added('mia', 'member'),
];
const deleted: TeamEvent[] = [...created, { type: 'TeamDeleted', data: { ...ids, deletedAt: now } }];

const rename = (by: TeamActor, title = 'Editors', organizationId = 'o1'): TeamCommand => ({
  kind: 'RenameTeam',
  teamId: 't1',
  organizationId,
  title,
  by,
});
const change = (by: TeamActor, changes: Extract<TeamCommand, { kind: 'ChangeTeamMembers' }>['changes']): TeamCommand => ({
  kind: 'ChangeTeamMembers',
  ...ids,
  changes,
  by,
  now,
});

describe('team decider', () => {
  describe('CreateTeam', () => {
    it('given nothing, when a member with role create creates a team, then it is created with them as owner and the others as members', () => {
      spec
        .given([])
        .when({ kind: 'CreateTeam', ...ids, title: 'Writers', members: ['mia', 'olga', 'mia'], by: olga, now })
        .then(created);
    });

    it('given nothing, when an organization admin creates a team, then they are its owner too', () => {
      spec
        .given([])
        .when({ kind: 'CreateTeam', ...ids, title: 'T', members: [], by: ada, now })
        .then([{ type: 'TeamCreated', data: { ...ids, title: 'T', createdBy: 'ada', createdAt: now } }, added('ada', 'owner')]);
    });

    it.each([as('e', 'edit'), as('r', 'review'), as('c', 'comment'), as('r', 'read'), gus])(
      'given nothing, when role %o creates a team, then 403',
      (by) => {
        spec
          .given([])
          .when({ kind: 'CreateTeam', ...ids, title: 'T', members: [], by, now })
          .thenFails(403);
      },
    );

    it('given a team, when creating it again, then 409', () => {
      spec
        .given(created)
        .when({ kind: 'CreateTeam', ...ids, title: 'T', members: [], by: ada, now })
        .thenFails(409, 'team t1 already exists');
    });
  });

  describe('RenameTeam', () => {
    const renamed: TeamEvent[] = [...created, renamedTo('Editors')];

    it.each([ada, olga])('given a team, when %o renames it, then TeamRenamed', (by) => {
      spec
        .given(created)
        .when(rename(by))
        .then([renamedTo('Editors')]);
    });

    it('given a renamed team, then the state holds the new title', () => {
      spec.given(renamed).thenState((state) => expect(state.title).toBe('Editors'));
    });

    it('given a renamed team, when renamed to the same title, then no event', () => {
      spec.given(renamed).when(rename(ada)).thenNothing();
    });

    it.each([mia, eve, gus])('given a team, when %o (not admin, not owner) renames it, then 403', (by) => {
      spec.given(created).when(rename(by)).thenFails(403);
    });

    it('given a team owner whose organization role is guest, when they rename it, then they still manage the team', () => {
      spec
        .given([...created, added('gus', 'owner')])
        .when(rename(gus))
        .then([renamedTo('Editors')]);
    });

    it('given no team, when renaming it, then 404', () => {
      spec.given([]).when(rename(ada)).thenFails(404, 'no team t1');
    });

    it('given a team of another organization, when renaming it, then 404', () => {
      spec
        .given(created)
        .when(rename(ada, 'X', 'o2'))
        .thenFails(404, 'no team t1');
    });
  });

  describe('DeleteTeam', () => {
    it.each([ada, olga])('given a team, when %o deletes it, then TeamDeleted', (by) => {
      spec
        .given(created)
        .when({ kind: 'DeleteTeam', ...ids, by, now })
        .then([{ type: 'TeamDeleted', data: { ...ids, deletedAt: now } }]);
    });

    it('given a team, when a plain member deletes it, then 403', () => {
      spec
        .given(created)
        .when({ kind: 'DeleteTeam', ...ids, by: mia, now })
        .thenFails(403);
    });
  });

  describe('given a deleted team', () => {
    it.each<[string, TeamCommand]>([
      ['rename', rename(ada)],
      ['delete', { kind: 'DeleteTeam', ...ids, by: ada, now }],
      ['change members', change(ada, [{ op: 'add', userId: 'eve' }])],
      ['remove a member', { kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: ada }],
      ['leave', { kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: mia }],
    ])('when asked to %s, then 404', (_, command) => {
      spec.given(deleted).when(command).thenFails(404, 'no team t1');
    });

    it('then it has no members left', () => {
      spec.given(deleted).thenState((state) => expect(state.members).toEqual(new Map()));
    });

    it('when the sweep of a departed member runs, then it finds nothing to do', () => {
      spec
        .given(deleted)
        .when({ kind: 'RemoveDepartedMember', ...ids, userId: 'mia' })
        .thenNothing();
    });
  });

  describe('ChangeTeamMembers', () => {
    it('given a team, when its owner adds, sets and removes, then one event per actual change, in order', () => {
      spec
        .given(created)
        .when(
          change(olga, [
            { op: 'add', userId: 'eve' },
            { op: 'set', userId: 'mia', role: 'owner' },
            { op: 'set', userId: 'ada', role: 'owner' },
            { op: 'remove', userId: 'olga' },
          ]),
        )
        .then([added('eve', 'member'), roleChanged('mia', 'owner'), added('ada', 'owner'), removed('olga')]);
    });

    it('given a team, when adding people already in it, then no event (an add keeps their role: an owner stays owner)', () => {
      spec
        .given(created)
        .when(
          change(ada, [
            { op: 'add', userId: 'mia' },
            { op: 'add', userId: 'olga' },
          ]),
        )
        .thenNothing();
    });

    it('given a team, when setting the role a member has and removing someone not in the team, then no event', () => {
      spec
        .given(created)
        .when(
          change(ada, [
            { op: 'set', userId: 'mia', role: 'member' },
            { op: 'remove', userId: 'eve' },
          ]),
        )
        .thenNothing();
    });

    it('given a team, when a plain member changes members, then 403', () => {
      spec
        .given(created)
        .when(change(mia, [{ op: 'add', userId: 'eve' }]))
        .thenFails(403);
    });

    it('given a team, when an outsider of the team changes members, then 403', () => {
      spec
        .given(created)
        .when(change(eve, [{ op: 'add', userId: 'eve' }]))
        .thenFails(403);
    });

    it('given a team, when a user appears twice in one change, then 400', () => {
      spec
        .given(created)
        .when(
          change(ada, [
            { op: 'add', userId: 'eve' },
            { op: 'remove', userId: 'eve' },
          ]),
        )
        .thenFails(400);
    });

    describe('given changed members', () => {
      const changed = [...created, added('eve', 'member'), roleChanged('mia', 'owner'), removed('olga')];

      it('then the state holds them', () => {
        spec.given(changed).thenState((state) =>
          expect(state.members).toEqual(
            new Map([
              ['mia', 'owner'],
              ['eve', 'member'],
            ]),
          ),
        );
      });

      it('when the former owner renames the team, then 403', () => {
        spec.given(changed).when(rename(olga)).thenFails(403);
      });

      it('when the new owner renames the team, then TeamRenamed', () => {
        spec
          .given(changed)
          .when(rename(mia))
          .then([renamedTo('Editors')]);
      });
    });
  });

  describe('RemoveTeamMember', () => {
    it('given a team, when its owner removes a member, then TeamMemberRemoved', () => {
      spec
        .given(created)
        .when({ kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: olga })
        .then([removed('mia')]);
    });

    it('given a team, when a plain member leaves, then TeamMemberRemoved', () => {
      spec
        .given(created)
        .when({ kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: mia })
        .then([removed('mia')]);
    });

    it('given a team, when a plain member removes someone else, then 403', () => {
      spec
        .given(created)
        .when({ kind: 'RemoveTeamMember', ...ids, userId: 'olga', by: mia })
        .thenFails(403);
    });

    it('given a team, when removing someone not in it, then 404', () => {
      spec
        .given(created)
        .when({ kind: 'RemoveTeamMember', ...ids, userId: 'eve', by: ada })
        .thenFails(404, 'no member eve in team t1');
    });
  });

  describe('JoinTeamBySso', () => {
    it('given a team without the user, when they log in, then they join as member', () => {
      spec
        .given(created)
        .when({ kind: 'JoinTeamBySso', ...ids, userId: 'eve', now })
        .then([added('eve', 'member')]);
    });

    it('given a team with the user, when they log in, then nothing changes', () => {
      spec
        .given(created)
        .when({ kind: 'JoinTeamBySso', ...ids, userId: 'olga', now })
        .thenNothing();
    });

    it('given no team, when a user logs in, then 404', () => {
      spec
        .given([])
        .when({ kind: 'JoinTeamBySso', ...ids, userId: 'eve', now })
        .thenFails(404);
    });

    it('given a deleted team, when a user logs in, then 404', () => {
      spec
        .given(deleted)
        .when({ kind: 'JoinTeamBySso', ...ids, userId: 'eve', now })
        .thenFails(404);
    });

    it('given a team of another organization, when a user logs in, then 404', () => {
      spec.given(created).when({ kind: 'JoinTeamBySso', teamId: 't1', organizationId: 'o2', userId: 'eve', now }).thenFails(404);
    });
  });

  describe('RemoveDepartedMember', () => {
    it('given a team with the user, when swept, then they are removed, whoever asks', () => {
      spec
        .given(created)
        .when({ kind: 'RemoveDepartedMember', ...ids, userId: 'mia' })
        .then([removed('mia')]);
    });

    it('given a team without the user, when swept, then no event', () => {
      spec
        .given(created)
        .when({ kind: 'RemoveDepartedMember', ...ids, userId: 'eve' })
        .thenNothing();
    });

    it('given no team, when swept, then no event', () => {
      spec
        .given([])
        .when({ kind: 'RemoveDepartedMember', ...ids, userId: 'mia' })
        .thenNothing();
    });

    it('given a team of another organization, when swept, then no event', () => {
      spec.given(created).when({ kind: 'RemoveDepartedMember', teamId: 't1', organizationId: 'o2', userId: 'mia' }).thenNothing();
    });
  });
});

describe('planMemberChanges', () => {
  it('turns add, remove and memberships into one change per user; remove wins, memberships set the role', () => {
    expect(
      planMemberChanges({
        add: ['a', 'b', 'c', 'a'],
        remove: ['b', 'd'],
        memberships: [
          ['c', 'owner'],
          ['e', 'member'],
          ['d', 'owner'],
        ],
      }),
    ).toEqual([
      { op: 'set', userId: 'c', role: 'owner' },
      { op: 'set', userId: 'e', role: 'member' },
      { op: 'remove', userId: 'd' },
      { op: 'add', userId: 'a' },
      { op: 'remove', userId: 'b' },
    ]);
  });

  it('plans nothing for an empty update', () => {
    expect(planMemberChanges({ add: [], remove: [], memberships: [] })).toEqual([]);
  });
});

describe('team decider with user ids named like Object.prototype members', () => {
  const prototypeIds = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];

  it.each(prototypeIds)('given a team without %s, when removing them, then 404 and no event', (userId) => {
    spec
      .given(created)
      .when({ kind: 'RemoveTeamMember', ...ids, userId, by: ada })
      .thenFails(404, `no member ${userId} in team t1`);
  });

  it.each(prototypeIds)('given a team without %s, when a bulk change removes them, then no event', (userId) => {
    spec
      .given(created)
      .when(change(ada, [{ op: 'remove', userId }]))
      .thenNothing();
  });

  it.each(prototypeIds)('given a team without %s, when a bulk change sets their role, then they are added with it', (userId) => {
    spec
      .given(created)
      .when(change(ada, [{ op: 'set', userId, role: 'owner' }]))
      .then([added(userId, 'owner')]);
  });

  it.each(prototypeIds)('given a team without %s, when a bulk change adds them, then they are added as member', (userId) => {
    spec
      .given(created)
      .when(change(ada, [{ op: 'add', userId }]))
      .then([added(userId, 'member')]);
  });

  it.each(prototypeIds)('given a team without %s, when the organization sweep names them, then nothing', (userId) => {
    spec
      .given(created)
      .when({ kind: 'RemoveDepartedMember', ...ids, userId })
      .thenNothing();
  });

  it.each(prototypeIds)('given a team without %s, when they log in through SSO, then they are added', (userId) => {
    spec
      .given(created)
      .when({ kind: 'JoinTeamBySso', ...ids, userId, now })
      .then([added(userId, 'member')]);
  });

  it.each(prototypeIds)('given %s joined as owner, then the state holds them like any other', (userId) => {
    spec.given([...created, added(userId, 'owner')]).thenState((state) => expect(state.members.get(userId)).toBe('owner'));
  });

  it.each(prototypeIds)('given %s joined as owner, when they rename the team, then TeamRenamed', (userId) => {
    spec
      .given([...created, added(userId, 'owner')])
      .when(rename(as(userId, 'read')))
      .then([renamedTo('Editors')]);
  });

  it.each(prototypeIds)('given %s joined, when removed, then TeamMemberRemoved', (userId) => {
    spec
      .given([...created, added(userId, 'owner')])
      .when({ kind: 'RemoveTeamMember', ...ids, userId, by: ada })
      .then([removed(userId)]);
  });

  it.each(prototypeIds)('given %s joined and removed, then the state no longer holds them', (userId) => {
    spec.given([...created, added(userId, 'owner'), removed(userId)]).thenState((state) => expect(state.members.has(userId)).toBe(false));
  });

  it('given an actor named constructor outside the team, when they rename it, then they are no owner of it (403)', () => {
    spec
      .given(created)
      .when(rename(as('constructor', 'read')))
      .thenFails(403);
  });
});
