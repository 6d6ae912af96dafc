import type { Collection as NativeCollection, CreateIndexesOptions, Db, MongoClient, MongoClientOptions } from 'mongodb';
import { ReadStoreInputError, ReadStoreUnavailableError } from '../errors';
import type { Collection, Doc, IndexSpec, ReadStore, ReadStoreTransaction } from '../read-store.port';
import {
  messageOf,
  openMongoDatabase,
  consistentDb,
  pingMongo,
  requireWritablePrimary,
  type ConnectRetryOptions,
} from './mongo-connection';
import {
  MongoCollection,
  TRANSACTION_OPTIONS,
  type StoreHandle,
  type StoredDoc,
  type TransactionScope,
  type Translate,
} from './mongo-collection';
import { errorCode, INDEX_KEY_SPECS_CONFLICT, INDEX_OPTIONS_CONFLICT, NAMESPACE_NOT_FOUND, translateError } from './mongo-errors';
import { checkCollectionName, checkIndexFields, indexName, isPlainObject } from './mongo-values';

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
