import {
  MongoClient,
  MongoError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  WriteConcern,
  type ClientSession,
  type Collection as NativeCollection,
  type CreateIndexesOptions,
  type Db,
  type Document,
  type MongoClientOptions,
  type TransactionOptions,
} from 'mongodb';
import { DuplicateKeyError, ReadStoreInputError, ReadStoreTransactionTooLargeError, ReadStoreUnavailableError } from '../errors';
import { cloneIn } from '../memory/json-value';
import { parseUpdate } from '../memory/update-engine';
import { checkLimit, encodeCursor, filterAfter, normalizeSort, readCursor } from '../pagination';
import type { Collection, Doc, Filter, FindOptions, IndexSpec, Page, ReadStore, ReadStoreTransaction, Update } from '../read-store.port';
import {
  messageOf,
  openMongoDatabase,
  consistentDb,
  pingMongo,
  requireWritablePrimary,
  type ConnectRetryOptions,
} from './mongo-connection';

/**
 * The distributed read store: each read-store collection is a MongoDB collection of the configured
 * database. Transactions need a replica set (a single-node one will do).
 */

export interface MongoReadStoreOptions extends ConnectRetryOptions {
  /** Database name; overrides the URL path. Default: the URL path, else `docs_platform`. */
  database?: string;
  /** Extra driver options; they override the adapter's defaults. */
  clientOptions?: MongoClientOptions;
  /**
   * Refuse a standalone server at connection time (default true): transactions, which the
   * projection runner relies on, need a replica set (a single-node one will do) or a sharded cluster.
   */
  requireReplicaSet?: boolean;
}

/** Writes inside `transaction()` commit with majority write concern and read one snapshot. */
const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: new WriteConcern('majority'),
  readPreference: 'primary',
};

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
/** Transient conflicts retried inside one `transaction()` call before it is reported as too large. */
const MAX_TRANSIENT_RETRIES = 3;
const transientRetries = new WeakMap<ClientSession, number>();

const INDEX_OPTIONS_CONFLICT = 85;
const INDEX_KEY_SPECS_CONFLICT = 86;
const NAMESPACE_NOT_FOUND = 26;

/** The state of one attempt of a transaction's work. */
interface TransactionScope {
  session: ClientSession;
  /** The server error that aborted this attempt; later operations refuse to run. */
  failure?: Error;
  /** Set once the work has returned: the transaction object must not be used any more. */
  finished: boolean;
}

/** A stored document as the driver sees it: a string `_id` (never an ObjectId) and JSON fields. */
interface StoredDoc {
  _id: string;
  [field: string]: unknown;
}

type Translate = (error: unknown, collection?: string) => unknown;

/** What a collection needs from its store. */
interface StoreHandle {
  readonly client: MongoClient;
  readonly translate: Translate;
  /** Throws `ReadStoreUnavailableError` once the store is closed. */
  checkOpen(): void;
}

