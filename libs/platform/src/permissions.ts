/**
 * The permission model (docs/architecture.md, Permissions): one table from which every
 * `permissions` object is filled and every 403 decided. docs/api/conventions.md shows the same table.
 */
export const ORGANIZATION_ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
/** An organization member's role; null is a guest. */
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number] | null;

export function isOrganizationRole(value: unknown): value is OrganizationRole {
  return value === null || (typeof value === 'string' && (ORGANIZATION_ROLES as readonly string[]).includes(value));
}

/**
 * Roles from most to least powerful: a role can do everything the roles after it can. A guest
 * (null) ranks 0; anything that is not a role (undefined, a stray string, a prototype key read from
 * a record) ranks -1, below every real role, so a corrupt or missing value never grants anything.
 */
export function roleRank(role: OrganizationRole): number {
  if (role === null) return 0;
  const index = typeof role === 'string' ? ORGANIZATION_ROLES.indexOf(role) : -1;
  return index === -1 ? -1 : ORGANIZATION_ROLES.length - index;
}

/** Whether `role` may do what `required` may; false when either is not a role. */
export function atLeast(role: OrganizationRole, required: Exclude<OrganizationRole, null>): boolean {
  const needed = roleRank(required);
  return needed > 0 && roleRank(role) >= needed;
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
  /** See the organization in the application: whoever sees it. */
  access: boolean;
  /** List and install integrations: the integrations context lets admins only. */
  listInstallations: boolean;
  installIntegration: boolean;
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
 * | admin, viewBilling, ingestConversations, listInstallations, installIntegration | ✓ | | | | | | |
 * | access              |   ✓   |   ✓    |   ✓    |  ✓   |    ✓    |  ✓   |   ✓   |
 */
export function organizationPermissions(role: OrganizationRole): OrganizationPermissions {
  // Rank rather than `!== null`: a value that is not a role is no member.
  const member = roleRank(role) > 0;
  const creator = atLeast(role, 'create');
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
    access: true,
    listInstallations: admin,
    installIntegration: admin,
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
    view: roleRank(organizationRole) > 0 || teamRole === 'owner' || teamRole === 'member',
  };
}

/** Creating teams is part of `ownTeam` in the organization permissions: role create and above. */
export function mayCreateTeam(organizationRole: OrganizationRole): boolean {
  return organizationPermissions(organizationRole).ownTeam;
}

export interface TranslationSettingsPermissions {
  /** Read the settings. */
  view: boolean;
  /** Create, change and delete translation settings. */
  edit: boolean;
}

/**
 * Translation settings are the organization's: its members with a role read them, its admins
 * manage them. Guests (outside collaborators on shared content) see none; people outside the
 * organization get 404.
 *
 * | may                          | admin | create | review | edit | comment | read | guest |
 * |------------------------------|:-----:|:------:|:------:|:----:|:-------:|:----:|:-----:|
 * | view (list and read)         |   ✓   |   ✓    |   ✓    |  ✓   |    ✓    |  ✓   |       |
 * | edit (create, change, delete)|   ✓   |        |        |      |         |      |       |
 */
export function translationSettingsPermissions(role: OrganizationRole): TranslationSettingsPermissions {
  return { view: roleRank(role) > 0, edit: role === 'admin' };
}
