import { deciderSpec } from '#testing';
import type { OrganizationEvent } from './organization.events';
import { accessRefusal, hostnameDecider, organizationDecider, type OrganizationCommand } from './organization.decider';

/** Edge cases of the organization deciders that the main specs leave open: each names one rule. */
const now = '2026-01-01T00:00:00.000Z';
const o = 'o1';
const spec = deciderSpec(organizationDecider);
const APPROVAL = { rule: 'require_at_least_one_approved_review' } as const;
const SUBJECT = { rule: 'require_change_request_subject' } as const;

const created: OrganizationEvent[] = [
  { type: 'OrganizationCreated', data: { organizationId: o, title: 'Acme', emailDomains: ['acme.io'], createdBy: 'ada', createdAt: now } },
  { type: 'MemberAdded', data: { organizationId: o, userId: 'ada', role: 'admin', sso: false, joinedAt: now, via: 'creation' } },
  { type: 'MemberAdded', data: { organizationId: o, userId: 'bob', role: 'edit', sso: false, joinedAt: now, via: 'invite' } },
];
const updatedWith = (changes: object): OrganizationEvent => ({
  type: 'OrganizationUpdated',
  data: { organizationId: o, changes, updatedAt: now },
});
const update = (changes: object): OrganizationCommand => ({ kind: 'UpdateOrganization', organizationId: o, changes, byUserId: 'ada', now });
const linkInvite: OrganizationEvent = {
  type: 'LinkInviteCreated',
  data: { organizationId: o, inviteId: 'l1', role: 'read', createdBy: 'ada', createdAt: now },
};

describe('organization settings: merge rules and the approval setting', () => {
  it('given merge rules with the approval rule and changeRequestsRequireApproval true, when set together, then both are recorded', () => {
    spec
      .given(created)
      .when(update({ mergeRules: { type: 'rules', rules: [APPROVAL] }, changeRequestsRequireApproval: true }))
      .then([updatedWith({ mergeRules: { type: 'rules', rules: [APPROVAL] }, changeRequestsRequireApproval: true })]);
  });

  it('given merge rules requiring approval, when only the title changes, then only the title is recorded: the rules stay', () => {
    spec
      .given([...created, updatedWith({ mergeRules: { type: 'rules', rules: [APPROVAL] }, changeRequestsRequireApproval: true })])
      .when(update({ title: 'Acme Inc' }))
      .then([updatedWith({ title: 'Acme Inc' })]);
  });

  it('given merge rules requiring approval, then a later change of the title leaves them as they were', () => {
    spec
      .given([
        ...created,
        updatedWith({ mergeRules: { type: 'rules', rules: [APPROVAL] }, changeRequestsRequireApproval: true }),
        updatedWith({ title: 'Acme Inc' }),
      ])
      .thenState((state) => expect(state.fields.mergeRules).toEqual({ type: 'rules', rules: [APPROVAL] }));
  });

  it('given an event with merge rules and the approval setting, then the state holds its merge rules as recorded', () => {
    const rules = { type: 'rules', rules: [SUBJECT, APPROVAL] };
    spec
      .given([...created, updatedWith({ mergeRules: rules, changeRequestsRequireApproval: true })])
      .thenState((state) => expect(state.fields.mergeRules).toEqual(rules));
  });
});

describe('organization settings: e-mail domains', () => {
  it('given new e-mail domains, then they are recorded lowercased, each once', () => {
    spec
      .given(created)
      .when(update({ emailDomains: ['ACME.io', 'new.io', 'NEW.io'] }))
      .then([updatedWith({ emailDomains: ['acme.io', 'new.io'] })]);
  });
});

