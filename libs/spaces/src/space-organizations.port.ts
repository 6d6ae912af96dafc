import type { OrganizationRole } from '../../platform/src/permissions';

/**
 * What the spaces context needs from the organizations context, bound at the composition root: the
 * user's standing in an organization, from its read model (null: no such organization;
 * `member: false`: the user does not belong to it, or is disabled).
 */
export interface SpaceOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const SPACE_ORGANIZATIONS = Symbol('SPACE_ORGANIZATIONS');
