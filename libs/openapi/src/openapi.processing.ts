import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { openapiSpecDecider, openapiSpecStream, type ProcessingOutcome } from './openapi.decider';
import type { OpenapiSource } from './openapi.events';
import { fetchDocument, ProcessingFailure } from './openapi.fetch';
import { parseSpec, type ParseLimits } from './openapi.parse';

/** Documents a spec's `$ref`s may name, at most. */
const MAX_EXTERNAL_DOCUMENTS = 20;

export interface ProcessingDeps {
  blobs: Pick<BlobStore, 'put' | 'read'>;
  limits: ParseLimits;
  newId: () => string;
}

/**
 * One processing run of a source: the bytes (fetched for a URL, read from the blob store for a
 * text), parsed and validated, then the raw bytes and the parsed document (JSON) stored as blobs.
 * A refused, failed or invalid source is a failed outcome with its code; anything else (the blob
 * store down) throws, so that the reactor retries.
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
      if (bytes.length > deps.limits.maxBytes) throw new ProcessingFailure('DOCUMENT_TOO_LARGE', `the spec is larger than ${deps.limits.maxBytes} bytes`);
      contentType = bytes.toString('utf8', 0, 64).trimStart().startsWith('{') ? 'application/json' : 'application/yaml';
    }
    const parsed = await parseSpec(bytes, url, deps.limits);
    const raw = await deps.blobs.put(bytes);
    const document = await deps.blobs.put(Buffer.from(JSON.stringify(parsed.document), 'utf8'));
    return { ok: true, versionId: deps.newId(), rawHash: raw.hash, rawSize: raw.size, documentHash: document.hash, contentType: contentType.slice(0, 200) || 'application/octet-stream', sourceURL: url };
  } catch (error) {
    if (error instanceof ProcessingFailure) return { ok: false, errorCode: error.code, message: error.message };
    throw error;
  }
}

/**
 * Runs processing for the processing reactor: for the generation (the source) that an event named,
 * if it is still the spec's latest and not processed yet, appends processing started, processes the
 * source and appends the outcome (a version when the content is new, then processed; or failed).
 * Each command is idempotent, so a replay or a restart half-way does the remaining steps only.
 */
@Injectable()
export class OpenapiProcessing {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async process(specId: string, organizationId: string, generation: number, caller: Caller): Promise<void> {
    const stream = openapiSpecStream(specId);
    const { state } = await this.commands.load(stream, openapiSpecDecider);
    const spec = state.spec;
    if (!spec || spec.deleted || spec.generation !== generation || (spec.processing !== 'pending' && spec.processing !== 'progress')) return;
    await this.commands.run(stream, openapiSpecDecider, { kind: 'StartProcessing', specId, organizationId, generation, now: this.now() }, { caller });
    const outcome = await processSource(spec.source, { blobs: this.blobs, limits: this.limits(), newId: () => newId() });
    await this.commands.run(stream, openapiSpecDecider, { kind: 'FinishProcessing', specId, organizationId, generation, outcome, now: this.now() }, { caller });
  }

  private limits(): ParseLimits {
    const { openapiAllowPrivateNetworks, openapiFetchTimeoutMs, openapiMaxBytes, openapiMaxRedirects } = this.config;
    return { allowPrivateNetworks: openapiAllowPrivateNetworks, timeMs: openapiFetchTimeoutMs, maxBytes: openapiMaxBytes, maxRedirects: openapiMaxRedirects, maxExternalDocuments: MAX_EXTERNAL_DOCUMENTS };
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}
