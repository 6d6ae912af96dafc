/**
 * OpenAPI specifications. One stream per spec, `openapi-<specId>`: its source, its processing and
 * its versions. Slugs are unique per organization through one small stream per organization,
 * `openapislugs-<organizationId>` (claims and releases), the way change requests take their numbers:
 * two concurrent creates of one slug append to the same stream, and only one claim wins.
 *
 * No document is carried by an event: a `{ text }` source, the raw bytes of a version and its parsed
 * document are blobs, and the events carry their SHA-256 hashes.
 */
/**
 * `processingState`, the platform's values: a processing that ended is `complete`, whether it made
 * a version or failed (then `lastProcessErrorCode` says why).
 */
export const OPENAPI_PROCESSING_STATES = ['pending', 'progress', 'complete'] as const;
export type OpenapiProcessingState = (typeof OPENAPI_PROCESSING_STATES)[number];
/** What read models built before the platform's values hold for an ended processing (`completed`, `failed`). */
export type LegacyProcessingState = 'completed' | 'failed';

/**
 * Why processing failed (`lastProcessErrorCode`). DOCUMENT_TOO_COMPLEX: its `$ref`s, inlined as
 * validation inlines them, make more values than allowed; PROCESSING_BUDGET_EXCEEDED: parsing and
 * validating it took longer than OPENAPI_PROCESSING_TIME_MS or more memory than a worker thread has;
 * PROCESSING_INTERRUPTED: processing was started twice and never finished (the service stopped, or
 * crashed, while it ran), so it is not started a third time.
 */
export const OPENAPI_ERROR_CODES = [
  'FETCH_TIMEOUT',
  'FETCH_REFUSED',
  'FETCH_UNREACHABLE',
  'FETCH_HTTP_ERROR',
  'FETCH_TOO_MANY_REDIRECTS',
  'DOCUMENT_TOO_LARGE',
  'INVALID_SPEC',
  'DOCUMENT_TOO_COMPLEX',
  'PROCESSING_BUDGET_EXCEEDED',
  'PROCESSING_INTERRUPTED',
] as const;
export type OpenapiErrorCode = (typeof OPENAPI_ERROR_CODES)[number];

/** The platform's `lastProcessErrorCode` values; the service's own code (OPENAPI_ERROR_CODES) is the `code` of `lastProcessedErrors[]`. */
export const PLATFORM_OPENAPI_ERROR_CODES = ['FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'] as const;
export type PlatformOpenapiErrorCode = (typeof PLATFORM_OPENAPI_ERROR_CODES)[number];

/** Where a spec comes from: a URL fetched by the service, or a text given in the request (stored as a blob). */
export type OpenapiSource = { kind: 'url'; url: string } | { kind: 'text'; hash: string; size: number };

interface About {
  specId: string;
  organizationId: string;
}

export type OpenapiSpecEvent =
  | {
      type: 'OpenAPISpecCreated';
      data: About & { slug: string; source: OpenapiSource; generation: number; createdBy: string; createdAt: string };
    }
  /** A new source (or the same one again: a URL is fetched again); `generation` counts the sources given. */
  | {
      type: 'OpenAPISpecSourceUpdated';
      data: About & { slug: string; source: OpenapiSource; generation: number; updatedBy: string; updatedAt: string };
    }
  | { type: 'OpenAPISpecProcessingStarted'; data: About & { generation: number; startedAt: string } }
  /** Processing produced content not seen before: a version, with its raw bytes and its parsed document as blobs. */
  | {
      type: 'OpenAPISpecVersionCreated';
      data: About & {
        versionId: string;
        generation: number;
        rawHash: string;
        rawSize: number;
        documentHash: string;
        contentType: string;
        sourceURL: string | null;
        createdAt: string;
      };
    }
  /** Processing ended well; `versionId` is the spec's latest version (a new one, or the one whose content this is). */
  | { type: 'OpenAPISpecProcessed'; data: About & { generation: number; versionId: string; processedAt: string } }
  | {
      type: 'OpenAPISpecProcessingFailed';
      data: About & { generation: number; errorCode: OpenapiErrorCode; message: string; failedAt: string };
    }
  | { type: 'OpenAPISpecDeleted'; data: About & { slug: string; deletedBy: string; deletedAt: string } };

/** `openapislugs-<organizationId>`: which spec holds which slug. */
export type OpenapiSlugEvent =
  | { type: 'OpenAPISpecSlugClaimed'; data: { organizationId: string; slug: string; specId: string } }
  | { type: 'OpenAPISpecSlugReleased'; data: { organizationId: string; slug: string; specId: string } };
