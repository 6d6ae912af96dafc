import { DomainError } from '../../platform/src/errors';
import type { MemberSeenEvent, OrganizationEvent } from './organization.events';
import { memberSeenDecider, organizationDecider, SEEN_INTERVAL_MS, type OrganizationCommand } from './organization.decider';

const now = '2026-01-01T00:00:00.000Z';
const o = 'o1';
const given = (events: OrganizationEvent[]) => events.reduce(organizationDecider.evolve, organizationDecider.initialState());
const when = (events: OrganizationEvent[], command: OrganizationCommand) => organizationDecider.decide(command, given(events));
const added = (userId: string, role: 'admin' | 'edit' | 'read' | null, sso = false): OrganizationEvent => ({
  type: 'MemberAdded',
  data: { organizationId: o, userId, role, sso, joinedAt: now, via: 'invite' },
});
const organization: OrganizationEvent[] = [
  { type: 'OrganizationCreated', data: { organizationId: o, title: 'Acme', emailDomains: [], createdBy: 'ada', createdAt: now } },
  { type: 'MemberAdded', data: { organizationId: o, userId: 'ada', role: 'admin', sso: false, joinedAt: now, via: 'creation' } },
];
const withTeam = [...organization, added('bob', 'edit'), added('eve', 'read')];

