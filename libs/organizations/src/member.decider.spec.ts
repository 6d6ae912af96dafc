import { deciderSpec } from '#testing';
import type { MemberSeenEvent, OrganizationEvent } from './organization.events';
import { accessRefusal, memberSeenDecider, organizationDecider, SEEN_INTERVAL_MS, type OrganizationCommand } from './organization.decider';

const now = '2026-01-01T00:00:00.000Z';
const o = 'o1';
const spec = deciderSpec(organizationDecider);
const added = (userId: string, role: 'admin' | 'edit' | 'read' | null, sso = false): OrganizationEvent => ({
  type: 'MemberAdded',
  data: { organizationId: o, userId, role, sso, joinedAt: now, via: 'invite' },
});
const organization: OrganizationEvent[] = [
  { type: 'OrganizationCreated', data: { organizationId: o, title: 'Acme', emailDomains: [], createdBy: 'ada', createdAt: now } },
  { type: 'MemberAdded', data: { organizationId: o, userId: 'ada', role: 'admin', sso: false, joinedAt: now, via: 'creation' } },
];
const withTeam = [...organization, added('bob', 'edit'), added('eve', 'read')];
const memberRemoved = (userId: string): OrganizationEvent => ({ type: 'MemberRemoved', data: { organizationId: o, userId } });
const ssoEnabled = (userId: string): OrganizationEvent => ({ type: 'MemberSsoEnabled', data: { organizationId: o, userId } });

