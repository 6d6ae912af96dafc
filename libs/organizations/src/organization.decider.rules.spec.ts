import { deciderSpec } from '#testing';
import type { OrganizationEvent } from './organization.events';
import {
  hostnameDecider,
  hostnameStream,
  memberSeenStream,
  organizationDecider,
  organizationStream,
  type OrganizationCommand,
} from './organization.decider';

/** The wording of each refusal of the organization deciders (the envelope's `message`), and their stream names. */
const now = '2026-01-01T00:00:00.000Z';
const o = 'o1';
const spec = deciderSpec(organizationDecider);
const created: OrganizationEvent[] = [
  { type: 'OrganizationCreated', data: { organizationId: o, title: 'Acme', emailDomains: [], createdBy: 'ada', createdAt: now } },
  { type: 'MemberAdded', data: { organizationId: o, userId: 'ada', role: 'admin', sso: false, joinedAt: now, via: 'creation' } },
  { type: 'MemberAdded', data: { organizationId: o, userId: 'bob', role: 'edit', sso: false, joinedAt: now, via: 'invite' } },
];
const linkInvite: OrganizationEvent = {
  type: 'LinkInviteCreated',
  data: { organizationId: o, inviteId: 'l1', role: 'read', createdBy: 'ada', createdAt: now },
};
const noMember = (userId: string) => `no member ${userId} in organization o1`;

describe('organization streams', () => {
  it('names the organization, hostname and member-seen streams by their keys', () => {
    expect(organizationStream('o1')).toBe('organization-o1');
    expect(hostnameStream('acme')).toBe('orghostname-acme');
    expect(memberSeenStream('o1', 'u1')).toBe('memberseen-o1.u1');
  });
});

describe('organization decider: refusals name what is missing or who may', () => {
  it('given no organization, when someone joins by link, then 404 naming the organization', () => {
    spec.given([]).when({ kind: 'JoinByLink', organizationId: o, inviteId: 'l1', userId: 'u1', now }).thenFails(404, 'no organization o1');
  });

  it('given an organization without that link invite, when someone joins by it, then 404 naming the invite', () => {
    spec.given(created).when({ kind: 'JoinByLink', organizationId: o, inviteId: 'l9', userId: 'u1', now }).thenFails(404, 'no invite l9');
  });

  it('given an organization that turned invite links off, when someone joins by link, then 403 saying so', () => {
    const off: OrganizationEvent = {
      type: 'OrganizationUpdated',
      data: { organizationId: o, changes: { inviteLinks: false }, updatedAt: now },
    };
    spec
      .given([...created, linkInvite, off])
      .when({ kind: 'JoinByLink', organizationId: o, inviteId: 'l1', userId: 'u1', now })
      .thenFails(403, 'this organization does not accept joining by link');
  });

  it('given no organization, when a SAML login joins someone, then 404 naming the organization', () => {
    spec.given([]).when({ kind: 'JoinBySso', organizationId: o, userId: 'u1', role: 'read', now }).thenFails(404, 'no organization o1');
  });

  it('given an organization, when a member below admin changes it, then 403 saying only admins may', () => {
    spec
      .given(created)
      .when({ kind: 'UpdateOrganization', organizationId: o, changes: { title: 'X' }, byUserId: 'bob', now })
      .thenFails(403, 'only admins of organization o1 may do this');
  });

  it('given an organization, when someone outside changes it, then 404 as if there were none', () => {
    spec
      .given(created)
      .when({ kind: 'UpdateOrganization', organizationId: o, changes: { title: 'X' }, byUserId: 'zed', now })
      .thenFails(404, 'no organization o1');
  });

  it('given an organization, when someone outside leaves it, then 404 as if there were none', () => {
    spec
      .given(created)
      .when({ kind: 'RemoveMember', organizationId: o, userId: 'zed', byUserId: 'zed' })
      .thenFails(404, 'no organization o1');
  });

  it('given no such invitation, when an admin revokes it, then 404 naming it', () => {
    spec
      .given(created)
      .when({ kind: 'RevokeInvitation', organizationId: o, invitationId: 'i9', byUserId: 'ada', now })
      .thenFails(404, 'no invitation i9');
  });

  it('given no such member, when an admin changes their role, removes them or marks them as SSO, then 404 naming them', () => {
    spec
      .given(created)
      .when({ kind: 'ChangeMemberRole', organizationId: o, userId: 'zed', role: 'read', byUserId: 'ada' })
      .thenFails(404, noMember('zed'));
    spec.given(created).when({ kind: 'RemoveMember', organizationId: o, userId: 'zed', byUserId: 'ada' }).thenFails(404, noMember('zed'));
    spec
      .given(created)
      .when({ kind: 'EnableMemberSso', organizationId: o, userId: 'zed', byUserId: 'ada' })
      .thenFails(404, noMember('zed'));
  });

  it('given a link invite, when an admin creates it again, then 409 naming it', () => {
    spec
      .given([...created, linkInvite])
      .when({ kind: 'CreateLinkInvite', organizationId: o, inviteId: 'l1', role: 'read', byUserId: 'ada', now })
      .thenFails(409, 'invite l1 already exists');
  });

  it('given no such link invite, when an admin deletes it, then 404 naming it', () => {
    spec
      .given(created)
      .when({ kind: 'DeleteLinkInvite', organizationId: o, inviteId: 'l9', byUserId: 'ada' })
      .thenFails(404, 'no invite l9');
  });

  it('given merge rules and an approval setting that contradicts them, then 400 saying what the setting must be', () => {
    const command: OrganizationCommand = {
      kind: 'UpdateOrganization',
      organizationId: o,
      changes: { mergeRules: { type: 'none' }, changeRequestsRequireApproval: true },
      byUserId: 'ada',
      now,
    };
    spec
      .given(created)
      .when(command)
      .thenFails(
        400,
        'changeRequestsRequireApproval must be false with these mergeRules: it is their require_at_least_one_approved_review rule',
      );
  });
});

describe('hostname claim decider: the refusal', () => {
  it('given a hostname held by another organization, when claimed, then 409 naming the hostname', () => {
    deciderSpec(hostnameDecider)
      .given([{ type: 'HostnameClaimed', data: { hostname: 'acme', organizationId: 'o1' } }])
      .when({ kind: 'ClaimHostname', hostname: 'acme', organizationId: 'o2' })
      .thenFails(409, "hostname 'acme' is taken by another organization");
  });
});
