import { inStream, projectionSpec } from '#testing';
import type { OrganizationEvent } from './organization.events';
import { INVITATIONS, MEMBERS, ORGANIZATIONS, organizationProjection } from './organization.projections';

const now = '2026-01-01T00:00:00.000Z';
const spec = projectionSpec(organizationProjection);
const o1 = (events: OrganizationEvent[]) => inStream('organization-o1', events);

const history = o1([
  {
    type: 'OrganizationCreated',
    data: { organizationId: 'o1', title: 'Acme', emailDomains: ['acme.io'], createdBy: 'ada', createdAt: now },
  },
  { type: 'MemberAdded', data: { organizationId: 'o1', userId: 'ada', role: 'admin', sso: false, joinedAt: now } },
  {
    type: 'OrganizationUpdated',
    data: { organizationId: 'o1', changes: { title: 'Acme Inc', hostname: 'acme' }, updatedAt: '2026-01-02T00:00:00.000Z' },
  },
]);
const invited = (role: 'read' | 'edit'): OrganizationEvent => ({
  type: 'MemberInvited',
  data: { organizationId: 'o1', invitationId: 'i1', email: 'carl@acme.io', role, sso: false, invitedBy: 'ada', invitedAt: now },
});
const refreshed = [...history, ...o1([invited('read'), invited('edit')])];
const accepted = [
  ...refreshed,
  ...o1([{ type: 'InvitationAccepted', data: { organizationId: 'o1', invitationId: 'i1', userId: 'carl', acceptedAt: now } }]),
];

describe('organization projection', () => {
  it('given an organization created, joined and renamed, then its document', async () => {
    await spec.given(history).then({
      [ORGANIZATIONS]: [
        {
          _id: 'o1',
          title: 'Acme Inc',
          hostname: 'acme',
          createdAt: now,
          updatedAt: '2026-01-02T00:00:00.000Z',
          emailDomains: ['acme.io'],
          defaultRole: null,
          defaultContent: null,
          logo: null,
          sso: false,
          ai: false,
          inviteLinks: true,
          changeRequestsRequireApproval: false,
          mergeRules: { type: 'none' },
          revision: 2,
        },
      ],
    });
  });

  it('given an event from before merge rules that required approval, then the approval rule is in the merge rules', async () => {
    const approval = o1([
      { type: 'OrganizationUpdated', data: { organizationId: 'o1', changes: { changeRequestsRequireApproval: true }, updatedAt: now } },
    ]);
    await spec.given([...history, ...approval]).then({
      [ORGANIZATIONS]: [
        expect.objectContaining({
          _id: 'o1',
          changeRequestsRequireApproval: true,
          mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] },
        }),
      ],
    });
  });

  it('given an organization created and joined, then one member document', async () => {
    await spec.given(history).then({
      [MEMBERS]: [
        {
          _id: 'o1:ada',
          organizationId: 'o1',
          userId: 'ada',
          role: 'admin',
          joinedAt: now,
          lastSeenAt: null,
          sso: false,
          disabled: false,
          displayName: '',
          email: '',
          nameLower: '',
        },
      ],
    });
  });

  it('given the same events applied twice, then the documents are unchanged', async () => {
    await spec.given(history).thenIdempotent();
  });

  it('given an invitation refreshed, then one pending invitation with the latest role', async () => {
    await spec.given(refreshed).then({
      [INVITATIONS]: [
        { _id: 'i1', organizationId: 'o1', email: 'carl@acme.io', role: 'edit', sso: false, invitedBy: 'ada', invitedAt: now },
      ],
    });
  });

  it('given an invitation accepted, then it is no longer pending', async () => {
    await spec.given(accepted).then({ [INVITATIONS]: [] });
  });

  it('given an invitation accepted, then the organization is at the revision of the acceptance', async () => {
    await spec.given(accepted).then({ [ORGANIZATIONS]: [expect.objectContaining({ _id: 'o1', revision: 5 })] });
  });
});
