import { auditCatalog } from '#platform/audit-catalog';
import type { OpenapiSlugEvent, OpenapiSpecEvent } from './openapi.events';

const target = (data: { specId: string }) => ({ type: 'openapi-spec', id: data.specId });

/** Every spec change is one audit entry on the spec, in its organization. */
export const openapiAuditCatalog = auditCatalog<OpenapiSpecEvent | OpenapiSlugEvent>({
  OpenAPISpecCreated: (data) => ({
    action: 'openapi_spec.created',
    organizationId: data.organizationId,
    target: target(data),
    details: { slug: data.slug, source: data.source.kind },
  }),
  OpenAPISpecSourceUpdated: (data) => ({
    action: 'openapi_spec.source_updated',
    organizationId: data.organizationId,
    target: target(data),
    details: { slug: data.slug, source: data.source.kind },
  }),
  OpenAPISpecProcessingStarted: (data) => ({
    action: 'openapi_spec.processing_started',
    organizationId: data.organizationId,
    target: target(data),
  }),
  OpenAPISpecVersionCreated: (data) => ({
    action: 'openapi_spec.version_created',
    organizationId: data.organizationId,
    target: target(data),
    details: { version: data.versionId, hash: data.rawHash },
  }),
  OpenAPISpecProcessed: (data) => ({
    action: 'openapi_spec.processed',
    organizationId: data.organizationId,
    target: target(data),
    details: { version: data.versionId },
  }),
  OpenAPISpecProcessingFailed: (data) => ({
    action: 'openapi_spec.processing_failed',
    organizationId: data.organizationId,
    target: target(data),
    details: { code: data.errorCode },
  }),
  OpenAPISpecDeleted: (data) => ({
    action: 'openapi_spec.deleted',
    organizationId: data.organizationId,
    target: target(data),
    details: { slug: data.slug },
  }),
  OpenAPISpecSlugClaimed: (data) => ({
    action: 'openapi_spec.slug_claimed',
    organizationId: data.organizationId,
    target: target(data),
    details: { slug: data.slug },
  }),
  OpenAPISpecSlugReleased: (data) => ({
    action: 'openapi_spec.slug_released',
    organizationId: data.organizationId,
    target: target(data),
    details: { slug: data.slug },
  }),
});
