import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import type { OpenapiErrorCode, OpenapiSlugEvent, OpenapiSource, OpenapiSpecEvent } from './openapi.events';

/** Where the latest source's processing is (the decider's own: the API shows an ended one as `complete`). */
type ProcessingStage = 'pending' | 'progress' | 'completed' | 'failed';

export const openapiSpecStream = (specId: string) => `openapi-${specId}`;
export const openapiSlugsStream = (organizationId: string) => `openapislugs-${organizationId}`;

export interface OpenapiSpecState {
  spec: null | {
    organizationId: string;
    slug: string;
    deleted: boolean;
    source: OpenapiSource;
    /** The number of sources given so far: processing is about the latest one only. */
    generation: number;
    /** The processing state of the latest generation. */
    processing: ProcessingStage;
    /** How many times processing of the latest generation was started. */
    attempts: number;
    latest: null | { versionId: string; documentHash: string };
  };
}

/**
 * Processing of one source is started at most this many times. A start that finds the previous one
 * unfinished (`progress`) means that run never ended: the service stopped or crashed while it ran,
 * or the reaction failed half-way. It is retried once; the start after that records the source
 * failed (PROCESSING_INTERRUPTED) instead, so a source that kills the service cannot make every
 * restart run it again.
 */
export const MAX_PROCESSING_ATTEMPTS = 2;

/** What one processing run produced: a parsed document (stored as blobs), or why it failed. */
export type ProcessingOutcome =
  | { ok: true; versionId: string; rawHash: string; rawSize: number; documentHash: string; contentType: string; sourceURL: string | null }
  | { ok: false; errorCode: OpenapiErrorCode; message: string };

interface Acting {
  specId: string;
  /** The organization the request names: a spec of another organization is not found. */
  organizationId: string;
  now: string;
}

export type OpenapiSpecCommand =
  /** `allowed`: the caller may create specs in the organization (`permissions.createOpenAPISpec`). */
  | (Acting & { kind: 'CreateSpec'; slug: string; source: OpenapiSource; by: string; allowed: boolean })
  | (Acting & { kind: 'UpdateSpecSource'; source: OpenapiSource; by: string; allowed: boolean })
  | (Acting & { kind: 'DeleteSpec'; by: string; allowed: boolean })
  /**
   * Issued by the processing reactor: nothing for a generation that is not the latest or whose
   * processing ended; another attempt when the last one never finished, up to MAX_PROCESSING_ATTEMPTS.
   */
  | (Acting & { kind: 'StartProcessing'; generation: number })
  | (Acting & { kind: 'FinishProcessing'; generation: number; outcome: ProcessingOutcome });

type Spec = NonNullable<OpenapiSpecState['spec']>;

function live(state: OpenapiSpecState, command: Acting): Spec {
  const spec = state.spec;
  if (!spec || spec.deleted || spec.organizationId !== command.organizationId)
    throw DomainError.notFound(`no OpenAPI spec ${command.specId}`);
  return spec;
}

/** The processing reactor's commands apply to the latest generation of a live spec only, once. */
function processing(state: OpenapiSpecState, generation: number, expected: ProcessingStage[]): Spec | null {
  const spec = state.spec;
  if (!spec || spec.deleted || spec.generation !== generation || !expected.includes(spec.processing)) return null;
  return spec;
}

