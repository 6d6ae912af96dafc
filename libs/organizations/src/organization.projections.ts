import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { OrganizationRole } from '../../platform/src/permissions';
import type { Projection } from '../../read-store/src/projections/projection';
import type { Doc } from '../../read-store/src/read-store.port';
import { USERS, type UserDoc } from '../../identity/src/identity.projections';
import type { DefaultContent, MemberSeenEvent, OrganizationEvent } from './organization.events';
import { DEFAULT_ORGANIZATION_SETTINGS } from './organization.decider';

export const ORGANIZATIONS = 'organizations';
export const MEMBERS = 'members';
export const LINK_INVITES = 'link_invites';
/** Pending invitations by e-mail; an answered or revoked one is deleted. */
export const INVITATIONS = 'organization_invitations';

export interface OrganizationDoc extends Doc {
  title: string;
  createdAt: string;
  updatedAt: string;
  emailDomains: string[];
  hostname: string | null;
  defaultRole: OrganizationRole;
  defaultContent: DefaultContent;
  logo: string | null;
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  /** Revision of the organization's stream: its ETag. */
  revision: number;
}

/** `_id` is `<organizationId>:<userId>`. */
export interface MemberDoc extends Doc {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
  joinedAt: string;
  lastSeenAt: string | null;
  sso: boolean;
  disabled: boolean;
  /** Copied from the user when they joined, for search and sorting by name. */
  displayName: string;
  email: string;
  nameLower: string;
}

export interface LinkInviteDoc extends Doc {
  organizationId: string;
  role: OrganizationRole;
  createdBy: string;
  createdAt: string;
}

/** `_id` is the invitation id. */
export interface InvitationDoc extends Doc {
  organizationId: string;
  /** Normalized (lower case): the invitee's pending invitations are found by it. */
  email: string;
  role: OrganizationRole;
  sso: boolean;
  invitedBy: string;
  invitedAt: string;
}

export const memberId = (organizationId: string, userId: string) => `${organizationId}:${userId}`;

/** Organizations and members, from the organization streams. Every write is a put or an update keyed by id: replay-safe. */
export const organizationProjection: Projection = {
  name: 'organizations',
  collections: [ORGANIZATIONS, MEMBERS, LINK_INVITES, INVITATIONS],
  indexes: [
    { collection: ORGANIZATIONS, fields: { emailDomains: 1 } },
    { collection: MEMBERS, fields: { userId: 1, joinedAt: -1 } },
    { collection: MEMBERS, fields: { organizationId: 1, joinedAt: -1 } },
    { collection: LINK_INVITES, fields: { organizationId: 1, createdAt: -1 } },
    { collection: INVITATIONS, fields: { email: 1, invitedAt: -1 } },
    { collection: INVITATIONS, fields: { organizationId: 1, invitedAt: -1 } },
  ],
  handles: [
    'OrganizationCreated',
    'OrganizationUpdated',
    'MemberAdded',
    'MemberRoleChanged',
    'MemberRemoved',
    'MemberSsoEnabled',
    'MemberSeen',
    'LinkInviteCreated',
    'LinkInviteDeleted',
    'MemberInvited',
    'InvitationAccepted',
    'InvitationDeclined',
    'InvitationRevoked',
  ],
  async apply(recorded: RecordedEvent, tx) {
    const event = recorded as unknown as OrganizationEvent | MemberSeenEvent;
    const organizations = tx.collection<OrganizationDoc>(ORGANIZATIONS);
    const members = tx.collection<MemberDoc>(MEMBERS);
    if (event.type === 'MemberSeen') {
      const { organizationId, userId, seenAt } = event.data;
      if (await members.get(memberId(organizationId, userId))) await members.update(memberId(organizationId, userId), { $set: { lastSeenAt: seenAt } });
      return;
    }
    // Every event of the organization stream moves its revision, which is the organization's ETag.
    const bumpRevision = () => organizations.update(event.data.organizationId, { $set: { revision: recorded.revision } });
    switch (event.type) {
      case 'OrganizationCreated': {
        const { organizationId, title, emailDomains, createdAt } = event.data;
        await organizations.put({
          _id: organizationId,
          title,
          createdAt,
          updatedAt: createdAt,
          emailDomains,
          ...DEFAULT_ORGANIZATION_SETTINGS,
          revision: recorded.revision,
        });
        return;
      }
      case 'OrganizationUpdated':
        await organizations.update(event.data.organizationId, {
          $set: { ...event.data.changes, updatedAt: event.data.updatedAt, revision: recorded.revision },
        });
        return;
      case 'MemberAdded': {
        const { organizationId, userId, role, sso, joinedAt } = event.data;
        const user = await tx.collection<UserDoc>(USERS).get(userId);
        const displayName = user?.displayName ?? '';
        await members.put({
          _id: memberId(organizationId, userId),
          organizationId,
          userId,
          role,
          joinedAt,
          lastSeenAt: null,
          sso,
          disabled: false,
          displayName,
          email: user?.email ?? '',
          nameLower: displayName.toLowerCase(),
        });
        await bumpRevision();
        return;
      }
      case 'MemberRoleChanged':
        await members.update(memberId(event.data.organizationId, event.data.userId), { $set: { role: event.data.role } });
        await bumpRevision();
        return;
      case 'MemberRemoved':
        await members.delete(memberId(event.data.organizationId, event.data.userId));
        await bumpRevision();
        return;
      case 'MemberSsoEnabled':
        await members.update(memberId(event.data.organizationId, event.data.userId), { $set: { sso: true } });
        await bumpRevision();
        return;
      case 'LinkInviteCreated': {
        const { organizationId, inviteId, role, createdBy, createdAt } = event.data;
        await tx.collection<LinkInviteDoc>(LINK_INVITES).put({ _id: inviteId, organizationId, role, createdBy, createdAt });
        await bumpRevision();
        return;
      }
      case 'LinkInviteDeleted':
        await tx.collection(LINK_INVITES).delete(event.data.inviteId);
        await bumpRevision();
        return;
      case 'MemberInvited': {
        const { invitationId, organizationId, email, role, sso, invitedBy, invitedAt } = event.data;
        await tx.collection<InvitationDoc>(INVITATIONS).put({ _id: invitationId, organizationId, email, role, sso, invitedBy, invitedAt });
        await bumpRevision();
        return;
      }
      case 'InvitationAccepted':
      case 'InvitationDeclined':
      case 'InvitationRevoked':
        await tx.collection(INVITATIONS).delete(event.data.invitationId);
        await bumpRevision();
        return;
    }
  },
};