describe('members', () => {
  describe('given a member below admin', () => {
    it('when inviting, then 403', () => {
      spec
        .given(withTeam)
        .when({
          kind: 'InviteByEmail',
          organizationId: o,
          byUserId: 'bob',
          now,
          sso: false,
          invitations: [{ invitationId: 'i1', email: 'x@acme.io', role: 'read' }],
        })
        .thenFails(403);
    });

    it('when changing the role of another, then 403', () => {
      spec
        .given(withTeam)
        .when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'eve', role: 'edit', byUserId: 'bob' })
        .thenFails(403);
    });

    it('when removing another, then 403', () => {
      spec.given(withTeam).when({ kind: 'RemoveMember', organizationId: o, userId: 'eve', byUserId: 'bob' }).thenFails(403);
    });
  });

  describe('the last admin', () => {
    const twoAdmins: OrganizationEvent[] = [
      ...withTeam,
      { type: 'MemberRoleChanged', data: { organizationId: o, userId: 'bob', role: 'admin' } },
    ];

    it('given the only admin, when demoted, then 409', () => {
      spec
        .given(withTeam)
        .when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'ada', role: 'edit', byUserId: 'ada' })
        .thenFails(409, 'the last admin of an organization cannot be demoted');
    });

    it('given the only admin, when removed, then 409', () => {
      spec
        .given(withTeam)
        .when({ kind: 'RemoveMember', organizationId: o, userId: 'ada', byUserId: 'ada' })
        .thenFails(409, 'the last admin of an organization cannot be removed');
    });

    it('given a second admin, when the first is demoted, then the role changes', () => {
      spec
        .given(twoAdmins)
        .when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'ada', role: null, byUserId: 'bob' })
        .then([{ type: 'MemberRoleChanged', data: { organizationId: o, userId: 'ada', role: null } }]);
    });

    it('given a second admin, when the first leaves, then they are removed', () => {
      spec
        .given(twoAdmins)
        .when({ kind: 'RemoveMember', organizationId: o, userId: 'ada', byUserId: 'ada' })
        .then([memberRemoved('ada')]);
    });
  });

  it('given any member, when leaving, then removed', () => {
    spec
      .given(withTeam)
      .when({ kind: 'RemoveMember', organizationId: o, userId: 'eve', byUserId: 'eve' })
      .then([memberRemoved('eve')]);
  });

  it('given a removed member, then they are gone from the state', () => {
    spec.given([...withTeam, memberRemoved('eve')]).thenState((state) => expect(state.members.has('eve')).toBe(false));
  });

  it('given a removed member, when removed again, then 404', () => {
    spec
      .given([...withTeam, memberRemoved('eve')])
      .when({ kind: 'RemoveMember', organizationId: o, userId: 'eve', byUserId: 'ada' })
      .thenFails(404);
  });

  it('given a member, when their role is set to the one they have, then no event', () => {
    spec.given(withTeam).when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'bob', role: 'edit', byUserId: 'ada' }).thenNothing();
  });

  it('given no such member, when changing their role, then 404', () => {
    spec
      .given(withTeam)
      .when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'nobody', role: 'edit', byUserId: 'ada' })
      .thenFails(404);
  });

  describe('link invites', () => {
    const invite: OrganizationEvent = {
      type: 'LinkInviteCreated',
      data: { organizationId: o, inviteId: 'i1', role: 'comment', createdBy: 'ada', createdAt: now },
    };
    const join = (inviteId: string, userId: string): OrganizationCommand => ({
      kind: 'JoinByLink',
      organizationId: o,
      inviteId,
      userId,
      now,
    });

    it('given a link invite, when someone joins by it, then they join with its role', () => {
      spec
        .given([...organization, invite])
        .when(join('i1', 'zed'))
        .then([
          { type: 'MemberAdded', data: { organizationId: o, userId: 'zed', role: 'comment', sso: false, joinedAt: now, via: 'link' } },
        ]);
    });

    it('given a link invite and links disabled, when someone joins by it, then 403', () => {
      const disabled: OrganizationEvent = {
        type: 'OrganizationUpdated',
        data: { organizationId: o, changes: { inviteLinks: false }, updatedAt: now },
      };
      spec
        .given([...organization, invite, disabled])
        .when(join('i1', 'zed'))
        .thenFails(403);
    });

    it('given a link invite, when joining by an unknown one, then 404', () => {
      spec
        .given([...organization, invite])
        .when(join('nope', 'zed'))
        .thenFails(404);
    });

    it('given a link invite, when a member joins by it, then nothing', () => {
      spec
        .given([...organization, invite])
        .when(join('i1', 'ada'))
        .thenNothing();
    });

    it('given a deleted link invite, when someone joins by it, then 404', () => {
      const deleted: OrganizationEvent = { type: 'LinkInviteDeleted', data: { organizationId: o, inviteId: 'i1' } };
      spec
        .given([...organization, invite, deleted])
        .when(join('i1', 'zed'))
        .thenFails(404);
    });
  });

  describe('SAML login', () => {
    const sso = (userId: string): OrganizationCommand => ({ kind: 'JoinBySso', organizationId: o, userId, role: 'read', now });

    it('given a newcomer, when they log in, then they join as an SSO member', () => {
      spec
        .given(withTeam)
        .when(sso('sam'))
        .then([{ type: 'MemberAdded', data: { organizationId: o, userId: 'sam', role: 'read', sso: true, joinedAt: now, via: 'sso' } }]);
    });

    it('given a member, when they log in, then they are marked SSO', () => {
      spec
        .given(withTeam)
        .when(sso('bob'))
        .then([ssoEnabled('bob')]);
    });

    it('given a member marked SSO, when they log in again, then nothing', () => {
      spec
        .given([...withTeam, ssoEnabled('bob')])
        .when(sso('bob'))
        .thenNothing();
    });
  });
});

