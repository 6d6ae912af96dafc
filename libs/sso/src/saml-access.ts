import type { SamlAccessBasis, SamlRefusalReason } from './saml-provider.events';
import { EMAIL_NAME_ID_FORMAT } from './saml-response';

/**
 * Whom a SAML provider may sign in. A provider is configured by an organization's admins with a
 * certificate of their choosing, so a valid signature proves only that the organization vouches
 * for the person, and the organization may vouch only for people it has a claim on:
 * - the user its NameID is bound to, while that user still is a consenting member or has an
 *   address in a verified domain (leaving the organization takes its power over the account back);
 * - a member who consented to single sign-on (joined by accepting an invitation asking for it, or
 *   through an SSO login); an admin marking a member as SSO is not consent;
 * - an address in a domain the organization verified: the account, or a new one.
 * Anything else is refused, with the same reason whether or not an account has the address.
 */
export interface SamlAccessFacts {
  /** The user the NameID is bound to; null: none. */
  boundUserId: string | null;
  /** The account with the assertion's e-mail address; null: none. */
  emailUserId: string | null;
  /** The assertion's address is in a domain the organization verified. */
  emailInVerifiedDomain: boolean;
  /** Of the users above, the members of the organization who consented to SSO. */
  consentingMembers: ReadonlySet<string>;
  /** Of the users above, those whose current address is in a domain the organization verified. */
  usersInVerifiedDomains: ReadonlySet<string>;
}

export type SamlAccessDecision =
  /** `userId` null: create the account. `bind`: record the NameID → user binding. */
  { allowed: true; userId: string | null; basis: SamlAccessBasis; bind: boolean } | { allowed: false; reason: SamlRefusalReason };

export function decideSamlAccess(facts: SamlAccessFacts): SamlAccessDecision {
  const { boundUserId, emailUserId } = facts;
  if (boundUserId !== null) {
    const basis = basisFor(facts, boundUserId);
    return basis === null
      ? { allowed: false, reason: 'binding-no-longer-allowed' }
      : { allowed: true, userId: boundUserId, basis, bind: false };
  }
  if (emailUserId !== null) {
    const basis = basisFor(facts, emailUserId) ?? (facts.emailInVerifiedDomain ? 'verified-domain' : null);
    return basis === null ? { allowed: false, reason: 'identity-not-allowed' } : { allowed: true, userId: emailUserId, basis, bind: true };
  }
  return facts.emailInVerifiedDomain
    ? { allowed: true, userId: null, basis: 'verified-domain', bind: true }
    : { allowed: false, reason: 'identity-not-allowed' };
}

function basisFor(facts: SamlAccessFacts, userId: string): SamlAccessBasis | null {
  if (facts.consentingMembers.has(userId)) return 'consenting-member';
  if (facts.usersInVerifiedDomains.has(userId)) return 'verified-domain';
  return null;
}

/** The NameID as a binding key: e-mail NameIDs compare without case, others exactly. */
export function samlSubjectKey(nameID: string, nameIDFormat: string | null): string {
  return nameIDFormat === EMAIL_NAME_ID_FORMAT ? nameID.toLowerCase() : nameID;
}
