import { deciderSpec } from '#testing';
import type { OrganizationEvent } from './organization.events';
import { hostnameDecider, organizationDecider, type OrganizationCommand } from './organization.decider';

const now = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(organizationDecider);

const created: OrganizationEvent[] = [
  {
    type: 'OrganizationCreated',
    data: { organizationId: 'o1', title: 'Acme', emailDomains: ['acme.io'], createdBy: 'ada', createdAt: now },
  },
  { type: 'MemberAdded', data: { organizationId: 'o1', userId: 'ada', role: 'admin', sso: false, joinedAt: now, via: 'creation' } },
];
const withEditor: OrganizationEvent[] = [
  ...created,
  { type: 'MemberAdded', data: { organizationId: 'o1', userId: 'eve', role: 'edit', sso: false, joinedAt: now } },
];
const renamed: OrganizationEvent[] = [
  ...created,
  { type: 'OrganizationUpdated', data: { organizationId: 'o1', changes: { title: 'Acme Inc' }, updatedAt: now } },
];
const update = (changes: object, byUserId = 'ada'): OrganizationCommand => ({
  kind: 'UpdateOrganization',
  organizationId: 'o1',
  changes,
  byUserId,
  now,
});

describe('organization decider', () => {
  it('given nothing, when creating, then the organization is created with its creator as admin', () => {
    spec
      .given([])
      .when({
        kind: 'CreateOrganization',
        organizationId: 'o1',
        title: 'Acme',
        emailDomains: ['ACME.io', 'acme.io'],
        creatorId: 'ada',
        now,
      })
      .then(created);
  });

  it('given an organization, when creating it again, then 409', () => {
    spec
      .given(created)
      .when({ kind: 'CreateOrganization', organizationId: 'o1', title: 'X', emailDomains: [], creatorId: 'ada', now })
      .thenFails(409, 'organization o1 already exists');
  });

  it('given an organization, when its admin changes fields, then only the changed ones are recorded', () => {
    spec
      .given(created)
      .when(update({ title: 'Acme', ai: true, hostname: 'acme', emailDomains: ['acme.io'] }))
      .then([{ type: 'OrganizationUpdated', data: { organizationId: 'o1', changes: { ai: true, hostname: 'acme' }, updatedAt: now } }]);
  });

  it('given an organization, when nothing would change, then no event', () => {
    spec
      .given(created)
      .when(update({ title: 'Acme', inviteLinks: true, defaultRole: null }))
      .thenNothing();
  });

  it('given a changed organization, when changed to the same value, then no event (later decisions see the change)', () => {
    spec
      .given(renamed)
      .when(update({ title: 'Acme Inc' }))
      .thenNothing();
  });

  it('given a changed organization, then the state holds the change', () => {
    spec.given(renamed).thenState((state) => expect(state.fields.title).toBe('Acme Inc'));
  });

  it('given a member below admin, when changing the organization, then 403', () => {
    spec
      .given(withEditor)
      .when(update({ title: 'Mine' }, 'eve'))
      .thenFails(403);
  });

  it('given a non-member, when changing the organization, then 404', () => {
    spec
      .given(created)
      .when(update({ title: 'Mine' }, 'mallory'))
      .thenFails(404);
  });

  it('given no organization, when changing it, then 404', () => {
    spec
      .given([])
      .when(update({ title: 'Mine' }))
      .thenFails(404);
  });
});

describe('organization merge rules', () => {
  const approval = { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] };
  const subjectRule = { rule: 'require_change_request_subject' };
  const updated = (changes: object): OrganizationEvent => ({
    type: 'OrganizationUpdated',
    data: { organizationId: 'o1', changes, updatedAt: now },
  });

  it('given an organization, when its admin sets merge rules with the approval rule, then changeRequestsRequireApproval becomes true with them', () => {
    spec
      .given(created)
      .when(update({ mergeRules: approval }))
      .then([updated({ mergeRules: approval, changeRequestsRequireApproval: true })]);
  });

  it('given an organization, when its admin sets changeRequestsRequireApproval, then the approval rule joins its merge rules', () => {
    const withSubject = [...created, updated({ mergeRules: { type: 'rules', rules: [subjectRule] } })];
    spec
      .given(withSubject)
      .when(update({ changeRequestsRequireApproval: true }))
      .then([
        updated({
          changeRequestsRequireApproval: true,
          mergeRules: { type: 'rules', rules: [subjectRule, { rule: 'require_at_least_one_approved_review' }] },
        }),
      ]);
  });

  it('given an organization requiring approval, when its admin sets merge rules none, then approval is no longer required', () => {
    spec
      .given([...created, updated({ mergeRules: approval, changeRequestsRequireApproval: true })])
      .when(update({ mergeRules: { type: 'none' } }))
      .then([updated({ mergeRules: { type: 'none' }, changeRequestsRequireApproval: false })]);
  });

  it('given an organization, when a request sets merge rules and a changeRequestsRequireApproval that contradicts them, then 400', () => {
    spec
      .given(created)
      .when(update({ mergeRules: { type: 'none' }, changeRequestsRequireApproval: true }))
      .thenFails(400);
  });

  it('given an event from before merge rules requiring approval, when the same rule is set as merge rules, then no event', () => {
    spec
      .given([...created, updated({ changeRequestsRequireApproval: true })])
      .when(update({ mergeRules: approval }))
      .thenNothing();
  });
});

describe('hostname claim decider', () => {
  const hostnames = deciderSpec(hostnameDecider);
  const claim = (organizationId: string) => ({ kind: 'ClaimHostname' as const, hostname: 'acme', organizationId });
  const claimed = [{ type: 'HostnameClaimed' as const, data: { hostname: 'acme', organizationId: 'o1' } }];

  it('given a free hostname, when claimed, then it is held', () => {
    hostnames.given([]).when(claim('o1')).then(claimed);
  });

  it('given a hostname held by another organization, when claimed, then 409', () => {
    hostnames.given(claimed).when(claim('o2')).thenFails(409);
  });

  it('given a hostname held by the same organization, when claimed again, then nothing happens', () => {
    hostnames.given(claimed).when(claim('o1')).thenNothing();
  });

  it('given a held hostname, when released by its holder, then it is free again', () => {
    hostnames
      .given(claimed)
      .when({ kind: 'ReleaseHostname', hostname: 'acme', organizationId: 'o1' })
      .then([{ type: 'HostnameReleased', data: { hostname: 'acme', organizationId: 'o1' } }]);
  });

  it('given a held hostname, when released by another organization, then nothing happens', () => {
    hostnames.given(claimed).when({ kind: 'ReleaseHostname', hostname: 'acme', organizationId: 'o2' }).thenNothing();
  });
});