describe('invitations by e-mail', () => {
  const invite = (
    invitations: Array<{ invitationId: string; email: string; role: 'admin' | 'edit' | 'read' | null }>,
    sso = false,
    byUserId = 'ada',
  ): OrganizationCommand => ({
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
  const answer = (
    kind: 'AcceptInvitation' | 'DeclineInvitation',
    invitationId: string,
    userId: string,
    email: string,
  ): OrganizationCommand => ({
    kind,
    organizationId: o,
    invitationId,
    userId,
    email,
    now,
  });
  const pending = [...withTeam, invited('i1', 'carl@acme.io', 'edit')];
  const acceptedByCarl: OrganizationEvent[] = [
    { type: 'InvitationAccepted', data: { organizationId: o, invitationId: 'i1', userId: 'carl', acceptedAt: now } },
    {
      type: 'MemberAdded',
      data: {
        organizationId: o,
        userId: 'carl',
        role: 'edit',
        sso: false,
        joinedAt: now,
        via: 'invite',
        invitationId: 'i1',
        ssoConsent: false,
      },
    },
  ];
  const inviteThree = invite([
    { invitationId: 'i1', email: 'Carl@ACME.io', role: 'edit' },
    { invitationId: 'i2', email: 'carl@acme.io', role: 'edit' },
    { invitationId: 'i3', email: 'dan@acme.io', role: null },
  ]);

  it('given an admin, when inviting addresses, then each gets one invitation, normalized', () => {
    spec
      .given(withTeam)
      .when(inviteThree)
      .then([invited('i2', 'carl@acme.io', 'edit'), invited('i3', 'dan@acme.io', null)]);
  });

  it('given an admin, when inviting addresses, then the invitations are pending', () => {
    spec
      .given(withTeam)
      .when(inviteThree)
      .thenState((state) => expect([...state.invitations.keys()]).toEqual(['i2', 'i3']));
  });

  it('given an admin, when inviting addresses, then nobody joins', () => {
    spec
      .given(withTeam)
      .when(inviteThree)
      .thenState((state) => expect(state.members.size).toBe(3));
  });

  it('given a pending invitation, when the address is invited again, then the same invitation is refreshed', () => {
    spec
      .given(pending)
      .when(invite([{ invitationId: 'new', email: 'CARL@acme.io', role: 'read' }], true))
      .then([invited('i1', 'carl@acme.io', 'read', true)]);
  });

  it('given an address of a member, when invited, then an invitation is recorded like any other (the decider cannot tell, and the answer must not)', () => {
    spec
      .given(withTeam)
      .when(invite([{ invitationId: 'i9', email: 'bob@acme.io', role: 'admin' }]))
      .then([invited('i9', 'bob@acme.io', 'admin')]);
  });

  it('given a pending invitation, when its invitee accepts, then it is accepted and they join with its role, without SSO consent', () => {
    spec
      .given(pending)
      .when(answer('AcceptInvitation', 'i1', 'carl', 'Carl@Acme.io'))
      .then(acceptedByCarl);
  });

  it('given an accepted invitation, then it is no longer pending', () => {
    spec.given([...pending, ...acceptedByCarl]).thenState((state) => expect(state.invitations.size).toBe(0));
  });

  it('given an accepted invitation, then the invitee is a member with its role', () => {
    spec
      .given([...pending, ...acceptedByCarl])
      .thenState((state) => expect(state.members.get('carl')).toEqual({ role: 'edit', sso: false, ssoConsent: false }));
  });

  it('given an accepted invitation, when accepted again, then 404', () => {
    spec
      .given([...pending, ...acceptedByCarl])
      .when(answer('AcceptInvitation', 'i1', 'carl', 'carl@acme.io'))
      .thenFails(404, 'no invitation i1');
  });

  it('given a pending invitation, when someone else accepts it, then 404 and no event', () => {
    spec
      .given(pending)
      .when(answer('AcceptInvitation', 'i1', 'mallory', 'mallory@evil.io'))
      .thenFails(404, 'no invitation i1');
  });

  it('given a pending invitation, when someone else declines it, then 404 and no event', () => {
    spec
      .given(pending)
      .when(answer('DeclineInvitation', 'i1', 'mallory', 'mallory@evil.io'))
      .thenFails(404, 'no invitation i1');
  });

  it('given no such invitation, when accepting, then 404', () => {
    spec
      .given(pending)
      .when(answer('AcceptInvitation', 'nope', 'carl', 'carl@acme.io'))
      .thenFails(404);
  });

  it('given no organization, when accepting, then 404', () => {
    spec
      .given([])
      .when(answer('AcceptInvitation', 'i1', 'carl', 'carl@acme.io'))
      .thenFails(404);
  });

  describe('declined', () => {
    const decline = answer('DeclineInvitation', 'i1', 'carl', 'carl@acme.io');

    it('given a pending invitation, when its invitee declines, then it is declined', () => {
      spec
        .given(pending)
        .when(decline)
        .then([{ type: 'InvitationDeclined', data: { organizationId: o, invitationId: 'i1', userId: 'carl', declinedAt: now } }]);
    });

    it('given a pending invitation, when its invitee declines, then nobody joins', () => {
      spec
        .given(pending)
        .when(decline)
        .thenState((state) => expect(state.members.has('carl')).toBe(false));
    });

    it('given a pending invitation, when its invitee declines, then it is no longer pending', () => {
      spec
        .given(pending)
        .when(decline)
        .thenState((state) => expect(state.invitations.size).toBe(0));
    });
  });

  it('given an invitation to a member, when they accept, then it is used up and their membership stays as it is', () => {
    spec
      .given([...withTeam, invited('i2', 'bob@acme.io', 'admin', true)])
      .when(answer('AcceptInvitation', 'i2', 'bob', 'bob@acme.io'))
      .then([{ type: 'InvitationAccepted', data: { organizationId: o, invitationId: 'i2', userId: 'bob', acceptedAt: now } }]);
  });

  describe('revoked', () => {
    const revoke = (invitationId: string, byUserId: string): OrganizationCommand => ({
      kind: 'RevokeInvitation',
      organizationId: o,
      invitationId,
      byUserId,
      now,
    });

    it('given a pending invitation, when an admin revokes it, then it is revoked', () => {
      spec
        .given(pending)
        .when(revoke('i1', 'ada'))
        .then([{ type: 'InvitationRevoked', data: { organizationId: o, invitationId: 'i1', revokedBy: 'ada', revokedAt: now } }]);
    });

    it('given a pending invitation, when a non-admin revokes it, then 403', () => {
      spec.given(pending).when(revoke('i1', 'bob')).thenFails(403);
    });

    it('given no such invitation, when revoking it, then 404', () => {
      spec.given(pending).when(revoke('nope', 'ada')).thenFails(404);
    });
  });
});

describe('SSO consent', () => {
  const invited = (sso: boolean): OrganizationEvent => ({
    type: 'MemberInvited',
    data: { organizationId: o, invitationId: 'i1', email: 'carl@acme.io', role: 'read', sso, invitedBy: 'ada', invitedAt: now },
  });
  const accept: OrganizationCommand = {
    kind: 'AcceptInvitation',
    organizationId: o,
    invitationId: 'i1',
    userId: 'carl',
    email: 'carl@acme.io',
    now,
  };
  const sso = (userId: string): OrganizationCommand => ({ kind: 'JoinBySso', organizationId: o, userId, role: 'read', now });
  const joinedThroughSsoInvitation: OrganizationEvent[] = [
    ...organization,
    invited(true),
    { type: 'InvitationAccepted', data: { organizationId: o, invitationId: 'i1', userId: 'carl', acceptedAt: now } },
    {
      type: 'MemberAdded',
      data: {
        organizationId: o,
        userId: 'carl',
        role: 'read',
        sso: true,
        joinedAt: now,
        via: 'invite',
        invitationId: 'i1',
        ssoConsent: true,
      },
    },
  ];

  it('given an invitation that asked for SSO, when accepted, then the member consented', () => {
    spec
      .given([...organization, invited(true)])
      .when(accept)
      .thenState((state) => expect(state.members.get('carl')).toEqual({ role: 'read', sso: true, ssoConsent: true }));
  });

  it('given an invitation without SSO, when accepted, then no consent', () => {
    spec
      .given([...organization, invited(false)])
      .when(accept)
      .thenState((state) => expect(state.members.get('carl')?.ssoConsent).toBe(false));
  });

  it('given a newcomer, when joining through an SSO login, then they consented', () => {
    spec
      .given(organization)
      .when(sso('sam'))
      .thenState((state) => expect(state.members.get('sam')?.ssoConsent).toBe(true));
  });

  it('given a member, when an admin marks them as SSO, then no consent', () => {
    spec
      .given(withTeam)
      .when({ kind: 'EnableMemberSso', organizationId: o, userId: 'bob', byUserId: 'ada' })
      .thenState((state) => expect(state.members.get('bob')).toEqual({ role: 'edit', sso: true, ssoConsent: false }));
  });

  it('given a member an admin marked as SSO, when they log in through SSO, then no consent either', () => {
    spec
      .given([...withTeam, ssoEnabled('bob')])
      .when(sso('bob'))
      .thenState((state) => expect(state.members.get('bob')?.ssoConsent).toBe(false));
  });

  it('given a pending SSO invitation, then it is not consent: the invitee is no member', () => {
    spec.given([...organization, invited(true)]).thenState((state) => expect(state.members.has('carl')).toBe(false));
  });

  it('given a member who consented through an invitation, when they log in through SSO, then nothing changes', () => {
    spec.given(joinedThroughSsoInvitation).when(sso('carl')).thenNothing();
  });

  it('given a member who consented through an invitation, then the consent stays', () => {
    spec.given(joinedThroughSsoInvitation).thenState((state) => expect(state.members.get('carl')?.ssoConsent).toBe(true));
  });
});

describe('ids named like Object.prototype members', () => {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
  const links: OrganizationEvent = {
    type: 'LinkInviteCreated',
    data: { organizationId: o, inviteId: 'real', role: 'comment', createdBy: 'ada', createdAt: now },
  };
  const history = [...withTeam, links];

  describe.each(names)('%s', (id) => {
    describe('as a user id', () => {
      it('when changing their role, then 404 with no event', () => {
        spec
          .given(history)
          .when({ kind: 'ChangeMemberRole', organizationId: o, userId: id, role: 'admin', byUserId: 'ada' })
          .thenFails(404);
      });

      it('when removing them, then 404 with no event', () => {
        spec.given(history).when({ kind: 'RemoveMember', organizationId: o, userId: id, byUserId: 'ada' }).thenFails(404);
      });

      it('when marking them SSO, then 404 with no event', () => {
        spec.given(history).when({ kind: 'EnableMemberSso', organizationId: o, userId: id, byUserId: 'ada' }).thenFails(404);
      });
    });

    describe('as the acting user: not a member', () => {
      it('when removing themselves, then 404 with no event', () => {
        spec.given(history).when({ kind: 'RemoveMember', organizationId: o, userId: id, byUserId: id }).thenFails(404);
      });

      it('when changing a role, then 404 with no event', () => {
        spec.given(history).when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'ada', role: null, byUserId: id }).thenFails(404);
      });

      it('when creating a link invite, then 404 with no event', () => {
        spec
          .given(history)
          .when({ kind: 'CreateLinkInvite', organizationId: o, inviteId: 'x', role: 'admin', byUserId: id, now })
          .thenFails(404);
      });
    });

    describe('as an invite id', () => {
      it('when joining by link, then 404 with no event', () => {
        spec.given(history).when({ kind: 'JoinByLink', organizationId: o, inviteId: id, userId: 'mallory', now }).thenFails(404);
      });

      it('when deleting the link, then 404 with no event', () => {
        spec.given(history).when({ kind: 'DeleteLinkInvite', organizationId: o, inviteId: id, byUserId: 'ada' }).thenFails(404);
      });

      it('when accepting the invitation, then 404 with no event', () => {
        spec
          .given(history)
          .when({ kind: 'AcceptInvitation', organizationId: o, invitationId: id, userId: 'mallory', email: 'mallory@evil.io', now })
          .thenFails(404);
      });

      it('when declining the invitation, then 404 with no event', () => {
        spec
          .given(history)
          .when({ kind: 'DeclineInvitation', organizationId: o, invitationId: id, userId: 'mallory', email: 'mallory@evil.io', now })
          .thenFails(404);
      });

      it('when revoking the invitation, then 404 with no event', () => {
        spec.given(history).when({ kind: 'RevokeInvitation', organizationId: o, invitationId: id, byUserId: 'ada', now }).thenFails(404);
      });
    });

    describe('as a new link invite id', () => {
      const create: OrganizationCommand = { kind: 'CreateLinkInvite', organizationId: o, inviteId: id, role: 'read', byUserId: 'ada', now };

      it('when created, then one LinkInviteCreated like any other', () => {
        spec
          .given(history)
          .when(create)
          .thenMatches([{ type: 'LinkInviteCreated', data: { inviteId: id, role: 'read' } }]);
      });

      it('when created, then only it exists under that id', () => {
        spec
          .given(history)
          .when(create)
          .thenState((state) => expect(state.linkInvites.get(id)).toEqual({ role: 'read' }));
      });
    });
  });

  describe('given an event about a member the state does not hold', () => {
    const strange: OrganizationEvent[] = [
      ...withTeam,
      { type: 'MemberRoleChanged', data: { organizationId: o, userId: '__proto__', role: 'admin' } },
    ];

    it('then the state does not invent one', () => {
      spec.given(strange).thenState((state) => expect(state.members.has('__proto__')).toBe(false));
    });

    it('then the members stay a plain Map', () => {
      spec.given(strange).thenState((state) => expect(Object.getPrototypeOf(state.members)).toBe(Map.prototype));
    });
  });
});

