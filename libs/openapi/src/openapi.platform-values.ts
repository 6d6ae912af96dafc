import type { LegacyProcessingState, OpenapiErrorCode, OpenapiProcessingState, PlatformOpenapiErrorCode } from './openapi.events';

/** `processingState` as the platform names it; read models built before hold `completed` or `failed` for an ended processing. */
export function platformProcessingState(state: OpenapiProcessingState | LegacyProcessingState): OpenapiProcessingState {
  return state === 'completed' || state === 'failed' ? 'complete' : state;
}

/**
 * The platform's `lastProcessErrorCode` for the service's code: the source could not be obtained
 * (in time: FETCH_TIMEOUT; otherwise FETCH_ERROR), or what was obtained could not be made a version
 * (PARSE_ERROR). The service's own code stays available as `lastProcessedErrors[].code`.
 */
const PLATFORM_CODE: Readonly<Record<OpenapiErrorCode, PlatformOpenapiErrorCode>> = {
  FETCH_TIMEOUT: 'FETCH_TIMEOUT',
  FETCH_REFUSED: 'FETCH_ERROR',
  FETCH_UNREACHABLE: 'FETCH_ERROR',
  FETCH_HTTP_ERROR: 'FETCH_ERROR',
  FETCH_TOO_MANY_REDIRECTS: 'FETCH_ERROR',
  DOCUMENT_TOO_LARGE: 'FETCH_ERROR',
  INVALID_SPEC: 'PARSE_ERROR',
  DOCUMENT_TOO_COMPLEX: 'PARSE_ERROR',
  PROCESSING_BUDGET_EXCEEDED: 'PARSE_ERROR',
  PROCESSING_INTERRUPTED: 'PARSE_ERROR',
};

export function platformErrorCode(code: OpenapiErrorCode): PlatformOpenapiErrorCode {
  return PLATFORM_CODE[code];
}
