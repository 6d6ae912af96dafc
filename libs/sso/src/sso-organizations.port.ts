import type { Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';

/**
 * What single sign-on needs from the organizations context, bound at the composition root:
 * - `roleOf`, `requireAdmin`: the membership checks of the SSO routes (null: no such organization;
 *   `requireAdmin` answers 404 outside the organization, 403 for non-admins);
 * - `membersAmong`: of these users, the organization's members and whether each agreed to single
 *   sign-on, read from the organization's event stream (current on every replica, as a login needs);
 * - `joinBySso`: the user joins (or stays) as an SSO member with `role`, on behalf of `caller`.
 */
export interface SsoOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
  requireAdmin(organizationId: string, caller: Caller, may: string): Promise<void>;
  membersAmong(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, { ssoConsent: boolean }>>;
  joinBySso(organizationId: string, userId: string, role: OrganizationRole, caller: Caller): Promise<void>;
}

export const SSO_ORGANIZATIONS = Symbol('SSO_ORGANIZATIONS');
