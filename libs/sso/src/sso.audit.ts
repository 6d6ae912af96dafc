import type { AuditCatalog } from '../../platform/src/audit-catalog';
import type { SamlIdentityEvent, SamlProviderEvent, SamlRefusalEvent } from './saml-provider.events';
import type { VerifiedDomainEvent } from './verified-domain.events';

type SsoEvent = SamlProviderEvent | SamlIdentityEvent | SamlRefusalEvent | VerifiedDomainEvent;
type Data<T extends SsoEvent['type']> = Extract<SsoEvent, { type: T }>['data'];

/**
 * How single sign-on events read in the audit log. Successful logins (issued requests, consumed
 * assertions) are activity, not changes: they stay out; the member a first login adds shows as the
 * organizations context's `member.added`, and a NameID bound to a user as `saml_identity.bound`.
 * Refused logins are in: an organization's admins see every attempt of its providers to sign in
 * someone they may not (the reason, NameID hash and e-mail domain stay in the event).
 */
export const ssoAuditCatalog: AuditCatalog = {
  SamlProviderCreated: (event) => {
    const data = event.data as Data<'SamlProviderCreated'>;
    return { action: 'saml_provider.created', organizationId: data.organizationId, target: { type: 'saml-provider', id: data.providerId, label: data.label } };
  },
  SamlProviderUpdated: (event) => {
    const data = event.data as Data<'SamlProviderUpdated'>;
    return {
      action: 'saml_provider.updated',
      organizationId: data.organizationId,
      target: { type: 'saml-provider', id: data.providerId, ...(data.changes.label ? { label: data.changes.label } : {}) },
    };
  },
  SamlProviderDeleted: (event) => {
    const data = event.data as Data<'SamlProviderDeleted'>;
    return { action: 'saml_provider.deleted', organizationId: data.organizationId, target: { type: 'saml-provider', id: data.providerId } };
  },
  SamlLoginRefused: (event) => {
    const data = event.data as Data<'SamlLoginRefused'>;
    return { action: 'saml_login.refused', organizationId: data.organizationId, target: { type: 'saml-provider', id: data.providerId } };
  },
  SamlIdentityBound: (event) => {
    const data = event.data as Data<'SamlIdentityBound'>;
    return { action: 'saml_identity.bound', organizationId: data.organizationId, target: { type: 'member', id: data.userId } };
  },
  VerifiedDomainAdded: (event) => verifiedDomain('verified_domain.added', event.data as Data<'VerifiedDomainAdded'>),
  VerifiedDomainConfirmed: (event) => verifiedDomain('verified_domain.verified', event.data as Data<'VerifiedDomainConfirmed'>),
  VerifiedDomainRemoved: (event) => verifiedDomain('verified_domain.removed', event.data as Data<'VerifiedDomainRemoved'>),
};

function verifiedDomain(action: string, data: { organizationId: string; domain: string }) {
  return { action, organizationId: data.organizationId, target: { type: 'verified-domain', id: data.domain, label: data.domain } };
}
