import { AsyncLocalStorage } from 'node:async_hooks';
import { RouteConfig } from '@nestjs/platform-fastify';

/**
 * Marks a GET route whose 200 answer is a function of the read models, the caller's token and the
 * URL alone: no clock, no event store, no blob store, no randomness. The front door may then answer
 * a repeated request from the response cache without running the handler.
 */
export const CachedRead = () => RouteConfig({ cachedRead: true });

/** Response headers as Fastify holds them. */
export type ReplyHeaders = Record<string, string | number | string[] | undefined>;

export interface CachedResponse {
  payload: string;
  /** The headers the handler set (ETag, content type); per-request ones are set afresh. */
  headers: ReplyHeaders;
}

/** A document one commit wrote, before and after (null: absent), as the read store reports it. */
export interface WrittenDocument {
  id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** What one commit wrote: per collection, its documents, or null for the whole collection. */
export type Written = ReadonlyMap<string, readonly WrittenDocument[] | null>;

/**
 * What the cache needs of the read store (the embedded one has it all): its content version, what
 * each commit wrote, and what is read. A store lacking any of it caches nothing.
 */
export interface TrackedReads {
  contentVersion(): number | null;
  onChange?(listener: (change: Written) => void): () => void;
  observeReads?(observer: ((collection: string, id: string | null, filter?: Record<string, unknown>) => void) | undefined): void;
}

type Scalar = string | number | boolean | null;

/**
 * What one answer read while it was computed, at three grains: documents read by id (or a query
 * naming its `_id`s), queries scoped by a top-level equality (`{ organizationId: X, … }`: only a
 * document with X there before or after the write can change their result), and queries with no
 * such scope (any write to the collection may change them). `stale` once a commit touched something
 * already read before the answer was kept.
 */
export class ReadSet {
  /** `collection\0id`. */
  readonly documents = new Set<string>();
  /** `collection\0field\0value`, value as `scalarKey`. */
  readonly scopes = new Set<string>();
  /** Collections queried with no scope. */
  readonly queries = new Set<string>();
  /** Every collection read at all, for changes that name no documents (a collection dropped). */
  readonly collections = new Set<string>();
  /** Per collection, the fields its scopes test. */
  readonly scopeFields = new Map<string, Set<string>>();
  stale = false;
  constructor(readonly epoch: number) {}

  note(collection: string, id: string | null, filter?: Record<string, unknown>): void {
    this.collections.add(collection);
    if (id !== null) return void this.documents.add(documentKey(collection, id));
    const ids = filter === undefined ? null : idsOf(filter._id);
    if (ids !== null) {
      for (const each of ids) this.documents.add(documentKey(collection, each));
      return;
    }
    const scope = filter === undefined ? null : scopeOf(filter);
    if (scope === null) return void this.queries.add(collection);
    this.scopes.add(scopeKey(collection, scope[0], scope[1]));
    let fields = this.scopeFields.get(collection);
    if (fields === undefined) this.scopeFields.set(collection, (fields = new Set()));
    fields.add(scope[0]);
  }