export class MongoReadStore implements ReadStore {
  private closed = false;
  private readonly handle: StoreHandle;
  private readonly translate: Translate;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly redact: (text: string) => string,
  ) {
    this.translate = (error, collection) => translateError(error, collection, this.redact);
    this.handle = { client, translate: this.translate, checkOpen: () => this.checkOpen() };
  }

  /**
   * Validates the URL (a malformed one throws `ReadStoreInputError` naming the problem, never the
   * credentials), then connects, retrying with backoff on a fresh client each time; throws
   * `ReadStoreUnavailableError` when every attempt failed.
   */
  static async connect(url: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    const { client, database, redact } = await openMongoDatabase(
      url,
      options,
      {
        invalid: (message) => new ReadStoreInputError(message),
        unavailable: (message, cause) => new ReadStoreUnavailableError(message, cause),
      },
      'MongoDB read store',
      options.requireReplicaSet === false
        ? {}
        : {
            // Inside the connect retries: a replica set electing its primary is waited for.
            ready: (candidate) => requireWritablePrimary(candidate, standaloneServer),
            fatal: (error) => error instanceof ReadStoreInputError,
          },
    );
    return new MongoReadStore(client, consistentDb(client, database), redact);
  }

  /** The database this store works in. */
  get databaseName(): string {
    return this.db.databaseName;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MongoCollection<T>(this.native(name), name, this.handle, undefined);
  }

  async transaction<R>(work: (tx: ReadStoreTransaction) => Promise<R>): Promise<R> {
    this.checkOpen();
    try {
      return await this.client.withSession((session) =>
        session.withTransaction(async () => {
          // withTransaction may call this again after a TransientTransactionError: each attempt
          // gets a fresh scope.
          const scope: TransactionScope = { session, finished: false };
          const tx: ReadStoreTransaction = {
            collection: <T extends Doc = Doc>(name: string): Collection<T> =>
              new MongoCollection<T>(this.native(name), name, this.handle, scope),
          };
          try {
            return await work(tx);
          } finally {
            scope.finished = true;
          }
        }, TRANSACTION_OPTIONS),
      );
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** MongoDB keeps every collection on disk, read through its indexes: nothing to do beyond checking the name. */
  async declareLarge(collection: string): Promise<void> {
    this.checkOpen();
    this.native(collection);
  }

  async ensureIndex(collection: string, index: IndexSpec): Promise<void> {
    this.checkOpen();
    const native = this.native(collection);
    const keys = checkIndexFields(index);
    const name = indexName(keys);
    const options: CreateIndexesOptions = { name };
    if (index.unique) options.unique = true;
    if (index.partial !== undefined) {
      if (!isPlainObject(index.partial)) throw new ReadStoreInputError('an index partial filter must be an object');
      options.partialFilterExpression = index.partial;
    }
    try {
      await native.createIndex(keys, options);
      return;
    } catch (error) {
      const code = errorCode(error);
      if (code !== INDEX_OPTIONS_CONFLICT && code !== INDEX_KEY_SPECS_CONFLICT) {
        throw this.translate(error, collection);
      }
    }
    // An index with this name or these keys exists with other options: replace it, so that the
    // index ends up as specified.
    try {
      const existing = await native.listIndexes().toArray();
      const wanted = JSON.stringify(keys);
      for (const candidate of existing) {
        if (candidate.name === '_id_') continue;
        if (candidate.name === name || JSON.stringify(candidate.key) === wanted) {
          await native.dropIndex(String(candidate.name));
        }
      }
      await native.createIndex(keys, options);
    } catch (error) {
      throw this.translate(error, collection);
    }
  }

  async dropCollections(names: readonly string[]): Promise<void> {
    this.checkOpen();
    if (!Array.isArray(names)) throw new ReadStoreInputError('collection names must be an array');
    const natives = names.map((name) => ({ name, native: this.native(name) }));
    for (const { name, native } of natives) {
      try {
        await native.drop();
      } catch (error) {
        if (errorCode(error) === NAMESPACE_NOT_FOUND || /ns not found/i.test(messageOf(error))) continue;
        throw this.translate(error, name);
      }
    }
  }

  async listCollections(): Promise<string[]> {
    this.checkOpen();
    try {
      const infos = await this.db.listCollections({}, { nameOnly: true }).toArray();
      return infos
        .map((info) => info.name)
        .filter((name) => !name.startsWith('system.'))
        .sort();
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Unknown: the projector (another process) writes to the database. */
  contentVersion(): null {
    return null;
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    if (this.closed) return { ok: false, detail: 'the MongoDB read store is closed' };
    return pingMongo(this.db, this.redact);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }

  private native(name: string): NativeCollection<StoredDoc> {
    checkCollectionName(name);
    return this.db.collection<StoredDoc>(name);
  }

  private checkOpen(): void {
    if (this.closed) throw new ReadStoreUnavailableError('the MongoDB read store is closed');
  }
}

function standaloneServer(): ReadStoreInputError {
  return new ReadStoreInputError(
    'the MongoDB server is a standalone mongod: the read store needs a replica set for transactions ' +
      '(start mongod with --replSet and run rs.initiate(); a single-node replica set will do)',
  );
}

export async function createMongoReadStore(url: string): Promise<MongoReadStore> {
  return MongoReadStore.connect(url);
}

class MongoCollection<T extends Doc> implements Collection<T> {
  constructor(
    private readonly native: NativeCollection<StoredDoc>,
    private readonly name: string,
    private readonly store: StoreHandle,
    private readonly scope: TransactionScope | undefined,
  ) {}

  async get(id: string): Promise<T | null> {
    checkId(id);
    const found = await this.run((options) => this.native.findOne({ _id: id }, options));
    return found ? (toPlainDoc(found) as T) : null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    checkFilter(filter);
    const found = await this.run((options) => this.native.findOne(filter, options));
    return found ? (toPlainDoc(found) as T) : null;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<Page<T>> {
    checkFilter(filter);
    const sort = normalizeSort(options.sort);
    const limit = checkLimit(options.limit);
    const cursor = options.after === undefined ? undefined : readCursor(options.after, sort, filter);
    // A flat top-level $or (pagination.ts) so that every branch is planned on the sort index.
    const query: Filter = cursor === undefined ? filter : filterAfter(filter, sort, cursor.values);
    const found = await this.run((session) => this.native.find(query, { ...session, sort, limit: limit + 1 }).toArray());
    const items = found.slice(0, limit).map((doc) => toPlainDoc(doc) as T);
    const more = found.length > limit;
    // Counted once per query: a single first page counts itself, later pages reuse the count
    // their cursor carries (countDocuments visits every match, which a page must not cost).
    let count = items.length;
    if (options.count !== false && (cursor !== undefined || more)) {
      count = cursor?.count ?? (await this.run((session) => this.native.countDocuments(filter, session)));
    }
    const next = more ? encodeCursor(items[items.length - 1], sort, options.count === false ? undefined : { filter, count }) : undefined;
    return next === undefined ? { items, count } : { items, count, next };
  }

  async count(filter: Filter = {}): Promise<number> {
    checkFilter(filter);
    return this.run((options) => this.native.countDocuments(filter, options));
  }

  async insert(doc: T): Promise<void> {
    const copy = checkDoc(doc);
    await this.run((options) => this.native.insertOne(copy, options));
  }

  async put(doc: T): Promise<void> {
    const copy = checkDoc(doc);
    await this.run((options) => this.native.replaceOne({ _id: copy._id }, copy, { ...options, upsert: true }));
  }

  async update(id: string, update: Update, options: { upsert?: boolean } = {}): Promise<T | null> {
    checkId(id);
    const operators = checkUpdate(update, id);
    const updated = await this.run((session) =>
      this.native.findOneAndUpdate({ _id: id }, operators, {
        ...session,
        returnDocument: 'after',
        upsert: options.upsert === true,
        includeResultMetadata: false,
      }),
    );
    return updated ? (toPlainDoc(updated) as T) : null;
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    checkFilter(filter);
    const operators = checkUpdate(update);
    const result = await this.atomically((options) => this.native.updateMany(filter, operators, options));
    return result.matchedCount;
  }

  async delete(id: string): Promise<boolean> {
    checkId(id);
    const result = await this.run((options) => this.native.deleteOne({ _id: id }, options));
    return result.deletedCount === 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    checkFilter(filter);
    const result = await this.atomically((options) => this.native.deleteMany(filter, options));
    return result.deletedCount;
  }

  /**
   * Runs a multi-document write so that it applies to every matching document or to none (MongoDB
   * applies updateMany/deleteMany document by document: a duplicate key half-way would otherwise
   * leave the first documents changed). Inside `transaction()` the transaction already does this.
   */
  private async atomically<R>(operation: (options: { session?: ClientSession }) => Promise<R>): Promise<R> {
    if (this.scope) return this.run(operation);
    this.store.checkOpen();
    try {
      return await this.store.client.withSession((session) => session.withTransaction(() => operation({ session }), TRANSACTION_OPTIONS));
    } catch (error) {
      throw this.store.translate(error, this.name);
    }
  }

  /**
   * Runs one driver call, inside the transaction when there is one, and translates its errors.
   * Inside a transaction, errors the driver retries (TransientTransactionError,
   * UnknownTransactionCommitResult) are passed through untouched so that `withTransaction` sees
   * their labels; any other server error has aborted the transaction on the server, so later
   * operations of the same attempt fail at once instead of looping on NoSuchTransaction.
   */
  private async run<R>(operation: (options: { session?: ClientSession }) => Promise<R>): Promise<R> {
    this.store.checkOpen();
    const scope = this.scope;
    if (scope?.finished) {
      throw new ReadStoreInputError('this transaction has finished: use the store, not the transaction object');
    }
    if (scope?.failure) {
      throw new ReadStoreInputError(
        `the transaction was aborted by an earlier failed operation (${scope.failure.name}: ${scope.failure.message}); ` +
          'errors inside transaction() must propagate',
      );
    }
    try {
      return await operation(scope ? { session: scope.session } : {});
    } catch (error) {
      if (scope && isTooLargeInTransaction(error)) {
        // withTransaction retries labelled errors for up to 120 s: a conflict that keeps coming or a
        // transaction over its size or lifetime will not pass by retrying the same work. A plain
        // error ends withTransaction at once, and the caller (the projection runner) splits the work.
        const code = errorCode(error);
        const retried = transientRetries.get(scope.session) ?? 0;
        if (isRetriedByTransaction(error) && (code === 112 || code === 251) && retried < MAX_TRANSIENT_RETRIES) {
          transientRetries.set(scope.session, retried + 1);
          throw error;
        }
        throw new ReadStoreTransactionTooLargeError(`MongoDB refused the transaction: ${messageOf(error)}`, error);
      }
      if (scope && isRetriedByTransaction(error)) throw error;
      const translated = this.store.translate(error, this.name);
      if (scope && error instanceof MongoServerError && translated instanceof Error) scope.failure = translated;
      throw translated;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Error translation (pure, exported for unit tests)

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

function isRetriedByTransaction(error: unknown): boolean {
  return (
    error instanceof MongoError &&
    (error.hasErrorLabel('TransientTransactionError') || error.hasErrorLabel('UnknownTransactionCommitResult'))
  );
}

function errorCode(error: unknown): number | undefined {
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

// ---------------------------------------------------------------------------------------------
// Input checks (pure, exported for unit tests)

/**
 * Checks an update document with the memory adapter's rules (so that both adapters refuse the same
 * updates): operators only, known operators, JSON operands, no conflicting paths, no change of `_id`.
 * A `$set` of `_id` must give the document's own id (`id`, when known; otherwise the server checks
 * each document). Returns the JSON copy to send.
 */
export function checkUpdate(update: Update, id?: string): Update {
  const parsed = parseUpdate(update);
  if (id !== undefined) {
    for (const { value, onInsertOnly } of parsed.idValues) {
      if (!onInsertOnly && value !== id) {
        throw new ReadStoreInputError(`the update would modify the immutable field '_id' (${JSON.stringify(id)})`);
      }
    }
  }
  // The copy sent to the server: operands members set to undefined are dropped, as in memory.
  return cloneIn(update, 'update');
}

/** The index name used by `ensureIndex`: MongoDB's default naming, `field_1_other_-1`. */
export function indexName(fields: Record<string, 1 | -1>): string {
  return Object.entries(fields)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_');
}

function checkIndexFields(index: IndexSpec): Record<string, 1 | -1> {
  if (!isPlainObject(index) || !isPlainObject(index.fields)) throw new ReadStoreInputError('an index needs its fields');
  const entries = Object.entries(index.fields);
  if (entries.length === 0) throw new ReadStoreInputError('an index needs at least one field');
  for (const [field, direction] of entries) {
    if (field === '' || field.startsWith('$')) throw new ReadStoreInputError(`invalid index field '${field}'`);
    if (direction !== 1 && direction !== -1) {
      throw new ReadStoreInputError(`index field '${field}' must be 1 or -1, got ${JSON.stringify(direction)}`);
    }
  }
  return index.fields;
}

function checkCollectionName(name: string): void {
  if (typeof name !== 'string' || name === '') throw new ReadStoreInputError('a collection name must be a non-empty string');
  if (name.includes('$') || name.includes('\0')) {
    throw new ReadStoreInputError(`invalid collection name '${name}': '$' and NUL are not allowed`);
  }
  if (name.startsWith('system.')) throw new ReadStoreInputError(`invalid collection name '${name}': 'system.' is reserved`);
}

function checkId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new ReadStoreInputError(`a document id must be a string, got ${typeof id}`);
}

/** A JSON copy of the document (non-JSON values are refused as by the memory adapter). */
function checkDoc<T extends Doc>(doc: T): T {
  if (!isPlainObject(doc)) throw new ReadStoreInputError('a document must be an object');
  checkId(doc._id);
  return cloneIn(doc, 'document');
}

function checkFilter(filter: unknown): asserts filter is Filter {
  if (!isPlainObject(filter)) throw new ReadStoreInputError('a filter must be an object');
}

// ---------------------------------------------------------------------------------------------
// Plain JSON out of driver values

function toPlainDoc(doc: Document): Doc {
  return toPlain(doc) as Doc;
}

/**
 * Deep copy as plain JSON values: dates become ISO strings, ObjectIds hex strings, BSON numbers
 * numbers, binaries base64. Documents written through this store are JSON already; this keeps
 * driver types out of results even for data written by other means.
 */
export function toPlain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Date) return value.toISOString();
  const bsonType = (value as { _bsontype?: unknown })._bsontype;
  if (typeof bsonType === 'string') return bsonToPlain(bsonType, value);
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) result[key] = toPlain(inner);
  return result;
}

function bsonToPlain(type: string, value: object): unknown {
  switch (type) {
    case 'ObjectId':
    case 'ObjectID':
      return (value as { toHexString(): string }).toHexString();
    case 'Double':
    case 'Int32':
    case 'Long':
    case 'Decimal128':
      return Number(String(value));
    case 'Binary':
      return (value as { toString(encoding: 'base64'): string }).toString('base64');
    default:
      return String(value);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value);
}
