import { auditCatalog, type AuditEntry } from '#platform/audit-catalog';
import type { OrganizationEvent } from './organization.events';

/** How organization events read in the audit log. MemberSeen (pings) is activity, not a change: it stays out. */
export const organizationAuditCatalog = auditCatalog<OrganizationEvent>({
  OrganizationCreated: (data) => ({
    action: 'organization.created',
    organizationId: data.organizationId,
    target: { type: 'organization', id: data.organizationId, label: data.title },
  }),
  OrganizationUpdated: (data) => ({
    action: 'organization.updated',
    organizationId: data.organizationId,
    target: { type: 'organization', id: data.organizationId, ...(data.changes.title ? { label: data.changes.title } : {}) },
  }),
  MemberAdded: (data) => member('member.added', data),
  MemberRoleChanged: (data) => member('member.role_changed', data),
  MemberRemoved: (data) => member('member.removed', data),
  MemberSsoEnabled: (data) => member('member.sso_enabled', data),
  LinkInviteCreated: (data) => linkInvite('invite_link.created', data),
  LinkInviteDeleted: (data) => linkInvite('invite_link.deleted', data),
  MemberInvited: (data) => invitation('member.invited', data),
  InvitationAccepted: (data) => invitation('member.invitation_accepted', data),
  InvitationDeclined: (data) => invitation('member.invitation_declined', data),
  InvitationRevoked: (data) => invitation('member.invitation_revoked', data),
});

function member(action: string, data: { organizationId: string; userId: string }): AuditEntry {
  return { action, organizationId: data.organizationId, target: { type: 'member', id: data.userId } };
}

function linkInvite(action: string, data: { organizationId: string; inviteId: string }): AuditEntry {
  return { action, organizationId: data.organizationId, target: { type: 'link-invite', id: data.inviteId } };
}

/** The target is the invitation, not the address: the audit log does not spread e-mail addresses further. */
function invitation(action: string, data: { organizationId: string; invitationId: string }): AuditEntry {
  return { action, organizationId: data.organizationId, target: { type: 'invitation', id: data.invitationId } };
}
