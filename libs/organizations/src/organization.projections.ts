import { NO_MERGE_RULES, withApprovalRule, type MergeRules } from '#platform/merge-rules';
import type { OrganizationRole } from '#platform/permissions';
import { multiDocumentProjection, type ProjectedDoc } from '#read-store/projections/projection';
import type { DefaultContent, MemberSeenEvent, OrganizationEvent } from './organization.events';
import { DEFAULT_ORGANIZATION_SETTINGS } from './organization.decider';

export const ORGANIZATIONS = 'organizations';
export const MEMBERS = 'members';
export const LINK_INVITES = 'link_invites';
/** Pending invitations by e-mail; an answered or revoked one is deleted. */
export const INVITATIONS = 'organization_invitations';
/** This context's copy of each user's name and address, from identity's events (see MemberProfileDoc). */
export const MEMBER_PROFILES = 'member_profiles';

export interface OrganizationDoc extends ProjectedDoc {
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
  /** Absent on organizations projected before the setting existed: false. */
  changeRequestsRequireApproval?: boolean;
  /** Absent on organizations projected before merge rules existed: the approval setting's rule, if set. */
  mergeRules?: MergeRules;
  /** Revision of the organization's stream: its ETag. */
  revision: number;
}

/** `_id` is `<organizationId>:<userId>`. */
export interface MemberDoc extends ProjectedDoc {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
  joinedAt: string;
  lastSeenAt: string | null;
  sso: boolean;
  disabled: boolean;
  /** Copied from the user's member profile, and kept current: members are searched and sorted by name. */
  displayName: string;
  email: string;
  nameLower: string;
}

export interface LinkInviteDoc extends ProjectedDoc {
  organizationId: string;
  role: OrganizationRole;
  createdBy: string;
  createdAt: string;
}

/** `_id` is the invitation id. */
export interface InvitationDoc extends ProjectedDoc {
  organizationId: string;
  /** Normalized (lower case): the invitee's pending invitations are found by it. */
  email: string;
  role: OrganizationRole;
  sso: boolean;
  invitedBy: string;
  invitedAt: string;
}

/**
 * `_id` is the user id: what this context knows of a user, from identity's events, so that member
 * documents carry the user's name without reading identity's read models. `organizations` lists
 * the member documents that copy it, so a change reaches them by id.
 */
export interface MemberProfileDoc extends ProjectedDoc {
  displayName: string;
  email: string;
  organizations: string[];
}

export const memberId = (organizationId: string, userId: string) => `${organizationId}:${userId}`;

/**
 * The identity context's events this projection copies names and addresses from. Only the shape
 * relied upon is written here.
 */
export type UserProfileEvent =
  | { type: 'UserCreated'; data: { userId: string; email: string; displayName: string } }
  | { type: 'UserUpdated'; data: { userId: string; changes: { displayName?: string } } };

type OrganizationsInput = OrganizationEvent | MemberSeenEvent | UserProfileEvent;

/** The member fields copied from a profile. */
const copied = (profile: { displayName: string; email: string }) => ({
  displayName: profile.displayName,
  email: profile.email,
  nameLower: profile.displayName.toLowerCase(),
});

/**
 * Organizations, members, invitations and member profiles, from the organization streams, the
 * members' `memberseen-*` streams and identity's user events. Every write is guarded by the
 * event's log position; an organization-stream event is skipped whole once the organization
 * document (which every such event writes: its revision is the ETag) has seen it.
 */