  touchedBy(collection: string, written: readonly WrittenDocument[] | null): boolean {
    if (!this.collections.has(collection)) return false;
    if (written === null || this.queries.has(collection)) return true;
    const fields = this.scopeFields.get(collection);
    for (const document of written) {
      if (this.documents.has(documentKey(collection, document.id))) return true;
      if (fields === undefined) continue;
      for (const key of scopeKeysOf(collection, fields, document)) if (this.scopes.has(key)) return true;
    }
    return false;
  }
}

const documentKey = (collection: string, id: string) => `${collection}\u0000${id}`;
const scalarKey = (value: Scalar) => (typeof value === 'string' ? `s${value}` : String(value));
const scopeKey = (collection: string, field: string, value: Scalar) => `${collection}\u0000${field}\u0000${scalarKey(value)}`;
const isScalar = (value: unknown): value is Scalar =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

/** The ids a query's `_id` condition names (`'x'` or `{ $in: [...] }` of strings), or null. */
function idsOf(condition: unknown): string[] | null {
  if (typeof condition === 'string') return [condition];
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return null;
  const keys = Object.keys(condition);
  const list = (condition as { $in?: unknown }).$in;
  return keys.length === 1 && Array.isArray(list) && list.every((each) => typeof each === 'string') ? (list as string[]) : null;
}

/** The first top-level equality on a plain field (`field: scalar` or `field: { $eq: scalar }`), or null. */
function scopeOf(filter: Record<string, unknown>): [string, Scalar] | null {
  for (const field of Object.keys(filter)) {
    if (field.startsWith('$') || field.includes('.') || field === '_id') continue;
    const condition = filter[field];
    if (isScalar(condition)) return [field, condition];
    if (condition !== null && typeof condition === 'object' && !Array.isArray(condition)) {
      const keys = Object.keys(condition);
      const value = (condition as { $eq?: unknown }).$eq;
      if (keys.length === 1 && keys[0] === '$eq' && isScalar(value)) return [field, value];
    }
  }
  return null;
}

/**
 * The scopes a written document may fall in, before or after: per scoped field, its value (a
 * missing field equals null, as in MongoDB; each scalar element of an array, which an equality
 * matches too).
 */
function* scopeKeysOf(collection: string, fields: Iterable<string>, document: WrittenDocument): Iterable<string> {
  for (const field of fields) {
    for (const version of [document.before, document.after]) {
      if (version === null) continue;
      const value = Object.prototype.hasOwnProperty.call(version, field) ? version[field] : null;
      if (isScalar(value)) yield scopeKey(collection, field, value);
      else if (Array.isArray(value)) {
        yield scopeKey(collection, field, null);
        for (const element of value) if (isScalar(element)) yield scopeKey(collection, field, element);
      }
    }
  }
}

interface Entry extends CachedResponse {
  reads: ReadSet;
}

/** Headers the front door or Fastify set for each request anew: never replayed from the cache. */
const PER_REQUEST = new Set(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-length']);
/** Answers being computed past which they are all forgotten (a leak guard: each normally ends in `keep` or `abandon`). */
const MAX_IN_FLIGHT = 10_000;

/**
 * Answers of @CachedRead routes, each kept until a commit writes something it read.
 *
 * Sound because the read side is a pure function of the log: the same token and URL get the same
 * answer as long as nothing the handler read has changed, including whether the token is still
 * valid (the token's verification is read in the same read set, and revoking it is a read-model
 * change). While an answer is computed, the read store's reads are recorded in its read set (an
 * AsyncLocalStorage around the token check and the handler; `ReadSet`): a read by id as its
 * document, a query by its scope or as its whole collection. Every commit reports the documents it
 * wrote, before and after, synchronously, before any read can see them; entries whose read set it
 * touches are dropped, and an answer being computed whose reads so far it touches is not kept. A
 * change to the contents that came without such a report (the store's version moved past the last
 * one) forgets everything. Everything an answer depends on must be read through the read store
 * within the request (no in-process memo of read-model data on these routes).
 *
 * Only stores that report their writes and reads (the embedded one) support it; with a database
 * written by a separate projector nothing is cached. Bounded in entries and in bytes; large
 * answers (long lists) are not kept.
 */
export class ResponseCache {
  private entries = new Map<string, Entry>();
  /** Keys of entries by what invalidates them (the keys of `ReadSet`): unscoped queries, documents, scopes, any read of a collection. */
  private byQuery = new Map<string, Set<string>>();
  private byDocument = new Map<string, Set<string>>();
  private byScope = new Map<string, Set<string>>();
  private byCollection = new Map<string, Set<string>>();
  /** Per collection, the fields kept entries' scopes test (only grows until a reset: a handful of fields). */
  private scopeFields = new Map<string, Set<string>>();
  private readonly inFlight = new Set<ReadSet>();
  private readonly reading = new AsyncLocalStorage<ReadSet>();
  private bytes = 0;
  /** Moves whenever everything is forgotten: answers computed across it are not kept. */
  private epoch = 0;
  /** The store's content version as of the last change it reported. */
  private version: number | null;
  readonly enabled: boolean;
  /** Lookups answered and not, since the start (`http_response_cache_lookups`). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    private readonly store: TrackedReads | null,
    private readonly limits = { entries: 10_000, bytes: 32 * 1024 * 1024, entryBytes: 256 * 1024 },
  ) {
    this.version = store?.contentVersion() ?? null;
    this.enabled =
      store !== null && this.version !== null && typeof store.onChange === 'function' && typeof store.observeReads === 'function';
    if (!this.enabled || store === null) return;
    store.onChange!((change) => this.changed(change));
    store.observeReads!((collection, id, filter) => this.reading.getStore()?.note(collection, id, filter));
  }

  get(key: string): CachedResponse | undefined {
    if (!this.enabled) return undefined;
    this.checkVersion();
    const entry = this.entries.get(key);
    if (entry === undefined) this.stats.misses++;
    else this.stats.hits++;
    return entry;
  }

  /** A read set for an answer about to be computed (run it within `track`). */
  begin(): ReadSet {
    this.checkVersion();
    if (this.inFlight.size >= MAX_IN_FLIGHT) this.reset();
    const reads = new ReadSet(this.epoch);
    this.inFlight.add(reads);
    return reads;
  }

  /** Runs `work` (and whatever it continues asynchronously) recording the read store's reads in `reads`. */
  track<R>(reads: ReadSet, work: () => R): R {
    return this.reading.run(reads, work);
  }

  /** Keeps an answer computed with `reads`, unless something it read changed meanwhile. */
  keep(key: string, reads: ReadSet, payload: string, headers: ReplyHeaders): void {
    this.inFlight.delete(reads);
    this.checkVersion();
    if (reads.stale || reads.epoch !== this.epoch || payload.length > this.limits.entryBytes) return;
    this.remove(key);
    if (this.entries.size >= this.limits.entries || this.bytes + payload.length > this.limits.bytes) this.reset();
    const kept: ReplyHeaders = {};
    for (const name of Object.keys(headers)) if (!PER_REQUEST.has(name)) kept[name] = headers[name];
    this.bytes += payload.length;
    this.entries.set(key, { payload, headers: kept, reads });
    for (const collection of reads.queries) index(this.byQuery, collection, key);
    for (const document of reads.documents) index(this.byDocument, document, key);
    for (const scope of reads.scopes) index(this.byScope, scope, key);
    for (const collection of reads.collections) index(this.byCollection, collection, key);
    for (const [collection, fields] of reads.scopeFields) for (const field of fields) index(this.scopeFields, collection, field);
  }

  /** An answer that will not be kept (an error, an aborted request). */
  abandon(reads: ReadSet): void {
    this.inFlight.delete(reads);
  }

  get size(): number {
    return this.entries.size;
  }

  private changed(change: Written): void {
    this.version = this.store!.contentVersion();
    for (const [collection, written] of change) {
      for (const reads of this.inFlight) if (!reads.stale && reads.touchedBy(collection, written)) reads.stale = true;
      if (written === null) {
        this.removeAll(this.byCollection.get(collection));
        continue;
      }
      if (!this.byCollection.has(collection)) continue;
      this.removeAll(this.byQuery.get(collection));
      const fields = this.scopeFields.get(collection);
      for (const document of written) {
        this.removeAll(this.byDocument.get(documentKey(collection, document.id)));
        if (fields !== undefined) for (const scope of scopeKeysOf(collection, fields, document)) this.removeAll(this.byScope.get(scope));
      }
    }
  }

  /** A change the store did not report (its version moved without a notice): nothing kept can be trusted. */
  private checkVersion(): void {
    const version = this.store?.contentVersion() ?? null;
    if (version === this.version) return;
    this.version = version;
    this.reset();
  }

  private removeAll(keys: Set<string> | undefined): void {
    if (keys === undefined) return;
    for (const key of [...keys]) this.remove(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.payload.length;
    for (const collection of entry.reads.queries) unindex(this.byQuery, collection, key);
    for (const document of entry.reads.documents) unindex(this.byDocument, document, key);
    for (const scope of entry.reads.scopes) unindex(this.byScope, scope, key);
    for (const collection of entry.reads.collections) unindex(this.byCollection, collection, key);
  }

  private reset(): void {
    this.entries = new Map();
    this.byQuery = new Map();
    this.byDocument = new Map();
    this.byScope = new Map();
    this.scopeFields = new Map();
    this.byCollection = new Map();
    this.bytes = 0;
    this.epoch++;
    this.inFlight.clear();
  }
}

function index(map: Map<string, Set<string>>, at: string, key: string): void {
  let keys = map.get(at);
  if (keys === undefined) map.set(at, (keys = new Set()));
  keys.add(key);
}

function unindex(map: Map<string, Set<string>>, at: string, key: string): void {
  const keys = map.get(at);
  if (keys === undefined) return;
  keys.delete(key);
  if (keys.size === 0) map.delete(at);
}