export const openapiSpecDecider: Decider<OpenapiSpecCommand, OpenapiSpecEvent, OpenapiSpecState> = {
  initialState: () => ({ spec: null }),
  evolve: (state, event) => {
    const spec = state.spec;
    switch (event.type) {
      case 'OpenAPISpecCreated':
        return {
          spec: {
            organizationId: event.data.organizationId,
            slug: event.data.slug,
            deleted: false,
            source: event.data.source,
            generation: event.data.generation,
            processing: 'pending',
            attempts: 0,
            latest: null,
          },
        };
      case 'OpenAPISpecSourceUpdated':
        return { spec: { ...spec!, source: event.data.source, generation: event.data.generation, processing: 'pending', attempts: 0 } };
      case 'OpenAPISpecProcessingStarted':
        return { spec: { ...spec!, processing: 'progress', attempts: spec!.attempts + 1 } };
      case 'OpenAPISpecVersionCreated':
        return { spec: { ...spec!, latest: { versionId: event.data.versionId, documentHash: event.data.documentHash } } };
      case 'OpenAPISpecProcessed':
        return { spec: { ...spec!, processing: 'completed' } };
      case 'OpenAPISpecProcessingFailed':
        return { spec: { ...spec!, processing: 'failed' } };
      case 'OpenAPISpecDeleted':
        return { spec: { ...spec!, deleted: true } };
    }
  },
  decide: (command, state) => {
    const about = { specId: command.specId, organizationId: command.organizationId };
    switch (command.kind) {
      case 'CreateSpec':
        if (!command.allowed) throw DomainError.forbidden(`you may not create OpenAPI specs in organization ${command.organizationId}`);
        if (state.spec) throw DomainError.conflict(`an OpenAPI spec with slug ${command.slug} already exists`);
        return [
          {
            type: 'OpenAPISpecCreated',
            data: { ...about, slug: command.slug, source: command.source, generation: 1, createdBy: command.by, createdAt: command.now },
          },
        ];
      case 'UpdateSpecSource': {
        const spec = live(state, command);
        if (!command.allowed) throw DomainError.forbidden(`you may not change the OpenAPI spec ${spec.slug}`);
        return [
          {
            type: 'OpenAPISpecSourceUpdated',
            data: {
              ...about,
              slug: spec.slug,
              source: command.source,
              generation: spec.generation + 1,
              updatedBy: command.by,
              updatedAt: command.now,
            },
          },
        ];
      }
      case 'DeleteSpec': {
        if (state.spec?.deleted && state.spec.organizationId === command.organizationId) return [];
        const spec = live(state, command);
        if (!command.allowed) throw DomainError.forbidden(`you may not delete the OpenAPI spec ${spec.slug}`);
        return [{ type: 'OpenAPISpecDeleted', data: { ...about, slug: spec.slug, deletedBy: command.by, deletedAt: command.now } }];
      }
      case 'StartProcessing': {
        const spec = processing(state, command.generation, ['pending', 'progress']);
        if (!spec) return [];
        const { generation } = command;
        if (spec.attempts >= MAX_PROCESSING_ATTEMPTS) {
          const message = `processing was interrupted: it was started ${spec.attempts} times and never finished (the service stopped or failed while processing this source), so it is not started again; give the source again to retry`;
          return [
            {
              type: 'OpenAPISpecProcessingFailed',
              data: { ...about, generation, errorCode: 'PROCESSING_INTERRUPTED', message, failedAt: command.now },
            },
          ];
        }
        return [{ type: 'OpenAPISpecProcessingStarted', data: { ...about, generation, startedAt: command.now } }];
      }
      case 'FinishProcessing': {
        const spec = processing(state, command.generation, ['pending', 'progress']);
        if (!spec) return [];
        const { outcome, generation } = command;
        if (!outcome.ok)
          return [
            {
              type: 'OpenAPISpecProcessingFailed',
              data: { ...about, generation, errorCode: outcome.errorCode, message: outcome.message, failedAt: command.now },
            },
          ];
        // Same content as the latest version: that version again, no new one.
        if (spec.latest?.documentHash === outcome.documentHash)
          return [
            { type: 'OpenAPISpecProcessed', data: { ...about, generation, versionId: spec.latest.versionId, processedAt: command.now } },
          ];
        const { ok: _ok, ...version } = outcome;
        return [
          { type: 'OpenAPISpecVersionCreated', data: { ...about, ...version, generation, createdAt: command.now } },
          { type: 'OpenAPISpecProcessed', data: { ...about, generation, versionId: outcome.versionId, processedAt: command.now } },
        ];
      }
    }
  },
};

export interface OpenapiSlugsState {
  /** slug → the spec holding it. */
  claims: ReadonlyMap<string, string>;
}

export type OpenapiSlugCommand =
  /** Claims the slug for `specId` unless another spec holds it; the state then says who holds it. `allowed`: the caller may create specs. */
  | { kind: 'ClaimSlug'; organizationId: string; slug: string; specId: string; allowed: boolean }
  /** Releases the slug if `specId` holds it (a deleted spec's). */
  | { kind: 'ReleaseSlug'; organizationId: string; slug: string; specId: string };

export const openapiSlugsDecider: Decider<OpenapiSlugCommand, OpenapiSlugEvent, OpenapiSlugsState> = {
  initialState: () => ({ claims: new Map() }),
  evolve: (state, event) => {
    const claims = new Map(state.claims);
    if (event.type === 'OpenAPISpecSlugClaimed') claims.set(event.data.slug, event.data.specId);
    else if (claims.get(event.data.slug) === event.data.specId) claims.delete(event.data.slug);
    return { claims };
  },
  decide: (command, state) => {
    const holder = state.claims.get(command.slug);
    const data = { organizationId: command.organizationId, slug: command.slug, specId: command.specId };
    if (command.kind === 'ClaimSlug') {
      if (!command.allowed)
        throw DomainError.forbidden(`you may not create or change OpenAPI specs in organization ${command.organizationId}`);
      return holder === undefined ? [{ type: 'OpenAPISpecSlugClaimed', data }] : [];
    }
    return holder === command.specId ? [{ type: 'OpenAPISpecSlugReleased', data }] : [];
  },
};
