/**
 * The permission model (interface document, conventions 4 and 5): one table from which every
 * `permissions` object is filled and every 403 decided. The README shows the same table.
 */
export const ORGANIZATION_ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
/** An organization member's role; null is a guest. */
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number] | null;

export function isOrganizationRole(value: unknown): value is OrganizationRole {
  return value === null || (typeof value === 'string' && (ORGANIZATION_ROLES as readonly string[]).includes(value));
}

/** Roles from most to least powerful: a role can do everything the roles after it can. */
export function roleRank(role: OrganizationRole): number {
  return role === null ? 0 : ORGANIZATION_ROLES.length - ORGANIZATION_ROLES.indexOf(role);
}

export function atLeast(role: OrganizationRole, required: Exclude<OrganizationRole, null>): boolean {
  return roleRank(role) >= roleRank(required);
}

export interface OrganizationPermissions {
  view: boolean;
  admin: boolean;
  ownTeam: boolean;
  createContent: boolean;
  createOpenAPISpec: boolean;
  ingestConversations: boolean;
  viewBilling: boolean;
  listMembers: boolean;
  listTeams: boolean;
  listIntegrations: boolean;
}

/**
 * What a member of an organization may do there, by role:
 *
 * | permission          | admin | create | review | edit | comment | read | guest |
 * |---------------------|:-----:|:------:|:------:|:----:|:-------:|:----:|:-----:|
 * | view                |   ✓   |   ✓    |   ✓    |  ✓   |    ✓    |  ✓   |   ✓   |
 * | listMembers, listTeams, listIntegrations | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | |
 * | ownTeam             |   ✓   |   ✓    |        |      |         |      |       |
 * | createContent, createOpenAPISpec |   ✓   |   ✓    |        |      |         |      |       |
 * | admin, viewBilling, ingestConversations | ✓ | | | | | | |
 */
export function organizationPermissions(role: OrganizationRole): OrganizationPermissions {
  const member = role !== null;
  const creator = role !== null && atLeast(role, 'create');
  const admin = role === 'admin';
  return {
    view: true,
    admin,
    ownTeam: creator,
    createContent: creator,
    createOpenAPISpec: creator,
    ingestConversations: admin,
    viewBilling: admin,
    listMembers: member,
    listTeams: member,
    listIntegrations: member,
  };
}

export const TEAM_ROLES = ['owner', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export interface TeamPermissions {
  /** Rename or delete the team, manage its members. */
  admin: boolean;
  view: boolean;
}

/**
 * Teams: organization admins manage every team; a team's owners manage that team; every member of
 * the organization except guests sees its teams.
 *
 * | may                              | org admin | team owner | team member | other member | guest |
 * |----------------------------------|:---------:|:----------:|:-----------:|:------------:|:-----:|
 * | see the team and its members     |     ✓     |     ✓      |      ✓      |      ✓       |       |
 * | rename/delete it, manage members |     ✓     |     ✓      |             |              |       |
 * | create a team                    |     ✓     |  (org role create and above)            |       |
 */
export function teamPermissions(organizationRole: OrganizationRole, teamRole: TeamRole | null): TeamPermissions {
  return {
    admin: organizationRole === 'admin' || teamRole === 'owner',
    view: organizationRole !== null || teamRole !== null,
  };
}

/** Creating teams is part of `ownTeam` in the organization permissions: role create and above. */
export function mayCreateTeam(organizationRole: OrganizationRole): boolean {
  return organizationPermissions(organizationRole).ownTeam;
}
