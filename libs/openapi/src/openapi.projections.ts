import { multiDocumentProjection, type ProjectedDoc, type Projection, type Recorded } from '#read-store/projections/projection';
import type { LegacyProcessingState, OpenapiErrorCode, OpenapiProcessingState, OpenapiSpecEvent } from './openapi.events';

export const OPENAPI_SPECS = 'openapi_specs';
export const OPENAPI_VERSIONS = 'openapi_versions';

export interface OpenapiSpecDoc extends ProjectedDoc {
  organizationId: string;
  slug: string;
  /** The URL of a `{ url }` source; null for a `{ text }` source. */
  sourceURL: string | null;
  /** A legacy value in read models built before the platform's values and not rebuilt since (MongoDB): read through platformProcessingState. */
  processingState: OpenapiProcessingState | LegacyProcessingState;
  lastVersion: string | null;
  lastProcessedAt: string | null;
  lastProcessErrorCode: OpenapiErrorCode | null;
  lastProcessErrorMessage: string | null;
  /** Versions so far: the next one's `sequence`. */
  versions: number;
  createdAt: string;
  updatedAt: string;
  /** Revision of the `openapi-<id>` stream: the ETag. */
  streamRevision: number;
  deleted?: true;
}

export interface OpenapiVersionDoc extends ProjectedDoc {
  specId: string;
  organizationId: string;
  /** 1, 2, …: the order of the spec's versions (lists are newest first). */
  sequence: number;
  rawHash: string;
  rawSize: number;
  documentHash: string;
  contentType: string;
  sourceURL: string | null;
  createdAt: string;
}

/** The specs' read model: one document per spec, one per version. Version 1: `processingState` in the platform's values. */
export const openapiProjection = withVersion(
  1,
  multiDocumentProjection<OpenapiSpecEvent>({
    name: 'openapi',
    collections: [OPENAPI_SPECS, OPENAPI_VERSIONS],
    indexes: [
      { collection: OPENAPI_SPECS, fields: { organizationId: 1, slug: 1 } },
      { collection: OPENAPI_VERSIONS, fields: { specId: 1, sequence: -1 } },
    ],
    handles: [
      'OpenAPISpecCreated',
      'OpenAPISpecSourceUpdated',
      'OpenAPISpecProcessingStarted',
      'OpenAPISpecVersionCreated',
      'OpenAPISpecProcessed',
      'OpenAPISpecProcessingFailed',
      'OpenAPISpecDeleted',
    ],
    guard: (event) => ({ collection: OPENAPI_SPECS, id: event.data.specId }),
    async apply(event: Recorded<OpenapiSpecEvent>, documents) {
      const specs = documents.collection<OpenapiSpecDoc>(OPENAPI_SPECS);
      if (event.type === 'OpenAPISpecCreated') {
        const { specId, organizationId, slug, source, createdAt } = event.data;
        await specs.put({
          _id: specId,
          organizationId,
          slug,
          sourceURL: source.kind === 'url' ? source.url : null,
          processingState: 'pending',
          lastVersion: null,
          lastProcessedAt: null,
          lastProcessErrorCode: null,
          lastProcessErrorMessage: null,
          versions: 0,
          createdAt,
          updatedAt: createdAt,
          streamRevision: event.revision,
        });
        return;
      }
      const spec = await specs.get(event.data.specId);
      if (!spec) return;
      let next: OpenapiSpecDoc = { ...spec, streamRevision: event.revision };
      switch (event.type) {
        case 'OpenAPISpecSourceUpdated':
          next = {
            ...next,
            sourceURL: event.data.source.kind === 'url' ? event.data.source.url : null,
            processingState: 'pending',
            updatedAt: event.data.updatedAt,
          };
          break;
        case 'OpenAPISpecProcessingStarted':
          next = { ...next, processingState: 'progress' };
          break;
        case 'OpenAPISpecVersionCreated': {
          const { versionId, specId, organizationId, rawHash, rawSize, documentHash, contentType, sourceURL, createdAt } = event.data;
          next = { ...next, versions: next.versions + 1 };
          await documents.collection<OpenapiVersionDoc>(OPENAPI_VERSIONS).put({
            _id: versionId,
            specId,
            organizationId,
            sequence: next.versions,
            rawHash,
            rawSize,
            documentHash,
            contentType,
            sourceURL,
            createdAt,
          });
          break;
        }
        case 'OpenAPISpecProcessed':
          next = {
            ...next,
            processingState: 'complete',
            lastVersion: event.data.versionId,
            lastProcessedAt: event.data.processedAt,
            lastProcessErrorCode: null,
            lastProcessErrorMessage: null,
            updatedAt: event.data.processedAt,
          };
          break;
        case 'OpenAPISpecProcessingFailed':
          next = {
            ...next,
            processingState: 'complete',
            lastProcessedAt: event.data.failedAt,
            lastProcessErrorCode: event.data.errorCode,
            lastProcessErrorMessage: event.data.message,
            updatedAt: event.data.failedAt,
          };
          break;
        case 'OpenAPISpecDeleted':
          next = { ...next, deleted: true, updatedAt: event.data.deletedAt };
          break;
      }
      await specs.put(next);
    },
  }),
);

/** The projection, rebuilt from the log when `version` changes (multiDocumentProjection takes no version). */
function withVersion(version: number, projection: Projection): Projection {
  return { ...projection, version };
}
