import { atLeast, ORGANIZATION_ROLES, roleRank, type OrganizationRole } from '#platform/permissions';
import type { SiteDefaultLevel } from './site.events';

/** A site's `defaultLevel` before one is set: members keep their organization role. */
export const INHERITED_LEVEL = 'inherit';

/**
 * The caller's role on a site: their organization role, raised to the site's `defaultLevel` when
 * that is a role (a default level only ever raises, as on spaces and collections). Guests (no
 * organization role) and people outside get none; `inherit` and null change nothing.
 */
export function siteRole(organizationRole: OrganizationRole, defaultLevel: SiteDefaultLevel | undefined): OrganizationRole {
  if (roleRank(organizationRole) <= 0) return null;
  const level =
    typeof defaultLevel === 'string' && (ORGANIZATION_ROLES as readonly string[]).includes(defaultLevel)
      ? (defaultLevel as Exclude<OrganizationRole, null>)
      : null;
  return level !== null && roleRank(level) > roleRank(organizationRole) ? level : organizationRole;
}

export interface SitePermissions {
  view: boolean;
  access: boolean;
  edit: boolean;
  create: boolean;
  admin: boolean;
  installIntegration: boolean;
  viewAdaptiveSchema: boolean;
  editAdaptiveSchema: boolean;
}

/**
 * What a caller may do with a site, as this service decides it (site.commands.ts, site.queries.ts):
 *
 * | permission                        | site admin | edit and above | other members, guests | readers from outside |
 * |-----------------------------------|:----------:|:--------------:|:---------------------:|:--------------------:|
 * | view                              |     ✓      |       ✓        |           ✓           |          ✓           |
 * | access, viewAdaptiveSchema        |     ✓      |       ✓        |           ✓           |                      |
 * | edit (the content of its spaces)  |     ✓      |       ✓        |                       |                      |
 * | create, admin, editAdaptiveSchema |     ✓      |                |                       |                      |
 *
 * `installIntegration` is the organization's admins' (the integrations context decides it), whatever
 * the site role. `create` is the site admins' here: every change of a site's structure needs it.
 * Readers from outside (`member` false) are the published site's readers.
 */
export function sitePermissions(standing: {
  member: boolean;
  organizationRole: OrganizationRole;
  siteRole: OrganizationRole;
}): SitePermissions {
  const admin = standing.member && standing.siteRole === 'admin';
  return {
    view: true,
    access: standing.member,
    edit: standing.member && atLeast(standing.siteRole, 'edit'),
    create: admin,
    admin,
    installIntegration: standing.member && standing.organizationRole === 'admin',
    viewAdaptiveSchema: standing.member,
    editAdaptiveSchema: admin,
  };
}
