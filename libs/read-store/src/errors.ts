/** A write would break a unique index (including the primary key `_id`). */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(
    readonly collection: string,
    /** The index's fields joined by ',' (`_id` for the primary key). */
    readonly index: string,
    readonly key: unknown,
  ) {
    super(`duplicate key in '${collection}' for index '${index}': ${JSON.stringify(key)}`);
  }
}

/** Bad query input: malformed cursor, limit out of range, unsupported operator. */
export class ReadStoreInputError extends Error {
  override readonly name = 'ReadStoreInputError';
}

/** The store cannot be reached. */
export class ReadStoreUnavailableError extends Error {
  override readonly name = 'ReadStoreUnavailableError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/**
 * A transaction was refused for its size or duration (MongoDB: TransactionTooLarge, too large for
 * the cache, over the transaction lifetime or time limit, write conflicts that kept coming). The same
 * work in smaller transactions may succeed: the projection runner halves its batch on this error.
 */
export class ReadStoreTransactionTooLargeError extends Error {
  override readonly name = 'ReadStoreTransactionTooLargeError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
