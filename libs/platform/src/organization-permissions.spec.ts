import {
  atLeast,
  isOrganizationRole,
  mayCreateTeam,
  organizationPermissions,
  roleRank,
  teamPermissions,
  type OrganizationRole,
} from './permissions';

/**
 * The permission tables of permissions.ts, row by row, as their doc comments draw them: each role's
 * organization permissions, the team table, and what a value that is not a role grants (nothing).
 */
const ROLES: OrganizationRole[] = ['admin', 'create', 'review', 'edit', 'comment', 'read', null];

describe('organization permissions, by role', () => {
  const row = (admin: boolean, creator: boolean, member: boolean) => ({
    view: true,
    admin,
    ownTeam: creator,
    createContent: creator,
    createOpenAPISpec: creator,
    ingestConversations: admin,
    viewBilling: admin,
    listMembers: member,
    listTeams: member,
    listIntegrations: member,
    access: true,
    listInstallations: admin,
    installIntegration: admin,
  });

  it.each([
    ['admin', row(true, true, true)],
    ['create', row(false, true, true)],
    ['review', row(false, false, true)],
    ['edit', row(false, false, true)],
    ['comment', row(false, false, true)],
    ['read', row(false, false, true)],
    [null, row(false, false, false)],
  ] as const)('given the role %p, then exactly its row of the table', (role, expected) => {
    expect(organizationPermissions(role)).toEqual(expected);
  });

  it.each(['owner', 'constructor', undefined])('given %p, which is not a role, then a guest’s row (view and access only)', (notRole) => {
    expect(organizationPermissions(notRole as unknown as OrganizationRole)).toEqual(row(false, false, false));
  });

  it.each([
    ['admin', true],
    ['create', true],
    ['review', false],
    [null, false],
  ] as const)('given the role %p, when creating a team, then %s (create and above)', (role, expected) => {
    expect(mayCreateTeam(role)).toBe(expected);
  });
});

describe('roles and ranks', () => {
  it('ranks the roles from admin down to a guest at 0, anything else at -1', () => {
    expect(ROLES.map(roleRank)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(roleRank('owner' as OrganizationRole)).toBe(-1);
    expect(roleRank(7 as unknown as OrganizationRole)).toBe(-1);
    expect(roleRank(['admin'] as unknown as OrganizationRole)).toBe(-1);
  });

  it('a role reaches the ones below it; nothing reaches a role that is not one', () => {
    expect(atLeast('create', 'review')).toBe(true);
    expect(atLeast('review', 'create')).toBe(false);
    expect(atLeast(null, 'read')).toBe(false);
    expect(atLeast('admin', 'owner' as never)).toBe(false);
  });

  it('tells roles (null is the guest) from everything else', () => {
    for (const role of ROLES) expect(isOrganizationRole(role)).toBe(true);
    for (const value of [undefined, '', 'owner', 'Admin', 'constructor', 0, ['admin']]) expect(isOrganizationRole(value)).toBe(false);
  });
});

describe('team permissions', () => {
  it.each([
    ['an organization admin outside the team', 'admin', null, { admin: true, view: true }],
    ['a team owner who reads the organization', 'read', 'owner', { admin: true, view: true }],
    ['a team owner who is a guest', null, 'owner', { admin: true, view: true }],
    ['a team member who is a guest', null, 'member', { admin: false, view: true }],
    ['a team member who creates', 'create', 'member', { admin: false, view: true }],
    ['another member', 'comment', null, { admin: false, view: true }],
    ['a guest outside the team', null, null, { admin: false, view: false }],
  ] as const)('given %s, then their row of the team table', (_who, organizationRole, teamRole, expected) => {
    expect(teamPermissions(organizationRole, teamRole)).toEqual(expected);
  });
});
