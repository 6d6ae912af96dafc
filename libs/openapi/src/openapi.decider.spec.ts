import { deciderSpec } from '#testing';
import { openapiSlugsDecider, openapiSlugsStream, openapiSpecDecider, type ProcessingOutcome } from './openapi.decider';
import type { OpenapiSlugEvent, OpenapiSpecEvent } from './openapi.events';

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
const started = (generation: number): OpenapiSpecEvent => ({
  type: 'OpenAPISpecProcessingStarted',
  data: { ...about, generation, startedAt: t0 },
});
const updated = (generation: number): OpenapiSpecEvent => ({
  type: 'OpenAPISpecSourceUpdated',
  data: { ...about, slug: 'pets', source, generation, updatedBy: 'ada', updatedAt: t0 },
});
const parsed = (versionId: string, documentHash: string): Extract<ProcessingOutcome, { ok: true }> => ({
  ok: true,
  versionId,
  rawHash: `raw-${documentHash}`,
  rawSize: 10,
  documentHash,
  contentType: 'application/json',
  sourceURL: source.url,
});
const versionCreated = (generation: number, versionId: string, documentHash: string): OpenapiSpecEvent => {
  const { ok: _ok, ...version } = parsed(versionId, documentHash);
  return { type: 'OpenAPISpecVersionCreated', data: { ...about, ...version, generation, createdAt: t0 } };
};
const processedAs = (generation: number, versionId: string): OpenapiSpecEvent => ({
  type: 'OpenAPISpecProcessed',
  data: { ...about, generation, versionId, processedAt: t0 },
});

describe('OpenAPI spec decider', () => {
  it('given nothing, when a spec is created, then it is created at generation 1', () => {
    spec
      .given([])
      .when({ kind: 'CreateSpec', ...act, slug: 'pets', source, by: 'ada', allowed: true })
      .then([created]);
  });

  it('given nothing, when someone without createOpenAPISpec creates a spec, then 403', () => {
    spec
      .given([])
      .when({ kind: 'CreateSpec', ...act, slug: 'pets', source, by: 'rita', allowed: false })
      .thenFails(403);
  });

  it('given a spec, when it is created again (its slug is taken), then 409', () => {
    spec
      .given([created])
      .when({ kind: 'CreateSpec', ...act, slug: 'pets', source, by: 'ada', allowed: true })
      .thenFails(409);
  });

  it('given a spec, when its source is updated, then the next generation', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateSpecSource', ...act, source, by: 'ada', allowed: true })
      .then([updated(2)]);
  });

  it('given a spec of another organization, when updated through this one, then 404', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateSpecSource', ...act, organizationId: 'o2', source, by: 'ada', allowed: true })
      .thenFails(404);
  });

  it('given a pending generation, when processing starts, then processing started', () => {
    spec
      .given([created])
      .when({ kind: 'StartProcessing', ...act, generation: 1 })
      .then([started(1)]);
  });

  it('given processing started and never finished (the service stopped meanwhile), when it starts again, then a second attempt', () => {
    spec
      .given([created, started(1)])
      .when({ kind: 'StartProcessing', ...act, generation: 1 })
      .then([started(1)]);
  });

  it('given two attempts that never finished, when processing starts a third time, then failed with PROCESSING_INTERRUPTED instead of a third run', () => {
    spec
      .given([created, started(1), started(1)])
      .when({ kind: 'StartProcessing', ...act, generation: 1 })
      .then([
        {
          type: 'OpenAPISpecProcessingFailed',
          data: {
            ...about,
            generation: 1,
            errorCode: 'PROCESSING_INTERRUPTED',
            message:
              'processing was interrupted: it was started 2 times and never finished (the service stopped or failed while processing this source), so it is not started again; give the source again to retry',
            failedAt: t0,
          },
        },
      ]);
  });

  it('given a source whose processing failed, when processing starts again (the reactor after a restart), then nothing', () => {
    const failed: OpenapiSpecEvent = {
      type: 'OpenAPISpecProcessingFailed',
      data: { ...about, generation: 1, errorCode: 'DOCUMENT_TOO_COMPLEX', message: 'too complex', failedAt: t0 },
    };
    spec
      .given([created, started(1), failed])
      .when({ kind: 'StartProcessing', ...act, generation: 1 })
      .thenNothing();
  });

  it('given two interrupted attempts of an older source, when the newer source starts processing, then it starts (attempts count per source)', () => {
    spec
      .given([created, started(1), started(1), updated(2)])
      .when({ kind: 'StartProcessing', ...act, generation: 2 })
      .then([started(2)]);
  });

  it('given a newer source, when processing of the older one starts or finishes, then nothing', () => {
    spec
      .given([created, updated(2)])
      .when({ kind: 'StartProcessing', ...act, generation: 1 })
      .thenNothing();
    spec
      .given([created, started(1), updated(2)])
      .when({ kind: 'FinishProcessing', ...act, generation: 1, outcome: parsed('v1', 'h1') })
      .thenNothing();
  });

  it('given processing started, when it finishes with new content, then a version and processed', () => {
    spec
      .given([created, started(1)])
      .when({ kind: 'FinishProcessing', ...act, generation: 1, outcome: parsed('v1', 'h1') })
      .then([versionCreated(1, 'v1', 'h1'), processedAs(1, 'v1')]);
  });

  it('given a version, when processing finishes with the same content, then processed with that version and no new one', () => {
    spec
      .given([created, started(1), versionCreated(1, 'v1', 'h1'), processedAs(1, 'v1'), updated(2), started(2)])
      .when({ kind: 'FinishProcessing', ...act, generation: 2, outcome: parsed('v2', 'h1') })
      .then([processedAs(2, 'v1')]);
  });

  it('given processing started, when it fails, then failed with the code and the message', () => {
    spec
      .given([created, started(1)])
      .when({ kind: 'FinishProcessing', ...act, generation: 1, outcome: { ok: false, errorCode: 'FETCH_TIMEOUT', message: 'timed out' } })
      .then([
        {
          type: 'OpenAPISpecProcessingFailed',
          data: { ...about, generation: 1, errorCode: 'FETCH_TIMEOUT', message: 'timed out', failedAt: t0 },
        },
      ]);
  });

  it('given a processed generation, when it finishes again (a replay), then nothing', () => {
    spec
      .given([created, started(1), versionCreated(1, 'v1', 'h1'), processedAs(1, 'v1')])
      .when({ kind: 'FinishProcessing', ...act, generation: 1, outcome: parsed('v9', 'h9') })
      .thenNothing();
  });

  it('given a deleted spec, when processing starts, or it is deleted again, then nothing', () => {
    const deleted: OpenapiSpecEvent = { type: 'OpenAPISpecDeleted', data: { ...about, slug: 'pets', deletedBy: 'ada', deletedAt: t0 } };
    spec
      .given([created, deleted])
      .when({ kind: 'StartProcessing', ...act, generation: 1 })
      .thenNothing();
    spec
      .given([created, deleted])
      .when({ kind: 'DeleteSpec', ...act, by: 'ada', allowed: true })
      .thenNothing();
  });
});