/**
 * accessRefusal: the refusal checked before If-Match is compared, so that a 412 never answers
 * someone who may not make the change. It must be the refusal decide itself gives.
 */
describe('who is refused before If-Match is compared', () => {
  const state = withTeam.reduce(organizationDecider.evolve, organizationDecider.initialState());
  const statusOf = (command: OrganizationCommand) => accessRefusal(command, state)?.status ?? null;
  const changeRole = (byUserId: string): OrganizationCommand => ({
    kind: 'ChangeMemberRole',
    organizationId: o,
    userId: 'eve',
    role: 'edit',
    byUserId,
  });

  it('given someone outside the organization, when they change a member, then 404, as decide answers', () => {
    expect(statusOf(changeRole('mallory'))).toBe(404);
    spec.given(withTeam).when(changeRole('mallory')).thenFails(404);
  });

  it('given a member below admin, when they change a member, revoke an invitation or delete a link invite, then 403', () => {
    expect(statusOf(changeRole('bob'))).toBe(403);
    expect(statusOf({ kind: 'RevokeInvitation', organizationId: o, invitationId: 'i1', byUserId: 'bob', now })).toBe(403);
    expect(statusOf({ kind: 'DeleteLinkInvite', organizationId: o, inviteId: 'l1', byUserId: 'bob' })).toBe(403);
  });

  it('given an admin, when they change a member, then no refusal (whether the member exists is for decide)', () => {
    expect(statusOf(changeRole('ada'))).toBeNull();
    expect(statusOf({ kind: 'EnableMemberSso', organizationId: o, userId: 'nobody', byUserId: 'ada' })).toBeNull();
  });

  it('given a member below admin, when they leave, then no refusal: anyone may leave', () => {
    expect(statusOf({ kind: 'RemoveMember', organizationId: o, userId: 'eve', byUserId: 'eve' })).toBeNull();
  });

  it('given someone outside, when they "leave", then 404', () => {
    expect(statusOf({ kind: 'RemoveMember', organizationId: o, userId: 'mallory', byUserId: 'mallory' })).toBe(404);
  });

  it('given an id named like an Object.prototype member, then it is someone outside: 404', () => {
    expect(statusOf(changeRole('__proto__'))).toBe(404);
    expect(statusOf(changeRole('constructor'))).toBe(404);
  });

  it('given no organization, when anyone changes a member, then 404', () => {
    expect(accessRefusal(changeRole('ada'), organizationDecider.initialState())?.status).toBe(404);
  });
});

describe('member seen', () => {
  const seenSpec = deciderSpec(memberSeenDecider);
  const seen = (at: string): MemberSeenEvent => ({ type: 'MemberSeen', data: { organizationId: o, userId: 'ada', seenAt: at } });
  const ping = (at: string) => ({ kind: 'RecordSeen' as const, organizationId: o, userId: 'ada', now: at });

  it('given no ping yet, when pinged, then the ping is recorded', () => {
    seenSpec
      .given([])
      .when(ping(now))
      .then([seen(now)]);
  });

  it('given a recorded ping, when pinged again within the interval, then nothing is recorded', () => {
    const almost = new Date(Date.parse(now) + SEEN_INTERVAL_MS - 1).toISOString();
    seenSpec
      .given([seen(now)])
      .when(ping(almost))
      .thenNothing();
  });

  it('given a recorded ping, when pinged again once the interval has passed, then it is recorded', () => {
    const after = new Date(Date.parse(now) + SEEN_INTERVAL_MS).toISOString();
    seenSpec
      .given([seen(now)])
      .when(ping(after))
      .then([seen(after)]);
  });
});
