import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { UNTRUSTED_WORK, WorkBudgetExceeded, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { DecidingHandler } from '#runtime/command-handler';
import { openapiSpecDecider, openapiSpecStream, type ProcessingOutcome } from './openapi.decider';
import type { OpenapiSource } from './openapi.events';
import { fetchDocument, ProcessingFailure } from './openapi.fetch';
import type { ParseLimits } from './openapi.parse';
import { PARSE_SPEC, type ParseSpecResult } from './openapi.work';

/** Documents a spec's `$ref`s may name, at most. */
const MAX_EXTERNAL_DOCUMENTS = 20;
/** While the pool's queue is full (other work waits), the source waits this long between tries, this many times, before the reaction fails (and is retried). */
const QUEUE_WAIT_MS = 2000;
const QUEUE_TRIES = 15;

export interface ProcessingDeps {
  blobs: Pick<BlobStore, 'put' | 'read'>;
  limits: Omit<ParseLimits, 'lookup'>;
  newId: () => string;
  /** The untrusted-work pool: parsing and validating run there. */
  work: UntrustedWork;
  /** Time budget of parsing and validating one source, external `$ref`s fetched included (OPENAPI_PROCESSING_TIME_MS). */
  timeMs: number;
  /** Waits between tries while the pool's queue is full (tests wait less). */
  queueWaitMs?: number;
}

/**
 * One processing run of a source: the bytes (fetched for a URL, read from the blob store for a
 * text), parsed and validated in the untrusted-work pool within the time budget, then the raw bytes
 * and the parsed document (JSON) stored as blobs. A refused, failed, invalid or too costly source
 * (over the time budget or a worker thread's memory: PROCESSING_BUDGET_EXCEEDED) is a failed
 * outcome with its code; anything else (the blob store down, the pool's queue full for long) throws,
 * so that the reactor retries.
 */
export async function processSource(source: OpenapiSource, deps: ProcessingDeps): Promise<ProcessingOutcome> {
  try {
    let bytes: Buffer;
    let url: string | null = null;
    let contentType = 'application/octet-stream';
    if (source.kind === 'url') {
      const fetched = await fetchDocument(source.url, deps.limits);
      ({ bytes, url, contentType } = fetched);
    } else {
      bytes = await deps.blobs.read(source.hash);
      if (bytes.length > deps.limits.maxBytes)
        throw new ProcessingFailure('DOCUMENT_TOO_LARGE', `the spec is larger than ${deps.limits.maxBytes} bytes`);
      contentType = bytes.toString('utf8', 0, 64).trimStart().startsWith('{') ? 'application/json' : 'application/yaml';
    }
    const parsed = await parseInPool(bytes, url, deps);
    if (!parsed.ok) return parsed;
    const raw = await deps.blobs.put(bytes);
    const document = await deps.blobs.put(Buffer.from(parsed.json.buffer, parsed.json.byteOffset, parsed.json.byteLength));
    return {
      ok: true,
      versionId: deps.newId(),
      rawHash: raw.hash,
      rawSize: raw.size,
      documentHash: document.hash,
      contentType: contentType.slice(0, 200) || 'application/octet-stream',
      sourceURL: url,
    };
  } catch (error) {
    if (error instanceof ProcessingFailure) return { ok: false, errorCode: error.code, message: error.message };
    throw error;
  }
}

/** The spec parsed and validated on a worker thread; over the time or memory budget, a failed outcome. */
async function parseInPool(bytes: Buffer, baseUrl: string | null, deps: ProcessingDeps): Promise<ParseSpecResult> {
  for (let tries = 1; ; tries++) {
    try {
      return await deps.work.run(PARSE_SPEC, { bytes, baseUrl, limits: deps.limits }, { timeMs: deps.timeMs });
    } catch (error) {
      if (!(error instanceof WorkBudgetExceeded)) throw error;
      // A full queue is other work's doing, not this source's: wait for a place.
      if (error.kind === 'queue') {
        if (tries >= QUEUE_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, deps.queueWaitMs ?? QUEUE_WAIT_MS));
        continue;
      }
      return { ok: false, errorCode: 'PROCESSING_BUDGET_EXCEEDED', message: error.message };
    }
  }
}

/**
 * The processing reactor's command: for the generation (the source) that an event named, if it is
 * still the spec's latest and not processed yet, appends processing started, processes the source
 * and appends the outcome (a version when the content is new, then processed; or failed). Each
 * decision is idempotent, so a replay after the end appends nothing. A start that finds the last
 * one unfinished (the service stopped or crashed while processing, or the reaction failed
 * half-way) is a second attempt; after two, the decider records the source failed
 * (PROCESSING_INTERRUPTED) rather than start it again: a source that brings the service down
 * cannot do it at every start. Stamped with the reactor's caller, without a permission check.
 */
export class ProcessOpenapiSource extends Command<void> {
  constructor(
    readonly specId: string,
    readonly organizationId: string,
    readonly generation: number,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ProcessOpenapiSource)
export class ProcessOpenapiSourceHandler extends DecidingHandler {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UNTRUSTED_WORK) private readonly work: UntrustedWork,
  ) {
    super();
  }

  async execute({ specId, organizationId, generation, caller }: ProcessOpenapiSource): Promise<void> {
    const stream = openapiSpecStream(specId);
    const { state } = await this.load(stream, openapiSpecDecider);
    const spec = state.spec;
    if (!spec || spec.deleted || spec.generation !== generation || (spec.processing !== 'pending' && spec.processing !== 'progress'))
      return;
    const started = await this.decide(
      stream,
      openapiSpecDecider,
      { kind: 'StartProcessing', specId, organizationId, generation, now: this.now() },
      { caller },
    );
    // Not started: a newer source, a deletion, or too many attempts already (recorded failed).
    if (started.state.spec?.processing !== 'progress' || started.state.spec.generation !== generation) return;
    const outcome = await processSource(spec.source, {
      blobs: this.blobs,
      limits: this.limits(),
      newId: () => newId(),
      work: this.work,
      timeMs: this.config.openapiProcessingTimeMs,
    });
    await this.decide(
      stream,
      openapiSpecDecider,
      { kind: 'FinishProcessing', specId, organizationId, generation, outcome, now: this.now() },
      { caller },
    );
  }

  private limits(): ProcessingDeps['limits'] {
    const { openapiAllowPrivateNetworks, openapiFetchTimeoutMs, openapiMaxBytes, openapiMaxRedirects } = this.config;
    return {
      allowPrivateNetworks: openapiAllowPrivateNetworks,
      timeMs: openapiFetchTimeoutMs,
      maxBytes: openapiMaxBytes,
      maxRedirects: openapiMaxRedirects,
      maxExternalDocuments: MAX_EXTERNAL_DOCUMENTS,
    };
  }
}
