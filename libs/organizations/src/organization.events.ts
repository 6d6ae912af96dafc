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
  | { type: 'MemberAdded'; data: { organizationId: string; userId: string; role: OrganizationRole; sso: boolean; joinedAt: string } };

export type HostnameEvent =
  | { type: 'HostnameClaimed'; data: { hostname: string; organizationId: string } }
  | { type: 'HostnameReleased'; data: { hostname: string; organizationId: string } };
