import { untrustedTask } from '#platform/untrusted-work/untrusted-work';
import type { OpenapiErrorCode } from './openapi.events';
import { ProcessingFailure } from './openapi.fetch';
import { parseSpec, type ParseLimits } from './openapi.parse';

/**
 * OpenAPI work for the untrusted-work pool (loaded inside its worker threads: pure code only).
 * Parsing, bundling (with the guarded fetches of external `$ref`s) and validating a spec cost CPU
 * in proportion to what the caller wrote, so they run off the thread that answers requests, within
 * the processing time budget (OPENAPI_PROCESSING_TIME_MS).
 */

export interface ParseSpecInput {
  /** The document's bytes, as fetched or given. */
  bytes: Uint8Array;
  /** Where it was fetched from (its relative `$ref`s resolve against it), or null for a text. */
  baseUrl: string | null;
  /** Plain data only: no `lookup` function crosses to a worker thread. */
  limits: Omit<ParseLimits, 'lookup'>;
}

/** The bundled document as JSON bytes, or why the spec failed: a failure is an answer, not an error, so that only the pool's own errors reject. */
export type ParseSpecResult = { ok: true; json: Uint8Array } | { ok: false; errorCode: OpenapiErrorCode; message: string };

export async function parseSpecTask(input: ParseSpecInput): Promise<ParseSpecResult> {
  try {
    const parsed = await parseSpec(
      Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength),
      input.baseUrl,
      input.limits,
    );
    return { ok: true, json: Buffer.from(parsed.json, 'utf8') };
  } catch (error) {
    if (error instanceof ProcessingFailure) return { ok: false, errorCode: error.code, message: error.message };
    // parseSpec names every failure of the document; anything else is still about this document (a parser's own bug, a stack overflow).
    return {
      ok: false,
      errorCode: 'INVALID_SPEC',
      message: `the spec could not be processed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 1000),
    };
  }
}

export const PARSE_SPEC = untrustedTask<ParseSpecInput, ParseSpecResult>(
  __filename,
  'parseSpecTask',
  'parsing and validating the OpenAPI document',
);
