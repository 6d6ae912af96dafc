import type { Caller } from '../../platform/src/http/auth';

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
