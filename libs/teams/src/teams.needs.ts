/*
 * What the teams context needs of other contexts: every port it consumes (the interfaces, the types
 * they speak in and their `Symbol` tokens), each bound at the composition root to an adapter the
 * provider lists in its manifest's `provides`. The types are as narrow as teams need them, so the
 * context imports nothing of its providers.
 */
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';

/* Of organizations (TEAM_ORGANIZATIONS, bound to OrganizationsForTeams). */

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

/* Of identity (TEAM_USERS, bound to UsersForTeams). */

/** A user as the teams context reads it: only its id. */
export interface TeamUser {
  _id: string;
}

/**
 * What the teams context needs from the identity context, bound at the composition root: who the
 * entries of a team change (user ids or e-mail addresses) name.
 */
export interface TeamUsers {
  byIds(userIds: readonly string[]): Promise<ReadonlyMap<string, TeamUser>>;
  byEmail(email: string): Promise<TeamUser | null>;
}

export const TEAM_USERS = Symbol('TEAM_USERS');
