/**
 * The read store port: named collections of JSON documents queried with MongoDB syntax.
 * Adapters: in-memory on `mingo` (embedded) and MongoDB (distributed). Both pass
 * `read-store.contract.ts`.
 *
 * Documents are plain JSON objects keyed by a string `_id`. Values must be JSON-representable
 * (strings, finite numbers, booleans, null, arrays, objects); dates are stored as ISO strings.
 *
 * Documents a read answers are read-only: the in-memory adapter hands out its stored documents,
 * frozen, outside transactions. Build a changed copy (`{ ...doc, title }`) rather than assign.
 */

export interface Doc {
  _id: string;
  [field: string]: unknown;
}

/** A MongoDB query filter (`$eq`, `$in`, `$gt`, `$regex`, `$and`, `$or`, dotted paths, …). */
export type Filter = Record<string, unknown>;
/** A MongoDB update document (`$set`, `$unset`, `$inc`, `$push`, `$pull`, `$addToSet`, …). */
export type Update = Record<string, unknown>;
/** Sort order: field → 1 (ascending) or -1 (descending). `_id` is always added as the tie-breaker. */
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  /** Page size, 1..1000; default 50. */
  limit?: number;
  /** Opaque cursor from a previous page's `next`. Stable under concurrent writes (keyset pagination). */
  after?: string;
  /** When false, `count` is not computed (it is then the number of items on the page). Default true. */
  count?: boolean;
}

export interface Page<T> {
  items: T[];
  /** Number of documents matching the filter, across all pages. */
  count: number;
  /** Cursor of the next page, absent on the last page. */
  next?: string;
}

export interface IndexSpec {
  /** Indexed fields, in order; 1 ascending, -1 descending. */
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  /**
   * With `unique`: only documents matching this filter take part (MongoDB partial index),
   * e.g. `{ deletedAt: null }` so that deleted documents free their slug. Equality and `$exists` only.
   */
  partial?: Filter;
}

/** Operations on one collection. Each call is atomic on its own, or part of a transaction. */
export interface Collection<T extends Doc = Doc> {
  get(id: string): Promise<T | null>;
  findOne(filter: Filter): Promise<T | null>;
  find(filter?: Filter, options?: FindOptions): Promise<Page<T>>;
  count(filter?: Filter): Promise<number>;
  /** Inserts a new document; a duplicate `_id` or unique-index value throws `DuplicateKeyError`. */
  insert(doc: T): Promise<void>;
  /** Inserts or replaces the whole document with this `_id`. */
  put(doc: T): Promise<void>;
  /**
   * Applies update operators to the document with this id and returns it as updated, or null
   * when there is none. With `upsert`, a missing document is created from `{ _id }` plus the update.
   */
  update(id: string, update: Update, options?: { upsert?: boolean }): Promise<T | null>;
  /** Applies update operators to every matching document; returns how many matched. */
  updateMany(filter: Filter, update: Update): Promise<number>;
  /** Returns whether a document was deleted. */
  delete(id: string): Promise<boolean>;
  deleteMany(filter: Filter): Promise<number>;
}

/** A unit of work: every write through it commits together or not at all. */
export interface ReadStoreTransaction {
  collection<T extends Doc = Doc>(name: string): Collection<T>;
}

export interface ReadStore {
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  /**
   * Runs `work` so that all its writes commit atomically when it resolves, and none do when it
   * throws. Reads inside see the transaction's own writes. Used by the projection runner to commit
   * read-model writes together with their checkpoint.
   */
  transaction<R>(work: (tx: ReadStoreTransaction) => Promise<R>): Promise<R>;
  /**
   * Declares a collection large: it grows with the log and is read a page at a time through its
   * indexes (an audit log). The embedded store keeps such a collection's documents and index
   * entries on disk instead of in memory; MongoDB needs nothing. It takes no unique index, and
   * its non-indexed reads scan the disk. Idempotent; declare it before its indexes.
   */
  declareLarge(collection: string): Promise<void>;
  /** Creates the index if it does not exist; idempotent. A unique index over duplicates throws. */
  ensureIndex(collection: string, index: IndexSpec): Promise<void>;
  /**
   * Removes collections with their documents and indexes (a missing one is no error). The embedded
   * store removes them in one commit; MongoDB one after the other.
   */
  dropCollections(names: readonly string[]): Promise<void>;
  listCollections(): Promise<string[]>;
  /**
   * A number that moves on every change to committed contents, or null when the store cannot tell
   * (a database other processes write to). Equal versions mean equal contents, so a read answered
   * at one version may be answered again while the version stands (the HTTP response cache).
   */
  contentVersion(): number | null;
  /**
   * Calls `listener` synchronously with what each change to committed contents wrote, before any
   * read sees it; stores that cannot tell (a database other processes write to) lack it. Returns
   * the function that stops the calls.
   */
  onChange?(listener: ReadStoreChangeListener): () => void;
  /** Calls `observer` on every read outside transactions (undefined: no more calls); stores that cannot tell lack it. */
  observeReads?(observer: ReadObserver | undefined): void;
  /**
   * Loads in the background what the store keeps on disk and would otherwise load on first use (the
   * embedded store's collections), once the process has started; stores that load nothing lack it.
   */
  loadInBackground?(): void;
  health(): Promise<{ ok: boolean; detail?: string }>;
  close(): Promise<void>;
}

/** One document a commit wrote: as it was before (null: absent) and after (null: deleted). */
export interface DocumentChange {
  id: string;
  before: Doc | null;
  after: Doc | null;
}
/**
 * What one change to committed contents wrote: per collection, the documents written (put,
 * updated or deleted), or null when the whole collection changed (dropped, moved).
 */
export type ReadStoreChange = ReadonlyMap<string, readonly DocumentChange[] | null>;
export type ReadStoreChangeListener = (change: ReadStoreChange) => void;
/**
 * A read outside transactions: `id` for a read by id (`get`); null for a query (`find`, `findOne`,
 * `count`), with its filter (absent: every document).
 */
export type ReadObserver = (collection: string, id: string | null, filter?: Filter) => void;

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 1000;

export const READ_STORE = Symbol('READ_STORE');
