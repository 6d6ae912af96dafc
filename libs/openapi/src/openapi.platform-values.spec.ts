import { OPENAPI_ERROR_CODES } from './openapi.events';
import { platformErrorCode, platformProcessingState } from './openapi.platform-values';

describe("the platform's values of a spec's processing", () => {
  it('reads an ended processing as complete, the values of read models built before included', () => {
    expect(['pending', 'progress', 'complete', 'completed', 'failed'].map((state) => platformProcessingState(state as never))).toEqual([
      'pending',
      'progress',
      'complete',
      'complete',
      'complete',
    ]);
  });

  it('reads a source that could not be obtained in time as FETCH_TIMEOUT, otherwise as FETCH_ERROR', () => {
    expect(
      ['FETCH_TIMEOUT', 'FETCH_REFUSED', 'FETCH_UNREACHABLE', 'FETCH_HTTP_ERROR', 'FETCH_TOO_MANY_REDIRECTS', 'DOCUMENT_TOO_LARGE'].map(
        (code) => platformErrorCode(code as never),
      ),
    ).toEqual(['FETCH_TIMEOUT', 'FETCH_ERROR', 'FETCH_ERROR', 'FETCH_ERROR', 'FETCH_ERROR', 'FETCH_ERROR']);
  });

  it('reads a document that could not be made a version as PARSE_ERROR', () => {
    expect(
      ['INVALID_SPEC', 'DOCUMENT_TOO_COMPLEX', 'PROCESSING_BUDGET_EXCEEDED', 'PROCESSING_INTERRUPTED'].map((code) =>
        platformErrorCode(code as never),
      ),
    ).toEqual(['PARSE_ERROR', 'PARSE_ERROR', 'PARSE_ERROR', 'PARSE_ERROR']);
  });

  it('has a platform value for every code of the service', () => {
    for (const code of OPENAPI_ERROR_CODES) expect(['FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR']).toContain(platformErrorCode(code));
  });
});
