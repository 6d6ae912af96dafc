/**
 * Domain errors: what a decider returns (or throws) when a command breaks a rule. They carry the
 * HTTP status the API answers with, so the HTTP layer maps them without knowing the domain.
 */
export type DomainErrorCode = 400 | 403 | 404 | 408 | 409 | 412 | 413 | 422 | 429;

export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  constructor(
    readonly status: DomainErrorCode,
    message: string,
    /** Further members of the error envelope (a merge's `conflicts`), next to `code` and `message`. */
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }

  static invalid(message: string): DomainError {
    return new DomainError(400, message);
  }
  static forbidden(message: string): DomainError {
    return new DomainError(403, message);
  }
  static notFound(message: string): DomainError {
    return new DomainError(404, message);
  }
  static conflict(message: string): DomainError {
    return new DomainError(409, message);
  }
  static preconditionFailed(message: string): DomainError {
    return new DomainError(412, message);
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
