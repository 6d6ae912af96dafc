import type { OrganizationRole } from '#platform/permissions';

/** A SAML provider's settings, as POST /v1/orgs/{organizationId}/saml sets them. */
export interface SamlProviderSettings {
  label: string;
  /** The identity provider's entity ID: the `Issuer` its assertions must carry. */
  entityID: string | null;
  /** The identity provider's X.509 signing certificate, PEM. */
  certificate: string | null;
  /** The identity provider's single sign-on URL (HTTP-Redirect binding). */
  ssoURL: string | null;
  /** Team that users joining through this provider are added to. */
  defaultTeam: string | null;
  /** Role of users joining through this provider (null: guest). */
  defaultRole: OrganizationRole;
}

/** Everything PATCH can change; absent members are unchanged. */
export type SamlProviderChanges = Partial<SamlProviderSettings>;

/** `samlprovider-<providerId>`: one SAML identity provider of an organization. */
export type SamlProviderEvent =
  | { type: 'SamlProviderCreated'; data: { providerId: string; organizationId: string; createdAt: string } & SamlProviderSettings }
  | { type: 'SamlProviderUpdated'; data: { providerId: string; organizationId: string; changes: SamlProviderChanges } }
  | { type: 'SamlProviderDeleted'; data: { providerId: string; organizationId: string } };

/**
 * `samlrequest-<requestId>`: an AuthnRequest we sent to an identity provider, so that its answer
 * (`InResponseTo`) can be checked by whichever API replica receives it, and used once.
 */
export type SamlRequestEvent =
  | { type: 'SamlRequestIssued'; data: { requestId: string; providerId: string; issuedAt: string } }
  | { type: 'SamlRequestConsumed'; data: { requestId: string; providerId: string } };

/**
 * `samlassertion-<sha256(assertionId)>`: an assertion that logged someone in. The stream is created
 * with expected revision `no_stream`, so a second use of the same assertion, on any replica, conflicts.
 */
export type SamlAssertionEvent = { type: 'SamlAssertionConsumed'; data: { assertionId: string; providerId: string } };

/**
 * `samlidentity-<sha256(providerId, NameID)>`: which user a provider's NameID signs in. Bound on the
 * first login the organization was allowed to make for that user (a consenting member, or an address
 * in a verified domain); created with expected revision `no_stream`, so one NameID never names two users.
 */
export type SamlIdentityEvent = {
  type: 'SamlIdentityBound';
  data: { providerId: string; organizationId: string; nameIdHash: string; userId: string; basis: SamlAccessBasis; boundAt: string };
};

/** Why a provider may sign someone in. */
export type SamlAccessBasis = 'consenting-member' | 'verified-domain';

/**
 * Why a validly signed login was refused:
 * - `identity-not-allowed`: the NameID is bound to nobody, and the address is neither a consenting
 *   member's nor in a domain the organization verified (whether an account exists is not told);
 * - `binding-no-longer-allowed`: the NameID's user left the organization (or never consented again)
 *   and their address is not in a verified domain.
 */
export type SamlRefusalReason = 'identity-not-allowed' | 'binding-no-longer-allowed';

/**
 * `samlrefusals-<providerId>`: logins through the provider that were signed correctly but named
 * someone the organization may not sign in. Only hashes and the e-mail domain are kept, never the assertion.
 */
export type SamlRefusalEvent = {
  type: 'SamlLoginRefused';
  data: {
    providerId: string;
    organizationId: string;
    reason: SamlRefusalReason;
    nameIdHash: string;
    emailDomain: string | null;
    refusedAt: string;
  };
};
