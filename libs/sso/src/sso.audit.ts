import { auditCatalog, type AuditEntry } from '#platform/audit-catalog';
import type { SamlIdentityEvent, SamlProviderEvent, SamlRefusalEvent } from './saml-provider.events';
import type { VerifiedDomainEvent } from './verified-domain.events';

type SsoEvent = SamlProviderEvent | SamlIdentityEvent | SamlRefusalEvent | VerifiedDomainEvent;

/**
 * How single sign-on events read in the audit log. Successful logins (issued requests, consumed
 * assertions) are activity, not changes: they stay out; the member a first login adds shows as the
 * organizations context's `member.added`, and a NameID bound to a user as `saml_identity.bound`.
 * Refused logins are in: an organization's admins see every attempt of its providers to sign in
 * someone they may not (the reason, NameID hash and e-mail domain stay in the event).
 */
export const ssoAuditCatalog = auditCatalog<SsoEvent>({
  SamlProviderCreated: (data) => provider('saml_provider.created', data, data.label),
  SamlProviderUpdated: (data) => provider('saml_provider.updated', data, data.changes.label),
  SamlProviderDeleted: (data) => provider('saml_provider.deleted', data),
  SamlLoginRefused: (data) => provider('saml_login.refused', data),
  SamlIdentityBound: (data) => ({
    action: 'saml_identity.bound',
    organizationId: data.organizationId,
    target: { type: 'member', id: data.userId },
  }),
  VerifiedDomainAdded: (data) => verifiedDomain('verified_domain.added', data),
  VerifiedDomainConfirmed: (data) => verifiedDomain('verified_domain.verified', data),
  VerifiedDomainRemoved: (data) => verifiedDomain('verified_domain.removed', data),
});

function provider(action: string, data: { organizationId: string; providerId: string }, label?: string): AuditEntry {
  return {
    action,
    organizationId: data.organizationId,
    target: { type: 'saml-provider', id: data.providerId, ...(label ? { label } : {}) },
  };
}

function verifiedDomain(action: string, data: { organizationId: string; domain: string }): AuditEntry {
  return { action, organizationId: data.organizationId, target: { type: 'verified-domain', id: data.domain, label: data.domain } };
}
