import { ORGANIZATION_ROLES, type OrganizationRole } from '#platform/permissions';
import type { DefaultLevel, SpaceVisibility } from './space.events';

/** A role on a space or collection; null: none (the caller may still read what visibility allows). */
export type ContentRole = OrganizationRole;

/** The caller as the organizations context sees them in the content's organization. */
export interface OrganizationStanding {
  /** Belongs to the organization (with a role, or as a guest). */
  member: boolean;
  /** Their organization role; null for guests and people outside. */
  role: OrganizationRole;
  /** The ids of the organization's teams they are in (the teams context's memberships); empty for people outside. */
  teams: readonly string[];
}

/** Roles granted on a space to teams, by team id (`PUT /spaces/{spaceId}/teams/{teamId}`). */
export type TeamRoles = Readonly<Record<string, Exclude<OrganizationRole, null>>>;

/**
 * A role as these rules read it: one of the organization roles, else null. Roles come from read
 * models and request bodies; anything else (undefined, a misspelt or retired role) must grant
 * nothing rather than rank somewhere by accident.
 */
export function contentRole(value: unknown): ContentRole {
  return typeof value === 'string' && (ORGANIZATION_ROLES as readonly string[]).includes(value) ? (value as ContentRole) : null;
}

/** Higher is more powerful; no role (and anything that is not a role) ranks 0, below every role. */
function rank(role: unknown): number {
  const known = contentRole(role);
  return known === null ? 0 : ORGANIZATION_ROLES.length - ORGANIZATION_ROLES.indexOf(known);
}

/** Whether `role` is `required` or more powerful; never for something that is not a role. */
export function atLeast(role: unknown, required: Exclude<OrganizationRole, null>): boolean {
  return rank(role) > 0 && rank(role) >= rank(required);
}

const highest = (roles: readonly unknown[]): ContentRole =>
  roles.reduce<ContentRole>((best, role) => (rank(role) > rank(best) ? contentRole(role) : best), null);

/** The role granted to `teamId` in `teamRoles`, own entries only (a team id such as `constructor` finds nothing). */
export function grantedTo(teamRoles: TeamRoles | ReadonlyMap<string, unknown> | undefined, teamId: string): ContentRole {
  if (teamRoles === undefined) return null;
  if (teamRoles instanceof Map) return contentRole(teamRoles.get(teamId));
  return Object.prototype.hasOwnProperty.call(teamRoles, teamId) ? contentRole((teamRoles as TeamRoles)[teamId]) : null;
}

/**
 * The effective role on a collection: organization admins are admins everywhere; other members
 * with a role get the highest of their organization role and the `defaultLevel` of the collection
 * and of every collection above it (a default level only ever raises). Guests and people outside
 * get none (collections take no team or per-member grants; spaces take team grants, see `spaceRole`).
 *
 * `chain` is the collection itself, then its parent, and so on up.
 */
export function collectionRole(standing: OrganizationStanding, chain: ReadonlyArray<{ defaultLevel: DefaultLevel }>): ContentRole {
  const role = contentRole(standing.role);
  if (!standing.member || role === null) return null;
  if (role === 'admin') return 'admin';
  return highest([role, ...chain.map((collection) => collection.defaultLevel)]);
}

/** The highest role the space grants to the teams the member is in; null for people outside the organization. */
export function teamGrantedRole(standing: OrganizationStanding, teamRoles: TeamRoles | undefined): ContentRole {
  if (!standing.member || teamRoles === undefined) return null;
  return highest(standing.teams.map((teamId) => grantedTo(teamRoles, teamId)));
}

/**
 * The effective role on a space: as for collections, over the space's own `defaultLevel` and its
 * parent collections'. An `in-collection` space ignores its own default level: access follows the
 * parent collection. On top of that, the highest role the space grants to a team the member is
 * in (`teamRoles`; teams only hold members of the organization, guests included, and a team grant
 * is the one way a guest gets a role on a space).
 */
export function spaceRole(
  standing: OrganizationStanding,
  space: { visibility: SpaceVisibility; defaultLevel: DefaultLevel; teamRoles?: TeamRoles },
  parents: ReadonlyArray<{ defaultLevel: DefaultLevel }>,
): ContentRole {
  const own = space.visibility === 'in-collection' ? [] : [space];
  return highest([collectionRole(standing, [...own, ...parents]), teamGrantedRole(standing, space.teamRoles)]);
}

/**
 * Whether a caller without a role on the space may read it, by visibility:
 *
 * | visibility     | listed for them | readable by id | with a valid share key |
 * |----------------|:---------------:|:--------------:|:----------------------:|
 * | public         |        ✓        |       ✓        |           ✓            |
 * | unlisted       |                 |       ✓        |           ✓            |
 * | share-link     |                 |                |           ✓            |
 * | visitor-auth   |                 |                |  (visitor JWTs come with sites) |
 * | in-collection  |                 |                |                        |
 * | private        |                 |                |                        |
 */
export function visibilityGrantsRead(visibility: SpaceVisibility, hasValidShareKey: boolean): boolean {
  switch (visibility) {
    case 'public':
    case 'unlisted':
      return true;
    case 'share-link':
      return hasValidShareKey;
    case 'visitor-auth':
    case 'in-collection':
    case 'private':
      return false;
  }
}

export interface SpacePermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  edit: boolean;
  triggerGitSync: boolean;
  comment: boolean;
  merge: boolean;
  review: boolean;
  /** Install integrations on it: the integrations context lets organization admins only. */
  installIntegration: boolean;
}

/**
 * What the caller may do with a space, from their effective role (and read access by visibility),
 * and for `installIntegration` from their organization role (admin: integrations are installed on
 * a space by admins of its organization, whatever role the space grants):
 *
 * | permission              | admin | create | review | edit | comment | read | none (visibility allows) |
 * |-------------------------|:-----:|:------:|:------:|:----:|:-------:|:----:|:------------------------:|
 * | view, access            |   ✓   |   ✓    |   ✓    |  ✓   |    ✓    |  ✓   |            ✓             |
 * | comment                 |   ✓   |   ✓    |   ✓    |  ✓   |    ✓    |      |                          |
 * | edit, triggerGitSync    |   ✓   |   ✓    |   ✓    |  ✓   |         |      |                          |
 * | review, merge           |   ✓   |   ✓    |   ✓    |      |         |      |                          |
 * | admin, viewInviteLinks  |   ✓   |        |        |      |         |      |                          |
 */
export function spacePermissions(given: ContentRole, readable: boolean, organizationRole: ContentRole): SpacePermissions {
  const role = contentRole(given);
  const view = role !== null || readable;
  return {
    view,
    access: view,
    admin: role === 'admin',
    viewInviteLinks: role === 'admin',
    edit: atLeast(role, 'edit'),
    triggerGitSync: atLeast(role, 'edit'),
    comment: atLeast(role, 'comment'),
    merge: atLeast(role, 'review'),
    review: atLeast(role, 'review'),
    installIntegration: contentRole(organizationRole) === 'admin',
  };
}

export interface CollectionPermissions {
  view: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  /** Create spaces and collections inside it. */
  create: boolean;
}

/** Collections: members with a role see them; `create` and above create inside; `admin` administrates. */
export function collectionPermissions(given: ContentRole): CollectionPermissions {
  const role = contentRole(given);
  return { view: role !== null, admin: role === 'admin', viewInviteLinks: role === 'admin', create: atLeast(role, 'create') };
}
