import { deciderSpec } from '#testing';
import { openapiSlugsDecider, openapiSpecDecider, openapiSpecStream, type ProcessingOutcome } from './openapi.decider';
import type { OpenapiSlugEvent, OpenapiSpecEvent } from './openapi.events';

/**
 * The OpenAPI spec rules one at a time (those mutation testing showed no spec held): deleting a
 * live spec, updating a failed one, finishing a pending one, the wording of refusals, and what a
 * released slug leaves.
 */
const t0 = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(openapiSpecDecider);
const slugs = deciderSpec(openapiSlugsDecider);
const about = { specId: 'spec1', organizationId: 'o1' };
const act = { ...about, now: t0 };
const source = { kind: 'url' as const, url: 'https://example.com/openapi.json' };
const created: OpenapiSpecEvent = {
  type: 'OpenAPISpecCreated',
  data: { ...about, slug: 'pets', source, generation: 1, createdBy: 'ada', createdAt: t0 },
};
const started: OpenapiSpecEvent = { type: 'OpenAPISpecProcessingStarted', data: { ...about, generation: 1, startedAt: t0 } };
const failed: OpenapiSpecEvent = {
  type: 'OpenAPISpecProcessingFailed',
  data: { ...about, generation: 1, errorCode: 'FETCH_TIMEOUT', message: 'timed out', failedAt: t0 },
};
const deleted: OpenapiSpecEvent = { type: 'OpenAPISpecDeleted', data: { ...about, slug: 'pets', deletedBy: 'ada', deletedAt: t0 } };
const parsed: Extract<ProcessingOutcome, { ok: true }> = {
  ok: true,
  versionId: 'v1',
  rawHash: 'raw-h1',
  rawSize: 10,
  documentHash: 'h1',
  contentType: 'application/json',
  sourceURL: source.url,
};

describe('OpenAPI spec decider: rules one by one', () => {
  it('a spec’s stream is openapi-<id>', () => {
    expect(openapiSpecStream('spec1')).toBe('openapi-spec1');
  });

  describe('deleting', () => {
    it('given a spec, when someone who may deletes it, then OpenAPISpecDeleted', () => {
      spec
        .given([created])
        .when({ kind: 'DeleteSpec', ...act, by: 'ada', allowed: true })
        .then([deleted]);
    });

    it('given a spec, when someone who may not deletes it, then 403 naming the spec', () => {
      spec
        .given([created])
        .when({ kind: 'DeleteSpec', ...act, by: 'rita', allowed: false })
        .thenFails(403, 'you may not delete the OpenAPI spec pets');
    });

    it('given no spec, when it is deleted, then 404 naming it', () => {
      spec
        .given([])
        .when({ kind: 'DeleteSpec', ...act, by: 'ada', allowed: true })
        .thenFails(404, 'no OpenAPI spec spec1');
    });

    it('given a deleted spec, when deleted again through another organization, then 404', () => {
      spec
        .given([created, deleted])
        .when({ kind: 'DeleteSpec', ...act, organizationId: 'o2', by: 'ada', allowed: true })
        .thenFails(404);
    });
  });

  describe('updating the source', () => {
    it('given no spec, when its source is updated, then 404', () => {
      spec
        .given([])
        .when({ kind: 'UpdateSpecSource', ...act, source, by: 'ada', allowed: true })
        .thenFails(404, 'no OpenAPI spec spec1');
    });

    it('given a deleted spec, when its source is updated, then 404', () => {
      spec
        .given([created, deleted])
        .when({ kind: 'UpdateSpecSource', ...act, source, by: 'ada', allowed: true })
        .thenFails(404);
    });

    it('given a spec, when someone who may not updates its source, then 403 naming it', () => {
      spec
        .given([created])
        .when({ kind: 'UpdateSpecSource', ...act, source, by: 'rita', allowed: false })
        .thenFails(403, 'you may not change the OpenAPI spec pets');
    });

    it('given a spec whose processing failed, when its source is updated, then the next generation (a failure leaves the spec live)', () => {
      spec
        .given([created, started, failed])
        .when({ kind: 'UpdateSpecSource', ...act, source, by: 'ada', allowed: true })
        .then([
          { type: 'OpenAPISpecSourceUpdated', data: { ...about, slug: 'pets', source, generation: 2, updatedBy: 'ada', updatedAt: t0 } },
        ]);
    });
  });

  describe('creating', () => {
    it('given nothing, when someone who may not creates a spec, then 403 naming the organization', () => {
      spec
        .given([])
        .when({ kind: 'CreateSpec', ...act, slug: 'pets', source, by: 'rita', allowed: false })
        .thenFails(403, 'you may not create OpenAPI specs in organization o1');
    });

    it('given a spec, when created again, then 409 naming the slug', () => {
      spec
        .given([created])
        .when({ kind: 'CreateSpec', ...act, slug: 'pets', source, by: 'ada', allowed: true })
        .thenFails(409, 'an OpenAPI spec with slug pets already exists');
    });
  });

  describe('processing', () => {
    it('given a pending generation (never started), when processing finishes, then a version and processed', () => {
      spec
        .given([created])
        .when({ kind: 'FinishProcessing', ...act, generation: 1, outcome: parsed })
        .then([
          {
            type: 'OpenAPISpecVersionCreated',
            data: {
              ...about,
              versionId: 'v1',
              rawHash: 'raw-h1',
              rawSize: 10,
              documentHash: 'h1',
              contentType: 'application/json',
              sourceURL: source.url,
              generation: 1,
              createdAt: t0,
            },
          },
          { type: 'OpenAPISpecProcessed', data: { ...about, generation: 1, versionId: 'v1', processedAt: t0 } },
        ]);
    });
  });
});

describe('OpenAPI slug claims decider: rules one by one', () => {
  const claimed = (specId: string): OpenapiSlugEvent => ({
    type: 'OpenAPISpecSlugClaimed',
    data: { organizationId: 'o1', slug: 'pets', specId },
  });
  const released = (specId: string): OpenapiSlugEvent => ({
    type: 'OpenAPISpecSlugReleased',
    data: { organizationId: 'o1', slug: 'pets', specId },
  });
  const claim = (specId: string) => ({ kind: 'ClaimSlug' as const, organizationId: 'o1', slug: 'pets', specId, allowed: true });

  it('given a slug claimed and released by its spec, when another spec claims it, then it is theirs', () => {
    slugs
      .given([claimed('a'), released('a')])
      .when(claim('b'))
      .then([claimed('b')]);
  });

  it('given a slug whose release names another spec than its holder, when a third claims it, then nothing (the holder keeps it)', () => {
    slugs
      .given([claimed('a'), released('b')])
      .when(claim('c'))
      .thenNothing();
  });

  it('given nothing, when someone who may not claims a slug, then 403 naming the organization', () => {
    slugs
      .given([])
      .when({ ...claim('a'), allowed: false })
      .thenFails(403, 'you may not create or change OpenAPI specs in organization o1');
  });
});