describe('members', () => {
  it('given an admin, when inviting new and existing members, then only the new ones are added, each with its role', () => {
    expect(
      when(withTeam, { kind: 'AddMembers', organizationId: o, byUserId: 'ada', now, members: [{ userId: 'bob', role: 'admin', sso: false }, { userId: 'carl', role: 'comment', sso: true }] }),
    ).toEqual([{ type: 'MemberAdded', data: { organizationId: o, userId: 'carl', role: 'comment', sso: true, joinedAt: now, via: 'invite' } }]);
  });

  it('given a member below admin, when inviting, changing roles or removing others, then 403', () => {
    expect(when(withTeam, { kind: 'AddMembers', organizationId: o, byUserId: 'bob', now, members: [{ userId: 'x', role: 'read', sso: false }] })).toMatchObject({ status: 403 });
    expect(when(withTeam, { kind: 'ChangeMemberRole', organizationId: o, userId: 'eve', role: 'edit', byUserId: 'bob' })).toMatchObject({ status: 403 });
    expect(when(withTeam, { kind: 'RemoveMember', organizationId: o, userId: 'eve', byUserId: 'bob' })).toMatchObject({ status: 403 });
  });

  it('given the only admin, when demoted or removed, then 409; with a second admin, then allowed', () => {
    expect(when(withTeam, { kind: 'ChangeMemberRole', organizationId: o, userId: 'ada', role: 'edit', byUserId: 'ada' })).toEqual(
      DomainError.conflict('the last admin of an organization cannot be demoted'),
    );
    expect(when(withTeam, { kind: 'RemoveMember', organizationId: o, userId: 'ada', byUserId: 'ada' })).toEqual(DomainError.conflict('the last admin of an organization cannot be removed'));
    const twoAdmins = [...withTeam, { type: 'MemberRoleChanged', data: { organizationId: o, userId: 'bob', role: 'admin' } } as OrganizationEvent];
    expect(when(twoAdmins, { kind: 'ChangeMemberRole', organizationId: o, userId: 'ada', role: null, byUserId: 'bob' })).toEqual([
      { type: 'MemberRoleChanged', data: { organizationId: o, userId: 'ada', role: null } },
    ]);
    expect(when(twoAdmins, { kind: 'RemoveMember', organizationId: o, userId: 'ada', byUserId: 'ada' })).toEqual([{ type: 'MemberRemoved', data: { organizationId: o, userId: 'ada' } }]);
  });

  it('given any member, when leaving, then removed; given a removed member, then they are gone from the state', () => {
    const left = when(withTeam, { kind: 'RemoveMember', organizationId: o, userId: 'eve', byUserId: 'eve' }) as OrganizationEvent[];
    expect(left).toEqual([{ type: 'MemberRemoved', data: { organizationId: o, userId: 'eve' } }]);
    expect(given([...withTeam, ...left]).members).not.toHaveProperty('eve');
    expect(when([...withTeam, ...left], { kind: 'RemoveMember', organizationId: o, userId: 'eve', byUserId: 'ada' })).toMatchObject({ status: 404 });
  });

  it('given an unchanged role, then no event; an unknown member, then 404', () => {
    expect(when(withTeam, { kind: 'ChangeMemberRole', organizationId: o, userId: 'bob', role: 'edit', byUserId: 'ada' })).toEqual([]);
    expect(when(withTeam, { kind: 'ChangeMemberRole', organizationId: o, userId: 'nobody', role: 'edit', byUserId: 'ada' })).toMatchObject({ status: 404 });
  });

  it('given a link invite, when someone joins by it, then they join with its role; when links are disabled, then 403', () => {
    const invite = { type: 'LinkInviteCreated', data: { organizationId: o, inviteId: 'i1', role: 'comment', createdBy: 'ada', createdAt: now } } as OrganizationEvent;
    expect(when([...organization, invite], { kind: 'JoinByLink', organizationId: o, inviteId: 'i1', userId: 'zed', now })).toEqual([
      { type: 'MemberAdded', data: { organizationId: o, userId: 'zed', role: 'comment', sso: false, joinedAt: now, via: 'link' } },
    ]);
    const disabled = { type: 'OrganizationUpdated', data: { organizationId: o, changes: { inviteLinks: false }, updatedAt: now } } as OrganizationEvent;
    expect(when([...organization, invite, disabled], { kind: 'JoinByLink', organizationId: o, inviteId: 'i1', userId: 'zed', now })).toMatchObject({ status: 403 });
    expect(when([...organization, invite], { kind: 'JoinByLink', organizationId: o, inviteId: 'nope', userId: 'zed', now })).toMatchObject({ status: 404 });
    expect(when([...organization, invite], { kind: 'JoinByLink', organizationId: o, inviteId: 'i1', userId: 'ada', now })).toEqual([]);
    const deleted = when([...organization, invite], { kind: 'DeleteLinkInvite', organizationId: o, inviteId: 'i1', byUserId: 'ada' }) as OrganizationEvent[];
    expect(when([...organization, invite, ...deleted], { kind: 'JoinByLink', organizationId: o, inviteId: 'i1', userId: 'zed', now })).toMatchObject({ status: 404 });
  });

  it('given a SAML login, then a new user joins as an SSO member and an existing member is marked SSO once', () => {
    expect(when(withTeam, { kind: 'JoinBySso', organizationId: o, userId: 'sam', role: 'read', now })).toEqual([
      { type: 'MemberAdded', data: { organizationId: o, userId: 'sam', role: 'read', sso: true, joinedAt: now, via: 'sso' } },
    ]);
    const marked = when(withTeam, { kind: 'JoinBySso', organizationId: o, userId: 'bob', role: 'read', now }) as OrganizationEvent[];
    expect(marked).toEqual([{ type: 'MemberSsoEnabled', data: { organizationId: o, userId: 'bob' } }]);
    expect(when([...withTeam, ...marked], { kind: 'JoinBySso', organizationId: o, userId: 'bob', role: 'read', now })).toEqual([]);
  });
});

describe('member seen', () => {
  const seen = (at: string): MemberSeenEvent => ({ type: 'MemberSeen', data: { organizationId: o, userId: 'ada', seenAt: at } });
  const ping = (at: string) => ({ kind: 'RecordSeen' as const, organizationId: o, userId: 'ada', now: at });
  const state = (events: MemberSeenEvent[]) => events.reduce(memberSeenDecider.evolve, memberSeenDecider.initialState());

  it('given no ping yet, then the first one is recorded', () => {
    expect(memberSeenDecider.decide(ping(now), state([]))).toEqual([seen(now)]);
  });

  it('given a recorded ping, then pings within a minute are not recorded, the next one after is', () => {
    const almost = new Date(Date.parse(now) + SEEN_INTERVAL_MS - 1).toISOString();
    const after = new Date(Date.parse(now) + SEEN_INTERVAL_MS).toISOString();
    expect(memberSeenDecider.decide(ping(almost), state([seen(now)]))).toEqual([]);
    expect(memberSeenDecider.decide(ping(after), state([seen(now)]))).toEqual([seen(after)]);
  });
});
