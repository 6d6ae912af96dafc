import type { Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';

/** The organizations context's Member object, embedded as it is in team membership items. */
export interface OrganizationMemberObject {
  object: 'member';
  id: string;
}

/**
 * What the teams context needs from the organizations context, bound at the composition root:
 * - `isMember`: whether the user belongs to the organization now, read from its event stream (a
 *   reaction decides on the current membership, not on a read model that may lag);
 * - `roleOf`: the user's standing, from the read model (null: no such organization; `member: false`:
 *   the user does not belong to it, or is disabled);
 * - `requireMember`: the caller's organization role, 404 for callers outside the organization;
 * - `presentMembers`: the Member objects of these users (those who are members), for one page.
 */
export interface TeamOrganizations {
  isMember(organizationId: string, userId: string): Promise<boolean>;
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
  requireMember(organizationId: string, caller: Caller): Promise<OrganizationRole>;
  presentMembers(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, OrganizationMemberObject>>;
}

export const TEAM_ORGANIZATIONS = Symbol('TEAM_ORGANIZATIONS');
