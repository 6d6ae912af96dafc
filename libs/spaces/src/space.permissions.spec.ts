import { spaceRole, type OrganizationStanding } from './space.permissions';

const reader: OrganizationStanding = { member: true, role: 'read', teams: ['t1', 't2'] };
const space = { visibility: 'private' as const, defaultLevel: null, teamRoles: { t1: 'edit' as const, t2: 'comment' as const, t9: 'admin' as const } };

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
