import { inStream, projectionSpec } from '#testing';
import type { OpenapiSpecEvent } from './openapi.events';
import { OPENAPI_SPECS, OPENAPI_VERSIONS, openapiProjection } from './openapi.projections';

const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-02T00:00:00.000Z';
const spec = projectionSpec(openapiProjection);
const about = { specId: 'sp1', organizationId: 'o1' };
const source = { kind: 'url' as const, url: 'https://example.com/openapi.json' };
const version = (versionId: string, generation: number): OpenapiSpecEvent => ({
  type: 'OpenAPISpecVersionCreated',
  data: {
    ...about,
    versionId,
    generation,
    rawHash: `raw-${versionId}`,
    rawSize: 10,
    documentHash: `doc-${versionId}`,
    contentType: 'application/json',
    sourceURL: source.url,
    createdAt: t1,
  },
});
const processedAs = (versionId: string, generation: number): OpenapiSpecEvent => ({
  type: 'OpenAPISpecProcessed',
  data: { ...about, generation, versionId, processedAt: t1 },
});
const created: OpenapiSpecEvent = {
  type: 'OpenAPISpecCreated',
  data: { ...about, slug: 'pets', source, generation: 1, createdBy: 'ada', createdAt: t0 },
};

describe('OpenAPI projection', () => {
  it('given a spec processed twice into two versions, then its document names the latest and the versions are numbered', async () => {
    await spec
      .given(
        inStream('openapi-sp1', [
          created,
          { type: 'OpenAPISpecProcessingStarted', data: { ...about, generation: 1, startedAt: t0 } },
          version('v1', 1),
          processedAs('v1', 1),
          { type: 'OpenAPISpecSourceUpdated', data: { ...about, slug: 'pets', source, generation: 2, updatedBy: 'ada', updatedAt: t1 } },
          version('v2', 2),
          processedAs('v2', 2),
        ]),
      )
      .then({
        [OPENAPI_SPECS]: [
          expect.objectContaining({
            _id: 'sp1',
            slug: 'pets',
            sourceURL: source.url,
            processingState: 'complete',
            lastVersion: 'v2',
            lastProcessedAt: t1,
            versions: 2,
            streamRevision: 6,
          }),
        ],
        [OPENAPI_VERSIONS]: [
          expect.objectContaining({ _id: 'v1', sequence: 1, specId: 'sp1' }),
          expect.objectContaining({ _id: 'v2', sequence: 2, specId: 'sp1' }),
        ],
      });
  });

  it('given a failed processing after a version, then the spec is complete with its code and keeps its last version', async () => {
    await spec
      .given(
        inStream('openapi-sp1', [
          created,
          version('v1', 1),
          processedAs('v1', 1),
          {
            type: 'OpenAPISpecProcessingFailed',
            data: { ...about, generation: 2, errorCode: 'FETCH_TIMEOUT', message: 'timed out', failedAt: t1 },
          },
        ]),
      )
      .then({
        [OPENAPI_SPECS]: [
          expect.objectContaining({
            processingState: 'complete',
            lastVersion: 'v1',
            lastProcessErrorCode: 'FETCH_TIMEOUT',
            lastProcessErrorMessage: 'timed out',
          }),
        ],
        [OPENAPI_VERSIONS]: [expect.objectContaining({ _id: 'v1' })],
      });
  });

  it('given a deleted spec, then its document is a tombstone', async () => {
    await spec
      .given(
        inStream('openapi-sp1', [
          created,
          { type: 'OpenAPISpecDeleted', data: { ...about, slug: 'pets', deletedBy: 'ada', deletedAt: t1 } },
        ]),
      )
      .then({ [OPENAPI_SPECS]: [expect.objectContaining({ _id: 'sp1', deleted: true })], [OPENAPI_VERSIONS]: [] });
  });
});
