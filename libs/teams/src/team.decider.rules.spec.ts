import type { OrganizationRole } from '#platform/permissions';
import { deciderSpec } from '#testing';
import type { TeamEvent } from './team.events';
import { teamDecider, teamStream, type TeamActor } from './team.decider';

/** The wording of the team decider's refusals, and the state a history starts from. */
const now = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(teamDecider);
const as = (userId: string, organizationRole: OrganizationRole): TeamActor => ({ userId, organizationRole });
const ids = { teamId: 't1', organizationId: 'o1' };
const teamCreated: TeamEvent = { type: 'TeamCreated', data: { ...ids, title: 'Writers', createdBy: 'olga', createdAt: now } };
const created: TeamEvent[] = [teamCreated, { type: 'TeamMemberAdded', data: { ...ids, userId: 'olga', role: 'owner', addedAt: now } }];

describe('team decider: refusals and the initial state', () => {
  it("names a team's stream by its id", () => {
    expect(teamStream('t1')).toBe('team-t1');
  });

  it('given a team, when a member who does not own it renames it, then 403 saying who may change it', () => {
    spec
      .given(created)
      .when({ kind: 'RenameTeam', ...ids, title: 'Editors', by: as('mia', 'edit') })
      .thenFails(403, 'only organization admins and owners of team t1 may change it');
  });

  it('given nothing, when a member with role edit creates a team, then 403 saying which roles may', () => {
    spec
      .given([])
      .when({ kind: 'CreateTeam', ...ids, title: 'T', members: [], by: as('eve', 'edit'), now })
      .thenFails(403, 'only members with role create or admin may create teams in organization o1');
  });

  it('given a team, when one change names a user twice, then 400 naming the user and the team', () => {
    spec
      .given(created)
      .when({
        kind: 'ChangeTeamMembers',
        ...ids,
        changes: [
          { op: 'add', userId: 'eve' },
          { op: 'remove', userId: 'eve' },
        ],
        by: as('olga', 'create'),
        now,
      })
      .thenFails(400, 'user eve appears more than once in one change of team t1');
  });

  it('given a history holding only the creation, when an organization admin renames the team, then it is renamed (a team starts with no members)', () => {
    // Mutation pinned: an initial state without its empty member map.
    spec
      .given([teamCreated])
      .when({ kind: 'RenameTeam', ...ids, title: 'Editors', by: as('ada', 'admin') })
      .then([{ type: 'TeamRenamed', data: { ...ids, title: 'Editors' } }]);
  });
});
