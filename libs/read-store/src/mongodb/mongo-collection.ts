/** A collection of the MongoDB read store, outside or inside a transaction. */
import {
  MongoServerError,
  WriteConcern,
  type ClientSession,
  type Collection as NativeCollection,
  type MongoClient,
  type TransactionOptions,
} from 'mongodb';
import { ReadStoreInputError, ReadStoreTransactionTooLargeError } from '../errors';
import { checkLimit, encodeCursor, filterAfter, normalizeSort, readCursor } from '../pagination';
import type { Collection, Doc, Filter, FindOptions, Page, Update } from '../read-store.port';
import { messageOf } from './mongo-connection';
import { errorCode, isRetriedByTransaction, isTooLargeInTransaction } from './mongo-errors';
import { checkDoc, checkFilter, checkId, checkUpdate, toPlainDoc } from './mongo-values';

/** Writes inside `transaction()` commit with majority write concern and read one snapshot. */
export const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: new WriteConcern('majority'),
  readPreference: 'primary',
};

/** Transient conflicts retried inside one `transaction()` call before it is reported as too large. */
const MAX_TRANSIENT_RETRIES = 3;
const transientRetries = new WeakMap<ClientSession, number>();

/** The state of one attempt of a transaction's work. */
export interface TransactionScope {
  session: ClientSession;
  /** The server error that aborted this attempt; later operations refuse to run. */
  failure?: Error;
  /** Set once the work has returned: the transaction object must not be used any more. */
  finished: boolean;
}

/** A stored document as the driver sees it: a string `_id` (never an ObjectId) and JSON fields. */
export interface StoredDoc {
  _id: string;
  [field: string]: unknown;
}

export type Translate = (error: unknown, collection?: string) => unknown;

/** What a collection needs from its store. */
export interface StoreHandle {
  readonly client: MongoClient;
  readonly translate: Translate;
  /** Throws `ReadStoreUnavailableError` once the store is closed. */
  checkOpen(): void;
}

export class MongoCollection<T extends Doc> implements Collection<T> {
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
