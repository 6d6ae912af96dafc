import type { MergeRules } from '#platform/merge-rules';
import type { OrganizationRole } from '#platform/permissions';

/** `{ type: 'site', site }` or null: where visitors of the organization's hostname land. */
export type DefaultContent = { type: 'site'; site: string } | null;

/** Everything PATCH /v1/orgs/{organizationId} can change; absent members are unchanged. */
export interface OrganizationChanges {
  title?: string;
  emailDomains?: string[];
  hostname?: string | null;
  defaultRole?: OrganizationRole;
  defaultContent?: DefaultContent;
  logo?: string | null;
  sso?: boolean;
  ai?: boolean;
  inviteLinks?: boolean;
  /**
   * Change requests merge only with an approval of their latest revision (extension). The same
   * setting as the `require_at_least_one_approved_review` rule of `mergeRules`: the decider writes
   * both whenever either changes (events before merge rules existed carry only this one).
   */
  changeRequestsRequireApproval?: boolean;
  /** The platform's merge rules; the service enforces the approval rule, and keeps the others as set. */
  mergeRules?: MergeRules;
}

/**
 * Organizations. Streams:
 * - `organization-<organizationId>`: the organization and its membership (so that rules over all
 *   members, such as "the last admin stays", are checked against one consistent state);
 * - `orghostname-<hostname>`: who holds a hostname, so two organizations never share one.
 */
export type OrganizationEvent =
  | {
      type: 'OrganizationCreated';
      data: { organizationId: string; title: string; emailDomains: string[]; createdBy: string; createdAt: string };
    }
  | { type: 'OrganizationUpdated'; data: { organizationId: string; changes: OrganizationChanges; updatedAt: string } }
  | { type: 'MemberAdded'; data: MemberAddedData }
  | { type: 'MemberRoleChanged'; data: { organizationId: string; userId: string; role: OrganizationRole } }
  | { type: 'MemberRemoved'; data: { organizationId: string; userId: string } }
  | { type: 'MemberSsoEnabled'; data: { organizationId: string; userId: string } }
  | {
      type: 'LinkInviteCreated';
      data: { organizationId: string; inviteId: string; role: OrganizationRole; createdBy: string; createdAt: string };
    }
  | { type: 'LinkInviteDeleted'; data: { organizationId: string; inviteId: string } }
  /** An invitation by e-mail, pending until the person accepts it; inviting a pending address again refreshes it under the same id. */
  | {
      type: 'MemberInvited';
      data: {
        organizationId: string;
        invitationId: string;
        email: string;
        role: OrganizationRole;
        sso: boolean;
        invitedBy: string;
        invitedAt: string;
      };
    }
  | { type: 'InvitationAccepted'; data: { organizationId: string; invitationId: string; userId: string; acceptedAt: string } }
  | { type: 'InvitationDeclined'; data: { organizationId: string; invitationId: string; userId: string; declinedAt: string } }
  | { type: 'InvitationRevoked'; data: { organizationId: string; invitationId: string; revokedBy: string; revokedAt: string } };

export interface MemberAddedData {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
  sso: boolean;
  joinedAt: string;
  via?: MemberSource;
  /** The invitation the member accepted (`via: 'invite'`). */
  invitationId?: string;
  /**
   * Whether the member agreed to SSO: they accepted an invitation that asked for it. Absent on
   * older events and on SSO logins, where `via: 'sso'` is the consent.
   */
  ssoConsent?: boolean;
}

/** How a member came in (`invite`: by accepting an invitation by e-mail). */
export type MemberSource = 'creation' | 'invite' | 'link' | 'sso';

/**
 * `memberseen-<organizationId>.<userId>`: when a member was last seen. Kept out of the
 * organization stream so that pings neither grow it nor change its ETag; at most one event per
 * member per minute (see SEEN_INTERVAL_MS).
 */
export type MemberSeenEvent = { type: 'MemberSeen'; data: { organizationId: string; userId: string; seenAt: string } };

export type HostnameEvent =
  | { type: 'HostnameClaimed'; data: { hostname: string; organizationId: string } }
  | { type: 'HostnameReleased'; data: { hostname: string; organizationId: string } };
