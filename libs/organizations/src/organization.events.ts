import type { OrganizationRole } from '../../platform/src/permissions';

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
  | { type: 'MemberAdded'; data: { organizationId: string; userId: string; role: OrganizationRole; sso: boolean; joinedAt: string; via?: MemberSource } }
  | { type: 'MemberRoleChanged'; data: { organizationId: string; userId: string; role: OrganizationRole } }
  | { type: 'MemberRemoved'; data: { organizationId: string; userId: string } }
  | { type: 'MemberSsoEnabled'; data: { organizationId: string; userId: string } }
  | { type: 'LinkInviteCreated'; data: { organizationId: string; inviteId: string; role: OrganizationRole; createdBy: string; createdAt: string } }
  | { type: 'LinkInviteDeleted'; data: { organizationId: string; inviteId: string } };

/** How a member came in. */
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
