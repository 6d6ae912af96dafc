import { DomainError } from '../../platform/src/errors';
import type { OrganizationRole } from '../../platform/src/permissions';
import type { TeamEvent } from './team.events';
import { planMemberChanges, teamDecider, type TeamActor, type TeamCommand } from './team.decider';

const now = '2026-01-01T00:00:00.000Z';
const given = (events: TeamEvent[]) => events.reduce(teamDecider.evolve, teamDecider.initialState());
const when = (events: TeamEvent[], command: TeamCommand) => teamDecider.decide(command, given(events));
const as = (userId: string, organizationRole: OrganizationRole): TeamActor => ({ userId, organizationRole });

const ada = as('ada', 'admin'); // organization admin
const olga = as('olga', 'create'); // team owner
const mia = as('mia', 'edit'); // team member
const eve = as('eve', 'edit'); // in the organization, not in the team
const gus = as('gus', null); // guest of the organization

const ids = { teamId: 't1', organizationId: 'o1' };
const added = (userId: string, role: 'owner' | 'member'): TeamEvent => ({ type: 'TeamMemberAdded', data: { ...ids, userId, role, addedAt: now } });
const removed = (userId: string): TeamEvent => ({ type: 'TeamMemberRemoved', data: { ...ids, userId } });
const roleChanged = (userId: string, role: 'owner' | 'member'): TeamEvent => ({ type: 'TeamMemberRoleChanged', data: { ...ids, userId, role } });

const created: TeamEvent[] = [
  { type: 'TeamCreated', data: { ...ids, title: 'Writers', createdBy: 'olga', createdAt: now } },
  added('olga', 'owner'),
  added('mia', 'member'),
];
const deleted: TeamEvent[] = [...created, { type: 'TeamDeleted', data: { ...ids, deletedAt: now } }];

