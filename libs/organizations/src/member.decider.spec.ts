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
  it('given a member below admin, when inviting, changing roles or removing others, then 403', () => {
    expect(when(withTeam, { kind: 'InviteByEmail', organizationId: o, byUserId: 'bob', now, sso: false, invitations: [{ invitationId: 'i1', email: 'x@acme.io', role: 'read' }] })).toMatchObject({
      status: 403,
    });
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
    expect(given([...withTeam, ...left]).members.has('eve')).toBe(false);
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

describe('invitations by e-mail', () => {
  const invite = (invitations: Array<{ invitationId: string; email: string; role: 'admin' | 'edit' | 'read' | null }>, sso = false, byUserId = 'ada'): OrganizationCommand => ({
    kind: 'InviteByEmail',
    organizationId: o,
    invitations,
    sso,
    byUserId,
    now,
  });
  const invited = (invitationId: string, email: string, role: 'admin' | 'edit' | 'read' | null, sso = false): OrganizationEvent => ({
    type: 'MemberInvited',
    data: { organizationId: o, invitationId, email, role, sso, invitedBy: 'ada', invitedAt: now },
  });
  const answer = (kind: 'AcceptInvitation' | 'DeclineInvitation', invitationId: string, userId: string, email: string): OrganizationCommand => ({
    kind,
    organizationId: o,
    invitationId,
    userId,
    email,
    now,
  });
  const pending = [...withTeam, invited('i1', 'carl@acme.io', 'edit')];

  it('given an admin, when inviting addresses, then each gets a pending invitation (normalized, once) and nobody joins', () => {
    const events = when(withTeam, invite([
      { invitationId: 'i1', email: 'Carl@ACME.io', role: 'edit' },
      { invitationId: 'i2', email: 'carl@acme.io', role: 'edit' },
      { invitationId: 'i3', email: 'dan@acme.io', role: null },
    ]));
    expect(events).toEqual([invited('i2', 'carl@acme.io', 'edit'), invited('i3', 'dan@acme.io', null)]);
    const state = given([...withTeam, ...(events as OrganizationEvent[])]);
    expect([...state.invitations.keys()]).toEqual(['i2', 'i3']);
    expect(state.members.size).toBe(3);
  });

  it('given a pending invitation, when the address is invited again, then the same invitation is refreshed', () => {
    expect(when(pending, invite([{ invitationId: 'new', email: 'CARL@acme.io', role: 'read' }], true))).toEqual([invited('i1', 'carl@acme.io', 'read', true)]);
  });

  it('given an address of a member, when invited, then an invitation is recorded like any other (the decider cannot tell, and the answer must not)', () => {
    expect(when(withTeam, invite([{ invitationId: 'i9', email: 'bob@acme.io', role: 'admin' }]))).toEqual([invited('i9', 'bob@acme.io', 'admin')]);
  });

  it('given a pending invitation, when its invitee accepts, then it is accepted and they join with its role, without SSO consent', () => {
    expect(when(pending, answer('AcceptInvitation', 'i1', 'carl', 'Carl@Acme.io'))).toEqual([
      { type: 'InvitationAccepted', data: { organizationId: o, invitationId: 'i1', userId: 'carl', acceptedAt: now } },
      { type: 'MemberAdded', data: { organizationId: o, userId: 'carl', role: 'edit', sso: false, joinedAt: now, via: 'invite', invitationId: 'i1', ssoConsent: false } },
    ]);
  });

  it('given an accepted invitation, then it is no longer pending and cannot be answered again', () => {
    const accepted = when(pending, answer('AcceptInvitation', 'i1', 'carl', 'carl@acme.io')) as OrganizationEvent[];
    const after = [...pending, ...accepted];
    expect(given(after).invitations.size).toBe(0);
    expect(given(after).members.get('carl')).toEqual({ role: 'edit', sso: false, ssoConsent: false });
    expect(when(after, answer('AcceptInvitation', 'i1', 'carl', 'carl@acme.io'))).toEqual(DomainError.notFound('no invitation i1'));
  });

  it('given a pending invitation, when someone else accepts or declines it, then 404 and no event', () => {
    expect(when(pending, answer('AcceptInvitation', 'i1', 'mallory', 'mallory@evil.io'))).toEqual(DomainError.notFound('no invitation i1'));
    expect(when(pending, answer('DeclineInvitation', 'i1', 'mallory', 'mallory@evil.io'))).toEqual(DomainError.notFound('no invitation i1'));
  });

  it('given no such invitation or no organization, when accepting, then 404', () => {
    expect(when(pending, answer('AcceptInvitation', 'nope', 'carl', 'carl@acme.io'))).toMatchObject({ status: 404 });
    expect(when([], answer('AcceptInvitation', 'i1', 'carl', 'carl@acme.io'))).toMatchObject({ status: 404 });
  });

  it('given a pending invitation, when its invitee declines, then it is declined and nobody joins', () => {
    const declined = when(pending, answer('DeclineInvitation', 'i1', 'carl', 'carl@acme.io')) as OrganizationEvent[];
    expect(declined).toEqual([{ type: 'InvitationDeclined', data: { organizationId: o, invitationId: 'i1', userId: 'carl', declinedAt: now } }]);
    expect(given([...pending, ...declined]).members.has('carl')).toBe(false);
    expect(given([...pending, ...declined]).invitations.size).toBe(0);
  });

  it('given an invitation to a member, when they accept, then it is used up and their membership stays as it is', () => {
    const toBob = [...withTeam, invited('i2', 'bob@acme.io', 'admin', true)];
    expect(when(toBob, answer('AcceptInvitation', 'i2', 'bob', 'bob@acme.io'))).toEqual([
      { type: 'InvitationAccepted', data: { organizationId: o, invitationId: 'i2', userId: 'bob', acceptedAt: now } },
    ]);
  });

  it('given a pending invitation, when an admin revokes it, then it is revoked; by a non-admin 403; unknown 404', () => {
    expect(when(pending, { kind: 'RevokeInvitation', organizationId: o, invitationId: 'i1', byUserId: 'ada', now })).toEqual([
      { type: 'InvitationRevoked', data: { organizationId: o, invitationId: 'i1', revokedBy: 'ada', revokedAt: now } },
    ]);
    expect(when(pending, { kind: 'RevokeInvitation', organizationId: o, invitationId: 'i1', byUserId: 'bob', now })).toMatchObject({ status: 403 });
    expect(when(pending, { kind: 'RevokeInvitation', organizationId: o, invitationId: 'nope', byUserId: 'ada', now })).toMatchObject({ status: 404 });
  });
});

describe('SSO consent', () => {
  const invited = (sso: boolean): OrganizationEvent => ({
    type: 'MemberInvited',
    data: { organizationId: o, invitationId: 'i1', email: 'carl@acme.io', role: 'read', sso, invitedBy: 'ada', invitedAt: now },
  });
  const accept: OrganizationCommand = { kind: 'AcceptInvitation', organizationId: o, invitationId: 'i1', userId: 'carl', email: 'carl@acme.io', now };
  const after = (events: OrganizationEvent[], command: OrganizationCommand) => given([...events, ...(when(events, command) as OrganizationEvent[])]);
  const sso = (userId: string): OrganizationCommand => ({ kind: 'JoinBySso', organizationId: o, userId, role: 'read', now });

  it('given an accepted invitation that asked for SSO, then the member consented', () => {
    expect(after([...organization, invited(true)], accept).members.get('carl')).toEqual({ role: 'read', sso: true, ssoConsent: true });
  });

  it('given an accepted invitation without SSO, then no consent', () => {
    expect(after([...organization, invited(false)], accept).members.get('carl')?.ssoConsent).toBe(false);
  });

  it('given a newcomer joining through an SSO login, then they consented', () => {
    expect(after(organization, sso('sam')).members.get('sam')?.ssoConsent).toBe(true);
  });

  it('given a member an admin marked as SSO, then no consent; a later SSO login does not give it either', () => {
    const marked = [...withTeam, ...(when(withTeam, { kind: 'EnableMemberSso', organizationId: o, userId: 'bob', byUserId: 'ada' }) as OrganizationEvent[])];
    expect(given(marked).members.get('bob')).toEqual({ role: 'edit', sso: true, ssoConsent: false });
    expect(after(marked, sso('bob')).members.get('bob')?.ssoConsent).toBe(false);
  });

  it('given a pending SSO invitation, then it is not consent: the invitee is no member', () => {
    expect(given([...organization, invited(true)]).members.has('carl')).toBe(false);
  });

  it('given a member who consented through an invitation, when they log in through SSO, then nothing changes and the consent stays', () => {
    const joined = [...organization, invited(true), ...(when([...organization, invited(true)], accept) as OrganizationEvent[])];
    expect(when(joined, sso('carl'))).toEqual([]);
    expect(given(joined).members.get('carl')?.ssoConsent).toBe(true);
  });
});

describe('ids named like Object.prototype members', () => {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
  const links: OrganizationEvent = { type: 'LinkInviteCreated', data: { organizationId: o, inviteId: 'real', role: 'comment', createdBy: 'ada', createdAt: now } };
  const history = [...withTeam, links];

  describe.each(names)('%s', (id) => {
    it('as a user id: changing the role, removing, marking SSO is 404 with no event', () => {
      expect(when(history, { kind: 'ChangeMemberRole', organizationId: o, userId: id, role: 'admin', byUserId: 'ada' })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'RemoveMember', organizationId: o, userId: id, byUserId: 'ada' })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'EnableMemberSso', organizationId: o, userId: id, byUserId: 'ada' })).toMatchObject({ status: 404 });
    });

    it('as the acting user: not a member, so 404 with no event', () => {
      expect(when(history, { kind: 'RemoveMember', organizationId: o, userId: id, byUserId: id })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'ChangeMemberRole', organizationId: o, userId: 'ada', role: null, byUserId: id })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'CreateLinkInvite', organizationId: o, inviteId: 'x', role: 'admin', byUserId: id, now })).toMatchObject({ status: 404 });
    });

    it('as an invite id: joining by link, deleting the link, answering or revoking an invitation is 404 with no event', () => {
      expect(when(history, { kind: 'JoinByLink', organizationId: o, inviteId: id, userId: 'mallory', now })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'DeleteLinkInvite', organizationId: o, inviteId: id, byUserId: 'ada' })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'AcceptInvitation', organizationId: o, invitationId: id, userId: 'mallory', email: 'mallory@evil.io', now })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'DeclineInvitation', organizationId: o, invitationId: id, userId: 'mallory', email: 'mallory@evil.io', now })).toMatchObject({ status: 404 });
      expect(when(history, { kind: 'RevokeInvitation', organizationId: o, invitationId: id, byUserId: 'ada', now })).toMatchObject({ status: 404 });
    });

    it('as a new link invite id: created like any other, and only it exists', () => {
      const created = when(history, { kind: 'CreateLinkInvite', organizationId: o, inviteId: id, role: 'read', byUserId: 'ada', now }) as OrganizationEvent[];
      expect(created).toHaveLength(1);
      expect(given([...history, ...created]).linkInvites.get(id)).toEqual({ role: 'read' });
    });
  });

  it('given an event about a member the state does not hold, then the state does not invent one', () => {
    const state = given([...withTeam, { type: 'MemberRoleChanged', data: { organizationId: o, userId: '__proto__', role: 'admin' } }]);
    expect(state.members.has('__proto__')).toBe(false);
    expect(Object.getPrototypeOf(state.members)).toBe(Map.prototype);
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
