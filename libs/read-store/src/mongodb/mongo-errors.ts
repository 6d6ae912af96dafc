/** MongoDB driver errors translated to the read store's errors (pure). */
import {
  MongoError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { DuplicateKeyError, ReadStoreInputError, ReadStoreTransactionTooLargeError, ReadStoreUnavailableError } from '../errors';
import { isObject, isPlainObject, toPlain } from './mongo-values';

/** Server error codes meaning "this node cannot serve right now" (network, shutdown, failover). */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Server error codes caused by the query, update, document or index given. */
const INPUT_CODES = new Set([
  2, // BadValue (unknown operator, …)
  9, // FailedToParse (unknown update modifier, …)
  14, // TypeMismatch
  15, // Overflow
  28, // PathNotViable
  40, // ConflictingUpdateOperators
  52, // DollarPrefixedFieldName
  54, // NotSingleValueField
  56, // EmptyFieldName
  57, // DottedFieldName
  66, // ImmutableField (an update changing _id)
  67, // CannotCreateIndex
  72, // InvalidOptions
  73, // InvalidNamespace
  197, // InvalidIndexSpecificationOption
  10334, // BSONObjectTooLarge
  17419, // document too large after update
  51091, // invalid regular expression
  51108, // invalid regular expression flags
]);

/** Codes meaning the transaction is too large or too long: the same work in smaller transactions may pass. */
const TOO_LARGE_CODES = new Set([
  257, // TransactionTooLarge
  290, // TransactionExceededLifetimeLimitSeconds
  355, // TransactionTooLargeForCache
]);
/** Codes that mean the same when raised inside a transaction (or by its commit). */
const TOO_LARGE_IN_TRANSACTION_CODES = new Set([
  50, // MaxTimeMSExpired
  262, // ExceededTimeLimit
  10334, // BSONObjectTooLarge (the transaction's oplog entry)
  112, // WriteConflict, once retries are exhausted (the server reports cache pressure this way too)
  251, // NoSuchTransaction, once retries are exhausted (aborted past its lifetime)
]);

export const INDEX_OPTIONS_CONFLICT = 85;
export const INDEX_KEY_SPECS_CONFLICT = 86;
export const NAMESPACE_NOT_FOUND = 26;

/**
 * The `DuplicateKeyError` for a MongoDB duplicate-key error (code 11000), or undefined for any
 * other error. The index is named by its fields joined by ',' (from the error's `keyPattern`, or
 * `keyValue`, or, for old servers, the index name in the message); the key is the error's `keyValue`.
 */
export function duplicateKeyError(error: unknown, collection: string): DuplicateKeyError | undefined {
  if (!isObject(error)) return undefined;
  const code = errorCode(error);
  if (code !== 11000 && code !== 11001) return undefined;
  const keyPattern = isPlainObject(error.keyPattern) ? error.keyPattern : undefined;
  const keyValue = isPlainObject(error.keyValue) ? error.keyValue : undefined;
  let index: string | undefined;
  if (keyPattern && Object.keys(keyPattern).length > 0) index = Object.keys(keyPattern).join(',');
  else if (keyValue && Object.keys(keyValue).length > 0) index = Object.keys(keyValue).join(',');
  else {
    const message = error instanceof Error ? error.message : (error.errmsg ?? error.message);
    index = indexFieldsFromMessage(typeof message === 'string' ? message : '');
  }
  return new DuplicateKeyError(collection, index ?? 'unknown', keyValue ? toPlain(keyValue) : null);
}

/** Maps a driver error to the read store's errors; anything else is returned unchanged. */
export function translateError(error: unknown, collection?: string, redact: (text: string) => string = (t) => t): unknown {
  if (!(error instanceof MongoError)) return error;
  const duplicate = duplicateKeyError(error, collection ?? '');
  if (duplicate) return duplicate;
  if (isTooLargeInTransaction(error) && (TOO_LARGE_CODES.has(errorCode(error) ?? -1) || isRetriedByTransaction(error))) {
    // Raised by a commit or after withTransaction's retries ran out (the labels tell a transaction).
    return new ReadStoreTransactionTooLargeError(`MongoDB refused the transaction: ${redact(error.message)}`, error);
  }
  if (isUnavailableError(error)) {
    return new ReadStoreUnavailableError(`MongoDB is unavailable: ${redact(error.message)}`, error);
  }
  if (error instanceof MongoInvalidArgumentError || (error instanceof MongoServerError && INPUT_CODES.has(errorCode(error) ?? -1))) {
    const where = collection ? ` (collection '${collection}')` : '';
    return new ReadStoreInputError(`${redact(error.message)}${where}`, { cause: error });
  }
  return error;
}

function isUnavailableError(error: MongoError): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoOperationTimeoutError ||
    (error instanceof MongoServerError && UNAVAILABLE_CODES.has(errorCode(error) ?? -1))
  );
}

/** Whether the error, raised inside a transaction, means that transaction was too large or too long. */
export function isTooLargeInTransaction(error: unknown): error is MongoError {
  const code = errorCode(error);
  return error instanceof MongoError && code !== undefined && (TOO_LARGE_CODES.has(code) || TOO_LARGE_IN_TRANSACTION_CODES.has(code));
}

export function isRetriedByTransaction(error: unknown): boolean {
  return (
    error instanceof MongoError &&
    (error.hasErrorLabel('TransientTransactionError') || error.hasErrorLabel('UnknownTransactionCommitResult'))
  );
}

export function errorCode(error: unknown): number | undefined {
  if (!isObject(error)) return undefined;
  const code = Number(error.code);
  return Number.isFinite(code) ? code : undefined;
}

/** Fields of the index named in "E11000 duplicate key error collection: db.c index: a_1_b_-1 dup key: …". */
function indexFieldsFromMessage(message: string): string | undefined {
  const match = /index: (\S+) dup key/.exec(message);
  if (!match) return undefined;
  const name = match[1];
  if (name === '_id_') return '_id';
  const fields: string[] = [];
  const part = /^(.+?)_(-?1)(?:_|$)/;
  let rest = name;
  for (let found = part.exec(rest); found; found = part.exec(rest)) {
    fields.push(found[1]);
    rest = rest.slice(found[0].length);
  }
  return fields.length > 0 && rest === '' ? fields.join(',') : name;
}
