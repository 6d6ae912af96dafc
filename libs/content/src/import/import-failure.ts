import { DomainError } from '#platform/errors';

/**
 * Why an import could not be done, with the HTTP status the endpoint answers:
 * 400 the URL or its address is refused, 408 the time limit passed, 413 a size limit was exceeded,
 * 422 the source could not be read (unreachable, HTTP error, redirect trouble, wrong content type,
 * corrupt archive). A DomainError, so the API's error envelope answers with its status as it is.
 */
export type ImportFailureStatus = 400 | 408 | 413 | 422;

export class ImportFailure extends DomainError {
  override readonly name: string = 'ImportFailure';
  declare readonly status: ImportFailureStatus;

  constructor(status: ImportFailureStatus, message: string) {
    super(status, message);
  }
}
