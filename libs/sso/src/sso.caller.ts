import type { Caller } from '#platform/http/auth';

/** The actor recorded on what a SAML login does by itself (creating the user, joining them, issuing their token). */
export const SAML_LOGIN_ACTOR = { id: 'sso', label: 'SAML login' } as const;

/**
 * The caller a SAML login acts as: the service itself, not the administrator and not a user (the
 * person logging in is not authenticated until the login succeeds). Its events carry the actor
 * `{ type: 'system', id: 'sso', label: 'SAML login' }`.
 */
export function samlLoginCaller(requestId: string | undefined): Caller {
  return { kind: 'system', ...SAML_LOGIN_ACTOR, requestId };
}
