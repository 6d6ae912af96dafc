/*
 * What single sign-on needs of other contexts: every port it consumes (the interfaces, the types
 * they speak in and their `Symbol` tokens), each bound at the composition root to an adapter the
 * provider lists in its manifest's `provides`. The types are as narrow as sso needs them, so the
 * context imports nothing of its providers.
 */
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';

/* Of organizations (SSO_ORGANIZATIONS, bound to OrganizationsForSso). */

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

/* Of teams (SSO_TEAMS, bound to TeamsForSso). */

/**
 * What single sign-on needs from the teams context, bound by the composition root (the SSO context
 * does not depend on the teams context's internals):
 * - `findTeam`: the Team object of a team of the organization, or null;
 * - `addMember`: adds a member of the organization to one of its teams as a team `member`, on
 *   behalf of `caller` (the SAML login's system caller, which holds no user permissions: the binding
 *   adds without a user permission check). Adding someone already in the team is not an error.
 */
export interface SsoTeams {
  findTeam(organizationId: string, teamId: string): Promise<{ id: string; object: 'team'; [k: string]: unknown } | null>;
  addMember(organizationId: string, teamId: string, userId: string, caller: Caller): Promise<void>;
}

export const SSO_TEAMS = Symbol('SSO_TEAMS');

/* Of identity (SSO_USERS, bound to UsersForSso). */

/** A user as the SAML login reads it. */
export interface SsoUser {
  _id: string;
  email: string;
  displayName: string;
}

/**
 * What the SAML login needs from the identity context, bound at the composition root: find users
 * by e-mail or id, present one (the User object of the answer), create one, issue a token.
 */
export interface SsoUsers {
  byEmail(email: string): Promise<SsoUser | null>;
  byId(userId: string): Promise<SsoUser | null>;
  present(user: SsoUser): { object: 'user'; id: string; [member: string]: unknown };
  createUser(email: string, displayName: string, photoURL: string | null, caller: Caller): Promise<string>;
  issueToken(userId: string, caller: Caller): Promise<{ tokenId: string; token: string }>;
}

export const SSO_USERS = Symbol('SSO_USERS');
