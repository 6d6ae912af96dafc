/** Our side of a SAML provider (the service provider), as the provider's `service` member shows it. */
export interface SamlServiceUrls {
  /** Our entity ID: the AuthnRequest's Issuer and the Audience assertions must name. */
  entityID: string;
  /** Where the browser starts a login (GET, redirects to the identity provider). */
  startURL: string;
  /** Assertion consumer service: where the identity provider posts its response. */
  acsURL: string;
}

/** Built from PUBLIC_URL, so every replica (and the identity provider's configuration) agrees on them. */
export function samlServiceUrls(publicUrl: string, providerId: string): SamlServiceUrls {
  const entityID = `${publicUrl}/v1/sso/saml/${providerId}`;
  return { entityID, startURL: `${entityID}/start`, acsURL: `${entityID}/acs` };
}