const rename = (by: TeamActor, title = 'Editors', organizationId = 'o1'): TeamCommand => ({ kind: 'RenameTeam', teamId: 't1', organizationId, title, by });
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
      expect(when([], { kind: 'CreateTeam', ...ids, title: 'Writers', members: ['mia', 'olga', 'mia'], by: olga, now })).toEqual(created);
    });

    it('given nothing, when an organization admin creates a team, then they are its owner too', () => {
      expect(when([], { kind: 'CreateTeam', ...ids, title: 'T', members: [], by: ada, now })).toEqual([
        { type: 'TeamCreated', data: { ...ids, title: 'T', createdBy: 'ada', createdAt: now } },
        added('ada', 'owner'),
      ]);
    });

    it.each([as('e', 'edit'), as('r', 'review'), as('c', 'comment'), as('r', 'read'), gus])('given nothing, when role %o creates a team, then 403', (by) => {
      expect(when([], { kind: 'CreateTeam', ...ids, title: 'T', members: [], by, now })).toMatchObject({ status: 403 });
    });

    it('given a team, when creating it again, then 409', () => {
      expect(when(created, { kind: 'CreateTeam', ...ids, title: 'T', members: [], by: ada, now })).toEqual(DomainError.conflict('team t1 already exists'));
    });
  });

  describe('RenameTeam', () => {
    it.each([ada, olga])('given a team, when %o renames it, then TeamRenamed', (by) => {
      expect(when(created, rename(by))).toEqual([{ type: 'TeamRenamed', data: { ...ids, title: 'Editors' } }]);
    });

    it('given a renamed team, when renamed to the same title, then no event', () => {
      const renamed: TeamEvent[] = [...created, { type: 'TeamRenamed', data: { ...ids, title: 'Editors' } }];
      expect(given(renamed).title).toBe('Editors');
      expect(when(renamed, rename(ada))).toEqual([]);
    });

    it.each([mia, eve, gus])('given a team, when %o (not admin, not owner) renames it, then 403', (by) => {
      expect(when(created, rename(by))).toMatchObject({ status: 403 });
    });

    it('given a team owner whose organization role is guest, then they still manage the team', () => {
      const withGuestOwner = [...created, added('gus', 'owner')];
      expect(when(withGuestOwner, rename(gus))).toEqual([{ type: 'TeamRenamed', data: { ...ids, title: 'Editors' } }]);
    });

    it('given no team, or a team of another organization, then 404', () => {
      expect(when([], rename(ada))).toEqual(DomainError.notFound('no team t1'));
      expect(when(created, rename(ada, 'X', 'o2'))).toEqual(DomainError.notFound('no team t1'));
    });
  });

  describe('DeleteTeam', () => {
    it.each([ada, olga])('given a team, when %o deletes it, then TeamDeleted', (by) => {
      expect(when(created, { kind: 'DeleteTeam', ...ids, by, now })).toEqual([{ type: 'TeamDeleted', data: { ...ids, deletedAt: now } }]);
    });

    it('given a team, when a plain member deletes it, then 403', () => {
      expect(when(created, { kind: 'DeleteTeam', ...ids, by: mia, now })).toMatchObject({ status: 403 });
    });
  });

  describe('a deleted team refuses everything with 404', () => {
    it.each<[string, TeamCommand]>([
      ['rename', rename(ada)],
      ['delete', { kind: 'DeleteTeam', ...ids, by: ada, now }],
      ['change members', change(ada, [{ op: 'add', userId: 'eve' }])],
      ['remove a member', { kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: ada }],
      ['leave', { kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: mia }],
    ])('%s', (_, command) => {
      expect(when(deleted, command)).toEqual(DomainError.notFound('no team t1'));
    });

    it('and has no members left', () => {
      expect(given(deleted).members).toEqual(new Map());
    });

    it('except the sweep of a departed member, which finds nothing to do', () => {
      expect(when(deleted, { kind: 'RemoveDepartedMember', ...ids, userId: 'mia' })).toEqual([]);
    });
  });

  describe('ChangeTeamMembers', () => {
    it('given a team, when its owner adds, sets and removes, then one event per actual change, in order', () => {
      expect(
        when(
          created,
          change(olga, [
            { op: 'add', userId: 'eve' },
            { op: 'set', userId: 'mia', role: 'owner' },
            { op: 'set', userId: 'ada', role: 'owner' },
            { op: 'remove', userId: 'olga' },
          ]),
        ),
      ).toEqual([added('eve', 'member'), roleChanged('mia', 'owner'), added('ada', 'owner'), removed('olga')]);
    });

    it('given a team, when nothing would change, then no event', () => {
      // Already in: an add keeps their role (an owner stays owner); same role; removing someone not in the team.
      expect(when(created, change(ada, [{ op: 'add', userId: 'mia' }, { op: 'add', userId: 'olga' }]))).toEqual([]);
      expect(when(created, change(ada, [{ op: 'set', userId: 'mia', role: 'member' }, { op: 'remove', userId: 'eve' }]))).toEqual([]);
    });

    it('given a team, when a plain member or an outsider of the team changes members, then 403', () => {
      expect(when(created, change(mia, [{ op: 'add', userId: 'eve' }]))).toMatchObject({ status: 403 });
      expect(when(created, change(eve, [{ op: 'add', userId: 'eve' }]))).toMatchObject({ status: 403 });
    });

    it('given a team, when a user appears twice in one change, then 400', () => {
      expect(
        when(
          created,
          change(ada, [
            { op: 'add', userId: 'eve' },
            { op: 'remove', userId: 'eve' },
          ]),
        ),
      ).toMatchObject({ status: 400 });
    });

    it('given changed members, then later decisions see them', () => {
      const events = [...created, added('eve', 'member'), roleChanged('mia', 'owner'), removed('olga')];
      expect(given(events).members).toEqual(new Map([['mia', 'owner'], ['eve', 'member']]));
      // olga is no longer owner: 403; mia now is.
      expect(when(events, rename(olga))).toMatchObject({ status: 403 });
      expect(when(events, rename(mia))).toEqual([{ type: 'TeamRenamed', data: { ...ids, title: 'Editors' } }]);
    });
  });

  describe('RemoveTeamMember', () => {
    it('given a team, when its owner removes a member, then TeamMemberRemoved', () => {
      expect(when(created, { kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: olga })).toEqual([removed('mia')]);
    });

    it('given a team, when a plain member leaves, then TeamMemberRemoved', () => {
      expect(when(created, { kind: 'RemoveTeamMember', ...ids, userId: 'mia', by: mia })).toEqual([removed('mia')]);
    });

    it('given a team, when a plain member removes someone else, then 403', () => {
      expect(when(created, { kind: 'RemoveTeamMember', ...ids, userId: 'olga', by: mia })).toMatchObject({ status: 403 });
    });

    it('given a team, when removing someone not in it, then 404', () => {
      expect(when(created, { kind: 'RemoveTeamMember', ...ids, userId: 'eve', by: ada })).toEqual(DomainError.notFound('no member eve in team t1'));
    });
  });

  describe('JoinTeamBySso', () => {
    it('given a team without the user, then they join as member; already in, nothing changes', () => {
      expect(when(created, { kind: 'JoinTeamBySso', ...ids, userId: 'eve', now })).toEqual([added('eve', 'member')]);
      expect(when(created, { kind: 'JoinTeamBySso', ...ids, userId: 'olga', now })).toEqual([]);
    });

    it('given no team, a deleted team or a team of another organization, then 404', () => {
      expect(when([], { kind: 'JoinTeamBySso', ...ids, userId: 'eve', now })).toMatchObject({ status: 404 });
      expect(when(deleted, { kind: 'JoinTeamBySso', ...ids, userId: 'eve', now })).toMatchObject({ status: 404 });
      expect(when(created, { kind: 'JoinTeamBySso', teamId: 't1', organizationId: 'o2', userId: 'eve', now })).toMatchObject({ status: 404 });
    });
  });

  describe('RemoveDepartedMember', () => {
    it('given a team with the user, then they are removed, whoever asks', () => {
      expect(when(created, { kind: 'RemoveDepartedMember', ...ids, userId: 'mia' })).toEqual([removed('mia')]);
    });

    it('given a team without the user, no team, or a team of another organization, then no event', () => {
      expect(when(created, { kind: 'RemoveDepartedMember', ...ids, userId: 'eve' })).toEqual([]);
      expect(when([], { kind: 'RemoveDepartedMember', ...ids, userId: 'mia' })).toEqual([]);
      expect(when(created, { kind: 'RemoveDepartedMember', teamId: 't1', organizationId: 'o2', userId: 'mia' })).toEqual([]);
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
    expect(when(created, { kind: 'RemoveTeamMember', ...ids, userId, by: ada })).toEqual(DomainError.notFound(`no member ${userId} in team t1`));
  });

  it.each(prototypeIds)('given a team without %s, when a bulk change names them, then removing appends nothing and setting or adding adds them', (userId) => {
    expect(when(created, change(ada, [{ op: 'remove', userId }]))).toEqual([]);
    expect(when(created, change(ada, [{ op: 'set', userId, role: 'owner' }]))).toEqual([added(userId, 'owner')]);
    expect(when(created, change(ada, [{ op: 'add', userId }]))).toEqual([added(userId, 'member')]);
  });

  it.each(prototypeIds)('given a team without %s, when the organization sweep names them, then nothing, and an SSO login adds them', (userId) => {
    expect(when(created, { kind: 'RemoveDepartedMember', ...ids, userId })).toEqual([]);
    expect(when(created, { kind: 'JoinTeamBySso', ...ids, userId, now })).toEqual([added(userId, 'member')]);
  });

  it.each(prototypeIds)('given %s joined, then they are a member like any other and leave like any other', (userId) => {
    const joined = [...created, added(userId, 'owner')];
    expect(given(joined).members.get(userId)).toBe('owner');
    expect(when(joined, rename(as(userId, 'read')))).toEqual([{ type: 'TeamRenamed', data: { ...ids, title: 'Editors' } }]);
    expect(when(joined, { kind: 'RemoveTeamMember', ...ids, userId, by: ada })).toEqual([removed(userId)]);
    expect(given([...joined, removed(userId)]).members.has(userId)).toBe(false);
  });

  it('given an actor named constructor outside the team, then they are no owner of it (403)', () => {
    expect(when(created, rename(as('constructor', 'read')))).toMatchObject({ status: 403 });
  });
});