describe('OpenAPI slug claims decider', () => {
  const claimed = (specId: string): OpenapiSlugEvent => ({
    type: 'OpenAPISpecSlugClaimed',
    data: { organizationId: 'o1', slug: 'pets', specId },
  });

  it("given a free slug, when claimed, then it is the claimant's", () => {
    slugs
      .given([])
      .when({ kind: 'ClaimSlug', organizationId: 'o1', slug: 'pets', specId: 'a', allowed: true })
      .then([claimed('a')]);
  });

  it('given a claimed slug, when another spec claims it, then nothing (the holder stays)', () => {
    slugs
      .given([claimed('a')])
      .when({ kind: 'ClaimSlug', organizationId: 'o1', slug: 'pets', specId: 'b', allowed: true })
      .thenNothing();
  });

  it('given nothing, when someone who may not create specs claims a slug, then 403', () => {
    slugs.given([]).when({ kind: 'ClaimSlug', organizationId: 'o1', slug: 'pets', specId: 'a', allowed: false }).thenFails(403);
  });

  it('given a slug held by another spec, when a deleted spec releases it, then nothing', () => {
    slugs
      .given([claimed('a')])
      .when({ kind: 'ReleaseSlug', organizationId: 'o1', slug: 'pets', specId: 'b' })
      .thenNothing();
  });

  it('given a claimed slug, when its spec releases it, then released and free again', () => {
    slugs
      .given([claimed('a')])
      .when({ kind: 'ReleaseSlug', organizationId: 'o1', slug: 'pets', specId: 'a' })
      .then([{ type: 'OpenAPISpecSlugReleased', data: { organizationId: 'o1', slug: 'pets', specId: 'a' } }]);
  });

  // Mutation pinned: a slug stream (the claim's key) without the organization, which would make slugs unique globally.
  it('given two organizations, then each claims its slugs on a stream of its own', () => {
    expect(openapiSlugsStream('o1')).toBe('openapislugs-o1');
    expect(openapiSlugsStream('o2')).not.toBe(openapiSlugsStream('o1'));
  });

  it("given a slug claimed in one organization, when another organization claims it on its own stream, then it is that organization's", () => {
    const elsewhere = { kind: 'ClaimSlug' as const, organizationId: 'o2', slug: 'pets', specId: 'b', allowed: true };
    slugs
      .given([])
      .when(elsewhere)
      .then([{ type: 'OpenAPISpecSlugClaimed', data: { organizationId: 'o2', slug: 'pets', specId: 'b' } }]);
  });

  it('given prototype-named slugs, when claimed, then they are slugs like any other', () => {
    slugs
      .given([])
      .when({ kind: 'ClaimSlug', organizationId: 'o1', slug: 'constructor', specId: 'a', allowed: true })
      .then([{ type: 'OpenAPISpecSlugClaimed', data: { organizationId: 'o1', slug: 'constructor', specId: 'a' } }]);
  });
});
