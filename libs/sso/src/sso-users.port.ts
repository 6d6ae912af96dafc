import type { Caller } from '../../platform/src/http/auth';

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
