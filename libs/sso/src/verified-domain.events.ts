/** How a domain was verified: its TXT record found in DNS, or the service administrator's word. */
export type DomainVerificationMethod = 'dns-txt' | 'admin';

/**
 * `verifieddomains-<organizationId>`: the e-mail domains an organization claims, and which of them
 * it proved it controls. A SAML login may create accounts, and sign in existing ones, only for
 * addresses in a verified domain of the provider's organization.
 */
export type VerifiedDomainEvent =
  | { type: 'VerifiedDomainAdded'; data: { organizationId: string; domain: string; token: string; addedAt: string } }
  | {
      type: 'VerifiedDomainConfirmed';
      data: { organizationId: string; domain: string; method: DomainVerificationMethod; verifiedAt: string };
    }
  | { type: 'VerifiedDomainRemoved'; data: { organizationId: string; domain: string } };