describe('organization members', () => {
  it('given an admin, when they remove another member, then the member is removed', () => {
    spec
      .given(created)
      .when({ kind: 'RemoveMember', organizationId: o, userId: 'bob', byUserId: 'ada' })
      .then([{ type: 'MemberRemoved', data: { organizationId: o, userId: 'bob' } }]);
  });

  it('given the only admin, when they change the role of a member below admin, then the role changes', () => {
    spec
      .given(created)
      .when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'bob', role: 'read', byUserId: 'ada' })
      .then([{ type: 'MemberRoleChanged', data: { organizationId: o, userId: 'bob', role: 'read' } }]);
  });

  it('given a member below admin, when they change their own role, then 403: only leaving is open to every member', () => {
    spec
      .given(created)
      .when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'bob', role: 'admin', byUserId: 'bob' })
      .thenFails(403, 'only admins of organization o1 may do this');
  });

  it('given a member below admin, when they mark themselves as SSO, then 403', () => {
    spec.given(created).when({ kind: 'EnableMemberSso', organizationId: o, userId: 'bob', byUserId: 'bob' }).thenFails(403);
  });

  it('given a member marked as SSO, when an admin marks them again, then nothing', () => {
    spec
      .given([...created, { type: 'MemberSsoEnabled', data: { organizationId: o, userId: 'bob' } }])
      .when({ kind: 'EnableMemberSso', organizationId: o, userId: 'bob', byUserId: 'ada' })
      .thenNothing();
  });
});

describe('organization link invites', () => {
  it('given a link invite, when an admin deletes it, then it is deleted', () => {
    spec
      .given([...created, linkInvite])
      .when({ kind: 'DeleteLinkInvite', organizationId: o, inviteId: 'l1', byUserId: 'ada' })
      .then([{ type: 'LinkInviteDeleted', data: { organizationId: o, inviteId: 'l1' } }]);
  });

  it('given a deleted link invite, when an admin creates one under its id again, then it is created', () => {
    spec
      .given([...created, linkInvite, { type: 'LinkInviteDeleted', data: { organizationId: o, inviteId: 'l1' } }])
      .when({ kind: 'CreateLinkInvite', organizationId: o, inviteId: 'l1', role: 'edit', byUserId: 'ada', now })
      .thenMatches([{ type: 'LinkInviteCreated', data: { inviteId: 'l1', role: 'edit' } }]);
  });
});

describe('organization invitations', () => {
  it('given a revoked invitation, when its invitee accepts it, then 404 naming it', () => {
    spec
      .given([
        ...created,
        {
          type: 'MemberInvited',
          data: {
            organizationId: o,
            invitationId: 'i1',
            email: 'zed@example.com',
            role: 'read',
            sso: false,
            invitedBy: 'ada',
            invitedAt: now,
          },
        },
        { type: 'InvitationRevoked', data: { organizationId: o, invitationId: 'i1', revokedBy: 'ada', revokedAt: now } },
      ])
      .when({ kind: 'AcceptInvitation', organizationId: o, invitationId: 'i1', userId: 'zed', email: 'zed@example.com', now })
      .thenFails(404, 'no invitation i1');
  });
});

describe('organization access refusal', () => {
  it('given a command no member asks for (joining by link), then no refusal: decide alone answers it', () => {
    const state = created.reduce(organizationDecider.evolve, organizationDecider.initialState());
    expect(accessRefusal({ kind: 'JoinByLink', organizationId: o, inviteId: 'l1', userId: 'zed', now }, state)).toBeNull();
  });
});

describe('organization state', () => {
  it('given an event of a type it does not know (a later version’s), then the state is as before it', () => {
    const unknown = { type: 'SomethingNew', data: { organizationId: o } } as unknown as OrganizationEvent;
    spec.given([...created, unknown]).thenState((state) => expect([...state.members.keys()]).toEqual(['ada', 'bob']));
  });
});

describe('hostname claim decider: release', () => {
  it('given a hostname released by its holder, when another organization claims it, then it is theirs', () => {
    deciderSpec(hostnameDecider)
      .given([
        { type: 'HostnameClaimed', data: { hostname: 'acme', organizationId: 'o1' } },
        { type: 'HostnameReleased', data: { hostname: 'acme', organizationId: 'o1' } },
      ])
      .when({ kind: 'ClaimHostname', hostname: 'acme', organizationId: 'o2' })
      .then([{ type: 'HostnameClaimed', data: { hostname: 'acme', organizationId: 'o2' } }]);
  });
});