export const organizationProjection = multiDocumentProjection<OrganizationsInput>({
  name: 'organizations',
  collections: [ORGANIZATIONS, MEMBERS, LINK_INVITES, INVITATIONS, MEMBER_PROFILES],
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
    'UserCreated',
    'UserUpdated',
  ],
  guard(event) {
    switch (event.type) {
      case 'MemberSeen':
        return { collection: MEMBERS, id: memberId(event.data.organizationId, event.data.userId) };
      case 'UserCreated':
      case 'UserUpdated':
        return { collection: MEMBER_PROFILES, id: event.data.userId };
      default:
        return { collection: ORGANIZATIONS, id: event.data.organizationId };
    }
  },
  async apply(event, documents) {
    const organizations = documents.collection<OrganizationDoc>(ORGANIZATIONS);
    const members = documents.collection<MemberDoc>(MEMBERS);
    const profiles = documents.collection<MemberProfileDoc>(MEMBER_PROFILES);
    const revision = event.revision;
    switch (event.type) {
      case 'MemberSeen': {
        const { organizationId, userId, seenAt } = event.data;
        await members.update(memberId(organizationId, userId), { $set: { lastSeenAt: seenAt } });
        return;
      }
      case 'UserCreated':
      case 'UserUpdated': {
        const { userId } = event.data;
        const before = await profiles.get(userId);
        const profile = {
          displayName:
            event.type === 'UserCreated' ? event.data.displayName : (event.data.changes.displayName ?? before?.displayName ?? ''),
          email: event.type === 'UserCreated' ? event.data.email : (before?.email ?? ''),
          organizations: before?.organizations ?? [],
        };
        await profiles.put({ _id: userId, ...profile });
        // The user's member documents follow, whether they joined before or after the change.
        for (const organizationId of profile.organizations)
          await members.update(memberId(organizationId, userId), { $set: copied(profile) });
        return;
      }
      case 'OrganizationCreated': {
        const { organizationId, title, emailDomains, createdAt } = event.data;
        await organizations.put({
          _id: organizationId,
          title,
          createdAt,
          updatedAt: createdAt,
          emailDomains,
          ...DEFAULT_ORGANIZATION_SETTINGS,
          revision,
        });
        return;
      }
      case 'OrganizationUpdated': {
        const { organizationId, changes } = event.data;
        // Events from before merge rules carry the approval setting alone: its rule joins the rules.
        const derived =
          changes.mergeRules === undefined && changes.changeRequestsRequireApproval !== undefined
            ? {
                mergeRules: withApprovalRule(
                  (await organizations.get(organizationId))?.mergeRules ?? NO_MERGE_RULES,
                  changes.changeRequestsRequireApproval,
                ),
              }
            : {};
        await organizations.update(organizationId, { $set: { ...changes, ...derived, updatedAt: event.data.updatedAt, revision } });
        return;
      }
    }
    // Every other event of the organization stream moves its revision too: the organization's ETag.
    await organizations.update(event.data.organizationId, { $set: { revision } });
    switch (event.type) {
      case 'MemberAdded': {
        const { organizationId, userId, role, sso, joinedAt } = event.data;
        const profile = await profiles.get(userId);
        await members.put({
          _id: memberId(organizationId, userId),
          organizationId,
          userId,
          role,
          joinedAt,
          lastSeenAt: null,
          sso,
          disabled: false,
          ...copied(profile ?? { displayName: '', email: '' }),
        });
        const listed = profile?.organizations ?? [];
        if (!listed.includes(organizationId)) {
          await profiles.put({ displayName: '', email: '', ...profile, _id: userId, organizations: [...listed, organizationId] });
        }
        return;
      }
      case 'MemberRoleChanged':
        await members.update(memberId(event.data.organizationId, event.data.userId), { $set: { role: event.data.role } });
        return;
      case 'MemberRemoved': {
        const { organizationId, userId } = event.data;
        await members.delete(memberId(organizationId, userId));
        await profiles.update(userId, { $pull: { organizations: organizationId } });
        return;
      }
      case 'MemberSsoEnabled':
        await members.update(memberId(event.data.organizationId, event.data.userId), { $set: { sso: true } });
        return;
      case 'LinkInviteCreated': {
        const { organizationId, inviteId, role, createdBy, createdAt } = event.data;
        await documents.collection<LinkInviteDoc>(LINK_INVITES).put({ _id: inviteId, organizationId, role, createdBy, createdAt });
        return;
      }
      case 'LinkInviteDeleted':
        await documents.collection<LinkInviteDoc>(LINK_INVITES).delete(event.data.inviteId);
        return;
      case 'MemberInvited': {
        const { invitationId, organizationId, email, role, sso, invitedBy, invitedAt } = event.data;
        await documents
          .collection<InvitationDoc>(INVITATIONS)
          .put({ _id: invitationId, organizationId, email, role, sso, invitedBy, invitedAt });
        return;
      }
      case 'InvitationAccepted':
      case 'InvitationDeclined':
      case 'InvitationRevoked':
        await documents.collection<InvitationDoc>(INVITATIONS).delete(event.data.invitationId);
        return;
    }
  },
});
