import type { AuditCatalog } from '../../platform/src/audit-catalog';
import type { OrganizationEvent } from './organization.events';

type Data<T extends OrganizationEvent['type']> = Extract<OrganizationEvent, { type: T }>['data'];

/** How organization events read in the audit log. */
export const organizationAuditCatalog: AuditCatalog = {
  OrganizationCreated: (event) => {
    const data = event.data as Data<'OrganizationCreated'>;
    return { action: 'organization.created', organizationId: data.organizationId, target: { type: 'organization', id: data.organizationId, label: data.title } };
  },
  OrganizationUpdated: (event) => {
    const data = event.data as Data<'OrganizationUpdated'>;
    return {
      action: 'organization.updated',
      organizationId: data.organizationId,
      target: { type: 'organization', id: data.organizationId, ...(data.changes.title ? { label: data.changes.title } : {}) },
    };
  },
  MemberAdded: (event) => {
    const data = event.data as Data<'MemberAdded'>;
    return { action: 'member.added', organizationId: data.organizationId, target: { type: 'member', id: data.userId } };
  },
  MemberRoleChanged: (event) => member('member.role_changed', event.data as Data<'MemberRoleChanged'>),
  MemberRemoved: (event) => member('member.removed', event.data as Data<'MemberRemoved'>),
  MemberSsoEnabled: (event) => member('member.sso_enabled', event.data as Data<'MemberSsoEnabled'>),
  LinkInviteCreated: (event) => linkInvite('invite_link.created', event.data as Data<'LinkInviteCreated'>),
  LinkInviteDeleted: (event) => linkInvite('invite_link.deleted', event.data as Data<'LinkInviteDeleted'>),
  MemberInvited: (event) => invitation('member.invited', event.data as Data<'MemberInvited'>),
  InvitationAccepted: (event) => invitation('member.invitation_accepted', event.data as Data<'InvitationAccepted'>),
  InvitationDeclined: (event) => invitation('member.invitation_declined', event.data as Data<'InvitationDeclined'>),
  InvitationRevoked: (event) => invitation('member.invitation_revoked', event.data as Data<'InvitationRevoked'>),
  // MemberSeen (pings) is activity, not a change: it stays out of the audit log.
};

function member(action: string, data: { organizationId: string; userId: string }) {
  return { action, organizationId: data.organizationId, target: { type: 'member', id: data.userId } };
}

function linkInvite(action: string, data: { organizationId: string; inviteId: string }) {
  return { action, organizationId: data.organizationId, target: { type: 'link-invite', id: data.inviteId } };
}

/** The target is the invitation, not the address: the audit log does not spread e-mail addresses further. */
function invitation(action: string, data: { organizationId: string; invitationId: string }) {
  return { action, organizationId: data.organizationId, target: { type: 'invitation', id: data.invitationId } };
}
