import type { AuditCatalog } from '../../platform/src/audit-catalog';
import type { SamlProviderEvent } from './saml-provider.events';

type Data<T extends SamlProviderEvent['type']> = Extract<SamlProviderEvent, { type: T }>['data'];

/**
 * How single sign-on events read in the audit log. Logins themselves (issued requests, consumed
 * assertions) are activity, not changes: they stay out; the member a first login adds shows as the
 * organizations context's `member.added`.
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
};
