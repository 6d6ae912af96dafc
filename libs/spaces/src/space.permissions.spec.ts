import {
  collectionPermissions,
  collectionRole,
  spacePermissions,
  spaceRole,
  type ContentRole,
  type OrganizationStanding,
} from './space.permissions';

const reader: OrganizationStanding = { member: true, role: 'read', teams: ['t1', 't2'] };
const space = {
  visibility: 'private' as const,
  defaultLevel: null,
  teamRoles: { t1: 'edit' as const, t2: 'comment' as const, t9: 'admin' as const },
};

describe('spaceRole with team grants', () => {
  it('is the highest of the organization role, the default levels and the roles granted to the member’s teams', () => {
    expect(spaceRole(reader, space, [])).toBe('edit');
    expect(spaceRole(reader, { ...space, teamRoles: { t2: 'comment' } }, [{ defaultLevel: 'review' }])).toBe('review');
    expect(spaceRole({ ...reader, teams: [] }, space, [])).toBe('read');
    expect(spaceRole(reader, { visibility: 'private', defaultLevel: null }, [])).toBe('read');
    expect(spaceRole({ member: true, role: 'admin', teams: [] }, space, [])).toBe('admin');
  });

  it('applies to guests in a team, never to people outside the organization', () => {
    expect(spaceRole({ member: true, role: null, teams: ['t2'] }, space, [])).toBe('comment');
    expect(spaceRole({ member: true, role: null, teams: [] }, space, [])).toBeNull();
    expect(spaceRole({ member: false, role: null, teams: ['t9'] }, space, [])).toBeNull();
    expect(spaceRole({ member: true, role: null, teams: ['constructor', 'toString'] }, space, [])).toBeNull();
  });
});

describe('roles that are not roles', () => {
  const notRoles = [undefined, 'owner', 'superadmin', 'constructor'] as unknown as ContentRole[];

  it.each(notRoles)('a member whose organization role is %p has no role on collections or spaces', (role) => {
    const member: OrganizationStanding = { member: true, role, teams: [] };
    expect(collectionRole(member, [{ defaultLevel: null }])).toBeNull();
    expect(spaceRole(member, { visibility: 'private', defaultLevel: null }, [])).toBeNull();
  });

  it.each(notRoles)('a default level or team grant %p raises nobody, and never above admin', (role) => {
    const reader: OrganizationStanding = { member: true, role: 'read', teams: ['t1'] };
    expect(collectionRole(reader, [{ defaultLevel: role as never }])).toBe('read');
    expect(spaceRole(reader, { visibility: 'private', defaultLevel: role as never, teamRoles: { t1: role as never } }, [])).toBe('read');
  });

  it.each(notRoles)('a role %p grants no permission on a space or collection', (role) => {
    expect(spacePermissions(role, false, role)).toEqual({
      view: false,
      access: false,
      admin: false,
      viewInviteLinks: false,
      edit: false,
      triggerGitSync: false,
      comment: false,
      merge: false,
      review: false,
      installIntegration: false,
    });
    expect(collectionPermissions(role)).toEqual({ view: false, admin: false, viewInviteLinks: false, create: false });
  });
});

describe('installIntegration on a space', () => {
  it('is for admins of the organization only, whatever role the space grants', () => {
    expect(spacePermissions('admin', false, 'admin').installIntegration).toBe(true);
    expect(spacePermissions('admin', false, 'edit').installIntegration).toBe(false);
    expect(spacePermissions('admin', false, null).installIntegration).toBe(false);
  });
});

describe("defaultLevel 'inherit'", () => {
  it('grants nothing of its own: the collections above and the organization role still apply', () => {
    expect(spaceRole(reader, { visibility: 'private', defaultLevel: 'inherit' }, [{ defaultLevel: 'review' }])).toBe('review');
    expect(spaceRole({ ...reader, teams: [] }, { visibility: 'private', defaultLevel: 'inherit' }, [])).toBe('read');
    expect(collectionRole(reader, [{ defaultLevel: 'inherit' }, { defaultLevel: 'edit' }])).toBe('edit');
  });
});
