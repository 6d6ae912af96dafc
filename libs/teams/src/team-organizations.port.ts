/**
 * What the teams context's reactions need from the organizations context, bound at the composition
 * root: whether the user belongs to the organization now, read from its event stream (a reaction
 * decides on the current membership, not on a read model that may lag).
 */
export interface TeamOrganizations {
  isMember(organizationId: string, userId: string): Promise<boolean>;
}

export const TEAM_ORGANIZATIONS = Symbol('TEAM_ORGANIZATIONS');
