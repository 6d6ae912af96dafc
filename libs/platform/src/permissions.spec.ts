import {
  atLeast,
  ORGANIZATION_ROLES,
  organizationPermissions,
  roleRank,
  teamPermissions,
  translationSettingsPermissions,
  type OrganizationRole,
} from './permissions';

/** Values that are not roles but can reach the rules: a missing member, a stray string, a prototype key. */
const notRoles = [undefined, '', 'owner', 'ADMIN', '__proto__', 'constructor', 'toString', 42, {}] as unknown as OrganizationRole[];

describe('role rank', () => {
  it('orders the roles from admin down to read, all above a guest', () => {
    const ranks = [...ORGANIZATION_ROLES, null].map(roleRank);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(new Set(ranks).size).toBe(ranks.length);
    expect(roleRank(null)).toBe(0);
  });

  it.each(notRoles.map((role) => [String(role), role]))('ranks %s, which is not a role, below a guest', (_label, role) => {
    expect(roleRank(role)).toBeLessThan(roleRank(null));
  });
});

describe('atLeast', () => {
  it('holds for a role and every role below it, not above', () => {
    expect(atLeast('admin', 'read')).toBe(true);
    expect(atLeast('create', 'create')).toBe(true);
    expect(atLeast('edit', 'create')).toBe(false);
    expect(atLeast(null, 'read')).toBe(false);
  });

  it.each(notRoles.map((role) => [String(role), role]))('never holds for %s, which is not a role', (_label, role) => {
    for (const required of ORGANIZATION_ROLES) expect(atLeast(role, required)).toBe(false);
  });

  it('never holds when the required role is not a role', () => {
    expect(atLeast('admin', '__proto__' as never)).toBe(false);
  });
});

describe('permissions of a value that is not a role', () => {
  it('grants what a guest gets in the organization and nothing more', () => {
    for (const role of notRoles) expect(organizationPermissions(role)).toEqual(organizationPermissions(null));
  });

  it('grants no view of a team without a team role', () => {
    for (const role of notRoles) expect(teamPermissions(role, null)).toEqual({ admin: false, view: false });
  });
});

describe('translation settings permissions', () => {
  it('lets admins view and edit', () => {
    expect(translationSettingsPermissions('admin')).toEqual({ view: true, edit: true });
  });

  it.each(['create', 'review', 'edit', 'comment', 'read'] as const)('lets %s view but not edit', (role) => {
    expect(translationSettingsPermissions(role)).toEqual({ view: true, edit: false });
  });

  it('gives a guest nothing', () => {
    expect(translationSettingsPermissions(null)).toEqual({ view: false, edit: false });
  });

  it('gives a value that is not a role nothing', () => {
    for (const role of notRoles) expect(translationSettingsPermissions(role)).toEqual({ view: false, edit: false });
  });
});
