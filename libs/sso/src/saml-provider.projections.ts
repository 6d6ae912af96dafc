import { documentProjection, type ProjectedDoc } from '#read-store/projections/projection';
import type { SamlProviderEvent, SamlProviderSettings } from './saml-provider.events';

export const SAML_PROVIDERS = 'saml_providers';

/** `_id` is the provider id. */
export interface SamlProviderDoc extends ProjectedDoc, SamlProviderSettings {
  organizationId: string;
  createdAt: string;
  /** Revision of the provider's stream: its ETag. */
  revision: number;
}

/**
 * SAML providers, one document each, from `samlprovider-*` streams. Writes are guarded by the
 * event's log position (documentProjection), so applying an event twice changes nothing.
 */
export const samlProviderProjection = documentProjection<SamlProviderEvent, SamlProviderDoc>({
  name: 'saml-providers',
  collection: SAML_PROVIDERS,
  handles: ['SamlProviderCreated', 'SamlProviderUpdated', 'SamlProviderDeleted'],
  indexes: [{ fields: { organizationId: 1, createdAt: 1 } }],
  documentId: (event) => event.data.providerId,
  evolve(document, event) {
    switch (event.type) {
      case 'SamlProviderCreated': {
        const { providerId, ...fields } = event.data;
        return { _id: providerId, ...fields, revision: event.revision };
      }
      case 'SamlProviderUpdated':
        return document && { ...document, ...event.data.changes, revision: event.revision };
      case 'SamlProviderDeleted':
        return null;
    }
  },
});
