/**
 * The embedded read store: named collections of JSON documents held in process memory, queried with
 * MongoDB syntax through mingo, persisted through LMDB when opened on a file. How it stores, indexes,
 * counts and isolates transactions: docs/read-side.md, The embedded read store.
 */
import { LRUCache } from 'lru-cache';
import { Context } from 'mingo/core';
import * as queryOperators from 'mingo/operators/query';
import { Query } from 'mingo/query';
import { DuplicateKeyError, ReadStoreInputError, ReadStoreUnavailableError } from '../errors';
import type {
  Collection,
  Doc,
  Filter,
  FindOptions,
  IndexSpec,
  Page,
  DocumentChange,
  ReadObserver,
  ReadStore,
  ReadStoreChangeListener,
  ReadStoreTransaction,
  Update,
} from '../read-store.port';
import { afterCursorFilter, checkLimit, encodeCursor, normalizeSort, readCursor, type SortSpec } from '../pagination';
import { cloneIn, cloneOut } from './json-value';
import { deepFreeze } from '#platform/plain-object';
import { compareValues, resolvePath, sortKeyValue, splitPath } from './paths';
import { applyUpdate, parseUpdate, type ParsedUpdate } from './update-engine';
import { EqualityLookup, indexEqualities, scalarEqualities, type Scalar } from './equality-lookups';
import { SortedIndex } from './sorted-index';
import { scalarConditions, type ScalarTest } from './scalar-conditions';
import { MaintainedCounts } from './maintained-counts';
import { ReadModelFile, type DocumentWrite, type ReadModelFileOptions } from './read-model-file';
import { UnwrittenCommits } from './unwritten-commits';
import { ChangeNotifications } from './change-notifications';
import { log } from '#platform/logging';
import { asStorageFull, StorageFullError } from '#platform/storage-full';
import { idOf, storageString, valuesParts, type LargeCollections, type LargeWrite } from './large-collections';

// Filters use query operators only: mingo's main entry would also load its expression, accumulator,
// pipeline and window operators (200 ms to load against 65, on a start of about 2.3 s).
const QUERY_OPTIONS = { scriptEnabled: false, context: Context.init({ query: queryOperators }) };

// ---------------------------------------------------------------------------------------------
// Committed state

interface IndexDefinition {
  /** Identity of the index: its fields with directions. */
  readonly key: string;
  /** Canonical form of the whole spec, to tell an idempotent repeat from a conflicting one. */
  readonly canonical: string;
  /** The fields joined by ',' (the name `DuplicateKeyError` reports). */
  readonly name: string;
  readonly fields: string[];
  readonly directions: (1 | -1)[];
  readonly paths: string[][];
  readonly unique: boolean;
  readonly partial?: CompiledFilter;
}

interface UniqueIndex {
  readonly definition: IndexDefinition;
  /** Canonical key → `_id` of the document holding it. */
  readonly entries: Map<string, string>;
}

/** How a read walks a sorted index (`CollectionState.indexPlan`): in memory, or a large collection's entries on disk. */
interface IndexPlan<I = SortedIndex> {
  index: I;
  /** Values of the leading index fields the filter sets (null: null or missing): the range walked. */
  prefix: (Scalar | null)[];
  /** Whether those equalities are the whole filter (every entry of the range matches). */
  exact: boolean;
  /** Whether the sort runs against the index's directions (the range is walked from its end). */
  backward: boolean;
  /** How many index fields after the prefix are sort fields. */
  walked: number;
  /** Whether prefix and sort fields are all the index's fields (entries with equal values are then in `_id` order). */
  wholeKey: boolean;
}

/** An index of a large collection, as a plan walks it: its definition and its entries' name in the file. */
interface LargeIndexRef {
  readonly definition: IndexDefinition;
  readonly tag: string;
}

/** What an equality lookup answers: ids that hold the values, and ids it cannot tell about. */
interface Lookup {
  candidates(values: readonly Scalar[]): { keyed: Iterable<string> | undefined; unkeyed: Iterable<string> };
}

class CollectionState {
  /** The documents, unless the collection is large (then in `large`). */
  readonly docs = new Map<string, Doc>();
  readonly indexes: IndexDefinition[] = [];
  readonly unique: UniqueIndex[] = [];
  /** Equality lookups over leading fields of the declared indexes, by their fields joined with ','; built on first use. */
  readonly lookups = new Map<string, EqualityLookup>();
  /** Sorted indexes of the declared indexes, by their key; built on first use. */
  readonly sorted = new Map<string, SortedIndex>();
  /** Counts of filters already counted, kept up to date by every commit. */
  readonly counts = new MaintainedCounts();
  /** @param large set for a large collection: its documents and index entries live in this file, not in `docs`. */
  constructor(
    readonly name: string,
    readonly large?: LargeCollections,
  ) {}

  /**
   * A large collection's writes committed and handed to the file but not written yet, by id (null:
   * deleted), with the number of the commit that made each: reads take these before the file's.
   */
  readonly pending = new Map<string, { doc: Doc | null; commit: number }>();

  get(id: string): Doc | undefined {
    if (!this.large) return this.docs.get(id);
    const pending = this.pending.get(id);
    return pending ? (pending.doc ?? undefined) : this.large.get(this.name, id);
  }

  /** Every document (a large collection's read from disk as iterated, its pending writes over it). */
  *values(): Iterable<Doc> {
    if (!this.large) return yield* this.docs.values();
    for (const doc of this.large.scan(this.name)) if (!this.pending.has(doc._id)) yield doc;
    for (const { doc } of this.pending.values()) if (doc) yield doc;
  }

  /** A large collection's pending documents, those a read must add to what the file answers. */
  pendingDocs(): Doc[] {
    const docs: Doc[] = [];
    for (const { doc } of this.pending.values()) if (doc) docs.push(doc);
    return docs;
  }

  /** How many documents matching `query` the pending writes add (or remove, when negative) to what the file holds. */
  pendingDelta(query: CompiledFilter | null): number {
    let delta = 0;
    for (const [id, { doc }] of this.pending) {
      const stored = this.large!.get(this.name, id);
      delta += (doc && test(query, doc) ? 1 : 0) - (stored && test(query, stored) ? 1 : 0);
    }
    return delta;
  }

  /** Whether a large collection's index may answer reads: the file's entries hold every document, and no pending one is irregular. */
  private largeUsable(definition: IndexDefinition): boolean {
    if (!this.large!.usable(this.name, definition.key)) return false;
    for (const { doc } of this.pending.values())
      if (doc && valuesParts(definition.paths.map((path) => resolvePath(doc, path))) === null) return false;
    return true;
  }

  /** The sorted index of a declared index, built from the committed documents on first use. */
  sortedIndex(definition: IndexDefinition): SortedIndex {
    let index = this.sorted.get(definition.key);
    if (!index)
      this.sorted.set(
        definition.key,
        (index = new SortedIndex(definition.fields, definition.paths, definition.directions, this.docs.values())),
      );
    return index;
  }

  /** How a read walks a sorted index in memory (`choosePlan`); null for a large collection. */
  indexPlan(filter: Filter | undefined, sort: SortSpec | null): IndexPlan | null {
    if (this.large) return null;
    return choosePlan(
      this.indexes,
      filter,
      sort,
      (definition) => definition.directions,
      (definition) => {
        const index = this.sortedIndex(definition);
        return index.usable ? index : null;
      },
    );
  }

  /** How a read walks a large collection's index entries (`choosePlan`): every field is stored ascending. */
  largePlan(filter: Filter | undefined, sort: SortSpec | null): IndexPlan<LargeIndexRef> | null {
    const large = this.large!;
    return choosePlan(
      this.indexes,
      filter,
      sort,
      (definition) => definition.fields.map(() => 1),
      (definition) => (this.largeUsable(definition) ? { definition, tag: large.tagOf(definition.key) } : null),
    );
  }

  /**
   * The lookup for the longest run of leading index fields that `filter` sets to scalars, and the
   * values it sets them to; `exact` when those equalities are the whole filter.
   */
  lookupFor(filter: Filter): { lookup: Lookup; values: Scalar[]; exact: boolean } | null {
    if (this.indexes.length === 0) return null;
    const { equalities, conditions } = scalarEqualities(filter);
    if (equalities.size === 0) return null;
    let best: IndexDefinition | undefined;
    let length = 0;
    for (const definition of this.indexes) {
      if (this.large && !this.largeUsable(definition)) continue;
      let n = 0;
      while (n < definition.fields.length && equalities.has(definition.fields[n])) n++;
      if (n > length) [best, length] = [definition, n];
    }
    if (!best) return null;
    const values = best.fields.slice(0, length).map((field) => equalities.get(field)!);
    if (this.large) {
      // The entries whose leading values are these: ids read from the keys, no document fetched; pending documents to test.
      const [large, tag] = [this.large, this.large.tagOf(best.key)];
      const lookup: Lookup = {
        candidates: (probe) => ({
          keyed: Array.from(large.walk(this.name, tag, valuesParts(probe)!, undefined, false), idOf).filter((id) => !this.pending.has(id)),
          unkeyed: this.pendingDocs().map((doc) => doc._id),
        }),
      };
      return { lookup, values, exact: conditions === length };
    }
    const fields = best.fields.slice(0, length);
    const name = fields.join(',');
    let lookup = this.lookups.get(name);
    if (!lookup) this.lookups.set(name, (lookup = new EqualityLookup(fields, best.paths.slice(0, length), this.docs.values())));
    return { lookup, values, exact: conditions === length };
  }
}

/**
 * The declared index that answers `filter` in `sort` order by a walk over one range: the longest
 * run of its leading fields set to scalars by the filter (the range), then the sort's fields (less
 * those the range fixes) as the next fields of the index, all in its directions (`directions`: how
 * the walked structure orders each field) or all against. With no sort field left, the range must
 * cover every field (its entries are then in `_id` order). `usable` gives the index to walk, or
 * null when it cannot answer reads.
 */
function choosePlan<I>(
  indexes: readonly IndexDefinition[],
  filter: Filter | undefined,
  sort: SortSpec | null,
  directionsOf: (definition: IndexDefinition) => readonly (1 | -1)[],
  usable: (definition: IndexDefinition) => I | null,
): IndexPlan<I> | null {
  if (indexes.length === 0) return null;
  const { equalities, conditions } = filter ? indexEqualities(filter) : { equalities: new Map<string, Scalar | null>(), conditions: 0 };
  let best: IndexPlan<I> | null = null;
  let bestScore = -1;
  for (const definition of indexes) {
    const directions = directionsOf(definition);
    let k = 0;
    while (k < definition.fields.length && equalities.has(definition.fields[k])) k++;
    let backward = false;
    let walked = 0;
    if (sort) {
      const fixed = new Set(definition.fields.slice(0, k));
      const rest = sort.slice(0, -1).filter(([field]) => !fixed.has(field));
      if (rest.length === 0 && k < definition.fields.length) continue;
      if (rest.length > definition.fields.length - k) continue;
      let sign = 0;
      let fits = true;
      for (let i = 0; i < rest.length && fits; i++) {
        const [field, direction] = rest[i];
        const relative = direction * directions[k + i];
        fits = field === definition.fields[k + i] && (sign === 0 || sign === relative);
        sign = relative;
      }
      if (!fits) continue;
      if (rest.length === 0) sign = sort[sort.length - 1][1];
      backward = sign === -1;
      walked = rest.length;
    } else if (k === 0) continue;
    const score = k * 100 + walked;
    if (score <= bestScore) continue;
    const index = usable(definition);
    if (index === null) continue;
    bestScore = score;
    best = {
      index,
      prefix: definition.fields.slice(0, k).map((field) => equalities.get(field)!),
      exact: conditions === k,
      backward,
      walked,
      wholeKey: k + walked === definition.fields.length,
    };
  }
  return best;
}

/** The keys a document takes in a unique index, or null when a partial filter leaves it out. */
function indexKeys(definition: IndexDefinition, doc: Doc): string[] | null {
  if (definition.partial && !definition.partial.test(doc)) return null;
  const { paths } = definition;
  if (paths.length === 1) {
    const value = resolvePath(doc, paths[0]);
    if (!Array.isArray(value)) return [JSON.stringify([value === undefined ? null : value])];
  }
  // Compound and/or multikey: one key per combination of array elements (MongoDB's multikey rule).
  let tuples: unknown[][] = [[]];
  for (const path of paths) {
    const value = resolvePath(doc, path);
    const choices = Array.isArray(value) ? (value.length > 0 ? dedupe(value) : [[]]) : [value === undefined ? null : value];
    const next: unknown[][] = [];
    for (const tuple of tuples) for (const choice of choices) next.push([...tuple, choice]);
    tuples = next;
  }
  return [...new Set(tuples.map((tuple) => JSON.stringify(tuple)))];
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Map<string, unknown>();
  for (const value of values) seen.set(JSON.stringify(value), value);
  return [...seen.values()];
}

function duplicateKey(collection: string, definition: IndexDefinition, key: string): DuplicateKeyError {
  const values = JSON.parse(key) as unknown[];
  const keyValue: Record<string, unknown> = {};
  definition.fields.forEach((field, i) => (keyValue[field] = values[i]));
  return new DuplicateKeyError(collection, definition.name, keyValue);
}

// ---------------------------------------------------------------------------------------------
// Reading

/** What reads need from a collection: committed state, or committed state under an overlay. */
interface DocSource {
  lookup(id: string): Doc | undefined;
  all(): Iterable<Doc>;
  /** The documents that may match `filter`, through an equality lookup; null when none applies (scan). */
  candidates(filter: Filter): Candidates | null;
  /** Committed state, when the source is exactly that (reads may then use its sorted indexes and kept counts). */
  readonly committed?: CollectionState;
}

interface Candidates {
  /** Documents that match by construction (the filter is exactly the lookup's equalities). */
  matching: Iterable<Doc>;
  /** Documents to test against the filter. */
  maybe: Iterable<Doc>;
}

const EMPTY_SOURCE: DocSource = { lookup: () => undefined, all: () => [], candidates: () => null };

function committedSource(state: CollectionState | undefined): DocSource {
  if (!state) return EMPTY_SOURCE;
  return {
    committed: state,
    lookup: (id) => state.get(id),
    all: () => state.values(),
    candidates(filter) {
      const plan = state.lookupFor(filter);
      if (!plan) return null;
      const { keyed, unkeyed } = plan.lookup.candidates(plan.values);
      const docsOf = (ids: Iterable<string>) => Array.from(ids, (id) => state.get(id)!);
      const keyedDocs = keyed ? docsOf(keyed) : [];
      return plan.exact ? { matching: keyedDocs, maybe: docsOf(unkeyed) } : { matching: [], maybe: [...keyedDocs, ...docsOf(unkeyed)] };
    },
  };
}

/** Keeps `selected` the first `size` documents in `compare` order, `doc` put in its place (a page and one more). */
function keepFirst(selected: Doc[], doc: Doc, size: number, compare: (a: Doc, b: Doc) => number): void {
  if (selected.length >= size && compare(doc, selected[size - 1]) >= 0) return;
  // A walk along an index comes in sort order: its next document goes last, after one comparison.
  if (selected.length < size && (selected.length === 0 || compare(selected[selected.length - 1], doc) <= 0)) {
    selected.push(doc);
    return;
  }
  let low = 0;
  let high = selected.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(selected[middle], doc) <= 0) low = middle + 1;
    else high = middle;
  }
  selected.splice(low, 0, doc);
  if (selected.length > size) selected.pop();
}

/**
 * Compiled filters by their JSON: compiling a mingo Query copies every operator table (the API
 * benchmark found it on most read paths, docs/performance.md), while the same filters come back
 * request after request. A Query tests documents without keeping state, so one serves every call.
 */
const COMPILED = new LRUCache<string, CompiledFilter>({
  max: 2000,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_query, key) => key.length + 512,
});
/** Filters longer than this (long `$in` lists of ids) are compiled for each call rather than kept. */
const MAX_CACHED_FILTER = 4096;

/** Whether the filter is plain JSON (so its JSON names it exactly): no RegExp, Date or other object. */
function plainJson(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
    return true;
  if (depth > 32 || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.every((item) => plainJson(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Object.values(value).every((item) => plainJson(item, depth + 1));
}

/**
 * A filter compiled: mingo's Query, behind the scalar shortcut (`scalar-conditions.ts`) when the
 * filter's conditions allow one; the shortcut answers whenever the tested fields hold scalars.
 */
class CompiledFilter {
  constructor(
    private readonly query: Query,
    private readonly scalar: ScalarTest | null,
  ) {}

  test(doc: Doc): boolean {
    if (this.scalar !== null) {
      const answer = this.scalar(doc);
      if (answer !== undefined) return answer;
    }
    return this.query.test(doc);
  }
}

function compileFilter(filter: Filter | undefined): CompiledFilter | null {
  if (filter === undefined || filter === null) return null;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw new ReadStoreInputError('filter must be an object');
  if (Object.keys(filter).length === 0) return null;
  const text = plainJson(filter) ? JSON.stringify(filter) : null;
  const key = text !== null && text.length <= MAX_CACHED_FILTER ? text : null;
  const cached = key === null ? undefined : COMPILED.get(key);
  if (cached) return cached;
  let query: CompiledFilter;
  try {
    // mingo compiles first, so that a filter it refuses is refused whatever the shortcut would make of it.
    query = new CompiledFilter(new Query(filter, QUERY_OPTIONS), text === null ? null : scalarConditions(filter));
  } catch (error) {
    throw new ReadStoreInputError(`invalid filter: ${(error as Error)?.message ?? String(error)}`);
  }
  if (key !== null) COMPILED.set(key, query);
  return query;
}

function test(query: CompiledFilter | null, doc: Doc): boolean {
  if (query === null) return true;
  try {
    return query.test(doc);
  } catch (error) {
    throw new ReadStoreInputError(`invalid filter: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** The `_id` a filter of the exact form `{ _id: '<string>' }` selects, for a direct lookup. */
function idOnly(filter: Filter | undefined): string | undefined {
  if (!filter || typeof filter !== 'object') return undefined;
  let id: string | undefined;
  for (const key in filter) {
    if (key !== '_id' || id !== undefined) return undefined;
    const value = (filter as Record<string, unknown>)[key];
    if (typeof value !== 'string') return undefined;
    id = value;
  }
  return id;
}

/**
 * The ids a filter's `_id` condition names, when it is a string or `{ $in: [strings] }` (each id
 * once); undefined otherwise. `byIds` and the like ask for a page's documents this way.
 */
function idList(filter: Filter | undefined): string[] | undefined {
  if (!filter || typeof filter !== 'object' || !Object.prototype.hasOwnProperty.call(filter, '_id')) return undefined;
  const condition = (filter as Record<string, unknown>)._id;
  if (typeof condition === 'string') return [condition];
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return undefined;
  const keys = Object.keys(condition);
  const ids = (condition as Record<string, unknown>).$in;
  if (keys.length !== 1 || !Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) return undefined;
  return [...new Set(ids as string[])];
}

/**
 * Visits each document of `source` matching `filter` once, until `visit` answers true. An `_id`
 * filter is one map access per id named (the rest of the filter, if any, tested on those); scalar
 * equalities on leading index fields go through an equality lookup (no mingo query at all when
 * they are the whole filter); anything else scans with a mingo query.
 */
function eachMatch(source: DocSource, filter: Filter | undefined, visit: (doc: Doc) => boolean | void): void {
  const id = idOnly(filter);
  if (id !== undefined) {
    const doc = source.lookup(id);
    if (doc) visit(doc);
    return;
  }
  const ids = idList(filter);
  if (ids !== undefined) {
    const query = Object.keys(filter!).length === 1 ? null : compileFilter(filter);
    for (const named of ids) {
      const doc = source.lookup(named);
      if (doc && (query === null || test(query, doc)) && visit(doc) === true) return;
    }
    return;
  }
  const candidates =
    filter !== undefined && filter !== null && typeof filter === 'object' && !Array.isArray(filter) ? source.candidates(filter) : null;
  if (candidates) {
    for (const doc of candidates.matching) if (visit(doc) === true) return;
    let query: CompiledFilter | null | undefined;
    for (const doc of candidates.maybe) {
      query ??= compileFilter(filter);
      if (test(query, doc) && visit(doc) === true) return;
    }
    return;
  }
  const query = compileFilter(filter);
  for (const doc of source.all()) if (test(query, doc) && visit(doc) === true) return;
}

/** Documents of `source` matching `filter`, each visited once. */
function matching(source: DocSource, filter: Filter | undefined): Doc[] {
  const out: Doc[] = [];
  eachMatch(source, filter, (doc) => void out.push(doc));
  return out;
}

function sortComparator(sort: SortSpec): (a: Doc, b: Doc) => number {
  const keys = sort.map(([field, direction]) => ({ segments: splitPath(field, 'sort'), direction }));
  return (a, b) => {
    for (const { segments, direction } of keys) {
      const order = compareValues(sortKeyValue(a, segments), sortKeyValue(b, segments));
      if (order !== 0) return order * direction;
    }
    return 0;
  };
}

function checkId(id: unknown, what = '_id'): string {
  if (typeof id !== 'string') throw new ReadStoreInputError(`${what} must be a string`);
  return id;
}

function readDoc<T extends Doc>(doc: Doc | undefined, shared = false): T | null {
  return doc ? handOut<T>(doc, shared) : null;
}

/**
 * A document as a read answers it. Outside transactions (`shared`), the stored document itself,
 * frozen (deeply, once): stored documents are never changed in place (an update stores a changed
 * copy), so readers can share them, and copying every document of every read was a tenth of a
 * GET's time. Inside a transaction, and for what a write answers, a copy the caller may change
 * (projections read, change and write back).
 */
function handOut<T extends Doc>(doc: Doc, shared: boolean): T {
  return (shared ? deepFreeze(doc) : cloneOut(doc)) as T;
}

function findIn<T extends Doc>(source: DocSource, filter: Filter | undefined, options: FindOptions = {}, shared = false): Page<T> {
  if (options === null || typeof options !== 'object') throw new ReadStoreInputError('find options must be an object');
  const limit = checkLimit(options.limit);
  const sort = normalizeSort(options.sort);
  const cursor = options.after === undefined || options.after === null ? undefined : readCursor(options.after, sort, filter ?? {});
  if (filter !== undefined && filter !== null) checkFilter(filter);
  const committed = source.committed && idList(filter ?? undefined) === undefined ? source.committed : undefined;
  if (committed?.large) {
    const largePlan = committed.largePlan(filter ?? undefined, sort);
    if (largePlan) return findOnLarge<T>(committed, largePlan, filter ?? undefined, sort, limit, cursor, options.count !== false, shared);
  }
  const plan = committed?.indexPlan(filter ?? undefined, sort);
  if (plan) return findOnIndex<T>(committed!, plan, filter ?? undefined, sort, limit, cursor, options.count !== false, shared);
  const afterQuery = cursor === undefined ? null : compileFilter(afterCursorFilter(sort, cursor.values));
  // Keeps only the first `limit + 1` documents in sort order (binary insertion) rather than
  // collecting and sorting every match: a page costs one pass, not a sort of the collection.
  const compare = sortComparator(sort);
  let count = 0;
  const selected: Doc[] = [];
  eachMatch(source, filter, (doc) => {
    count++;
    if (afterQuery !== null && !test(afterQuery, doc)) return;
    keepFirst(selected, doc, limit + 1, compare);
  });
  const hasMore = selected.length > limit;
  const items = (hasMore ? selected.slice(0, limit) : selected).map((doc) => handOut<T>(doc, shared));
  // Same count rule as MongoDB: a later page keeps the count its cursor carries (as of the first page).
  const total = cursor?.count ?? count;
  const page: Page<T> = { items, count: options.count === false ? items.length : total };
  if (hasMore)
    page.next = encodeCursor(items[items.length - 1], sort, options.count === false ? undefined : { filter: filter ?? {}, count: total });
  return page;
}

/**
 * A page read by walking a sorted index (`CollectionState.indexPlan`): from the cursor's position
 * (or the range's start) in sort order (`pageFromWalk`). The count is the range's width when the
 * range is the filter, otherwise a kept count.
 */
function findOnIndex<T extends Doc>(
  state: CollectionState,
  plan: IndexPlan,
  filter: Filter | undefined,
  sort: SortSpec,
  limit: number,
  cursor: { values: unknown[]; count?: number } | undefined,
  counting: boolean,
  shared: boolean,
): Page<T> {
  const { index, prefix, backward } = plan;
  const seek = cursor ? cursorSeek(plan, index.fields, sort, cursor.values) : null;
  const probe = seek ? [...prefix, ...seek.walkedValues] : prefix;
  const byId = seek !== null && plan.wholeKey && sort[sort.length - 1][1] === 1;
  const entries = backward
    ? index.backward(index.seek(probe, undefined, true))
    : index.forward(index.seek(probe, byId ? (seek.lastId as string) : undefined, false));
  function* docs(): Iterable<Doc> {
    for (const entry of entries) {
      if (prefix.length > 0 && index.compare(entry, prefix) !== 0) return;
      yield entry.doc;
    }
  }
  return pageFromWalk<T>(docs(), [], plan, filter, sort, limit, cursor, counting, shared, (query) =>
    countOnIndex(state, plan, filter, query),
  );
}

/**
 * Where a cursor starts a walk: its values of the walked fields (in index order after the
 * prefix), and its `_id`; null when the cursor disagrees with the range on a field the range fixes
 * (not a cursor of this query): the walk then starts at the range's start, every entry tested.
 */
function cursorSeek(
  plan: IndexPlan<unknown>,
  fields: readonly string[],
  sort: SortSpec,
  values: readonly unknown[],
): { walkedValues: unknown[]; lastId: unknown } | null {
  const fixed = fields.slice(0, plan.prefix.length);
  const agrees = sort.every(([field], i) => !fixed.includes(field) || compareValues(values[i], plan.prefix[fixed.indexOf(field)]) === 0);
  if (!agrees) return null;
  const walkedValues = sort.slice(0, -1).flatMap(([field], i) => (fixed.includes(field) ? [] : [values[i]]));
  return { walkedValues: walkedValues.slice(0, plan.walked), lastId: values[values.length - 1] };
}

/**
 * A page from documents in a plan's walk order (and `extra` documents, in any order, tested against
 * the whole filter): each tested against the cursor and, unless the range is the filter, the
 * filter, until `limit + 1` documents are found and the next one sorts strictly after the last of
 * them. With the whole key fixed or walked and `_id` walked in the sort's direction (and no extra
 * documents), the walk comes in exactly the sort order and the page is complete with its first
 * `limit + 1` matches (a list sorted by `_id` alone, on an index of its equalities, would
 * otherwise walk its whole range).
 */
function pageFromWalk<T extends Doc>(
  docs: Iterable<Doc>,
  extra: readonly Doc[],
  plan: IndexPlan<unknown>,
  filter: Filter | undefined,
  sort: SortSpec,
  limit: number,
  cursor: { values: unknown[]; count?: number } | undefined,
  counting: boolean,
  shared: boolean,
  count: (query: CompiledFilter | null) => number,
): Page<T> {
  const compare = sortComparator(sort);
  const compareFields = sortComparator(sort.slice(0, -1));
  const query = plan.exact ? null : compileFilter(filter);
  const afterCursor = cursor ? afterCursorTest(sort, cursor.values) : null;
  const selected: Doc[] = [];
  if (extra.length > 0) {
    const whole = compileFilter(filter);
    for (const doc of extra)
      if ((afterCursor === null || afterCursor(doc)) && test(whole, doc)) keepFirst(selected, doc, limit + 1, compare);
  }
  const ordered = extra.length === 0 && plan.wholeKey && sort[sort.length - 1][1] === (plan.backward ? -1 : 1);
  for (const doc of docs) {
    if (selected.length > limit && (ordered || compareFields(doc, selected[limit]) > 0)) break;
    if (afterCursor !== null && !afterCursor(doc)) continue;
    if (query !== null && !test(query, doc)) continue;
    keepFirst(selected, doc, limit + 1, compare);
  }
  const hasMore = selected.length > limit;
  const items = (hasMore ? selected.slice(0, limit) : selected).map((doc) => handOut<T>(doc, shared));
  const total = !counting ? items.length : (cursor?.count ?? count(query));
  const page: Page<T> = { items, count: total };
  if (hasMore) page.next = encodeCursor(items[items.length - 1], sort, counting ? { filter: filter ?? {}, count: total } : undefined);
  return page;
}

/**
 * The count kept for `filter`, else the one `measure` takes, kept from then on when the filter is
 * small enough to keep: every commit moves it, testing each write with the query `measure` gives.
 */
function keptCount(
  state: CollectionState,
  filter: Filter | undefined,
  measure: () => { count: number; query: CompiledFilter | null },
): number {
  const key = MaintainedCounts.keyOf(filter);
  const kept = key === null ? undefined : state.counts.get(key);
  if (kept !== undefined) return kept;
  const { count, query } = measure();
  if (key !== null) state.counts.set(key, filter, query, count);
  return count;
}

/** The number of documents matching `filter` within a plan's range: its width when the range is the filter, else a kept count. */
function countOnIndex(state: CollectionState, plan: IndexPlan, filter: Filter | undefined, query: CompiledFilter | null): number {
  const { index, prefix } = plan;
  if (plan.exact) return index.rank(index.seek(prefix, undefined, true)) - index.rank(index.seek(prefix, undefined, false));
  return keptCount(state, filter, () => {
    let count = 0;
    for (const entry of index.forward(index.seek(prefix, undefined, false))) {
      if (prefix.length > 0 && index.compare(entry, prefix) !== 0) break;
      if (query === null || test(query, entry.doc)) count++;
    }
    return { count, query };
  });
}

/**
 * `findOnIndex` for a large collection: the same walk over its index entries on disk (`walk`, from
 * the cursor's values of the walked fields), fetching each document it visits; its pending
 * documents (not in the file yet) join the page from memory, and the walk passes over their ids.
 */
function findOnLarge<T extends Doc>(
  state: CollectionState,
  plan: IndexPlan<LargeIndexRef>,
  filter: Filter | undefined,
  sort: SortSpec,
  limit: number,
  cursor: { values: unknown[]; count?: number } | undefined,
  counting: boolean,
  shared: boolean,
): Page<T> {
  const large = state.large!;
  const seek = cursor ? cursorSeek(plan, plan.index.definition.fields, sort, cursor.values) : null;
  let from = seek ? (valuesParts(seek.walkedValues) ?? undefined) : undefined;
  if (from && seek && plan.wholeKey && !plan.backward && sort[sort.length - 1][1] === 1 && typeof seek.lastId === 'string')
    from = [...from, storageString(seek.lastId)];
  function* docs(): Iterable<Doc> {
    for (const stored of large.walk(state.name, plan.index.tag, valuesParts(plan.prefix)!, from, plan.backward)) {
      if (state.pending.size > 0 && state.pending.has(idOf(stored))) continue;
      const doc = large.stored(state.name, stored);
      if (doc) yield doc;
    }
  }
  return pageFromWalk<T>(docs(), state.pendingDocs(), plan, filter, sort, limit, cursor, counting, shared, (query) =>
    countOnLarge(state, plan, filter, query),
  );
}

/** Whether a document sorts strictly after a cursor's values. */
function afterCursorTest(sort: SortSpec, values: readonly unknown[]): (doc: Doc) => boolean {
  const positions = sort.map(([field, direction]) => ({ segments: splitPath(field, 'sort'), direction }));
  return (doc) => {
    for (let i = 0; i < positions.length; i++) {
      const order = compareValues(sortKeyValue(doc, positions[i].segments), values[i]);
      if (order !== 0) return order * positions[i].direction > 0;
    }
    return false;
  };
}

/**
 * `countOnIndex` for a large collection: a kept count, else the range's width in the file (the
 * width is a walk over the range's keys in LMDB, so it is kept too) or a walk over the range.
 */
function countOnLarge(
  state: CollectionState,
  plan: IndexPlan<LargeIndexRef>,
  filter: Filter | undefined,
  query: CompiledFilter | null,
): number {
  return keptCount(state, filter, () => {
    const large = state.large!;
    const prefix = valuesParts(plan.prefix)!;
    // Kept counts test every later write against the whole filter, the width's too.
    const whole = query ?? compileFilter(filter);
    if (plan.exact)
      return {
        count: large.count(state.name, plan.index.tag, prefix) + (state.pending.size > 0 ? state.pendingDelta(whole) : 0),
        query: whole,
      };
    let count = 0;
    for (const stored of large.walk(state.name, plan.index.tag, prefix, undefined, false)) {
      if (state.pending.size > 0 && state.pending.has(idOf(stored))) continue;
      const doc = large.stored(state.name, stored);
      if (doc && (query === null || test(query, doc))) count++;
    }
    for (const doc of state.pendingDocs()) if (test(whole, doc)) count++;
    return { count, query: whole };
  });
}

/** A count on committed state: a range's width, a kept count, or one scan whose result is then kept. */
function countCommitted(state: CollectionState, filter: Filter | undefined): number {
  const large = state.large;
  if (large && (filter === undefined || filter === null || Object.keys(filter).length === 0)) {
    return keptCount(state, filter, () => ({ count: large.countAll(state.name) + state.pendingDelta(null), query: null }));
  }
  const largePlan = large ? state.largePlan(filter, null) : null;
  if (largePlan) return countOnLarge(state, largePlan, filter, largePlan.exact ? null : compileFilter(filter));
  const plan = state.indexPlan(filter, null);
  if (plan) return countOnIndex(state, plan, filter, plan.exact ? null : compileFilter(filter));
  return keptCount(state, filter, () => {
    let count = 0;
    eachMatch(committedSource(state), filter, () => void count++);
    return { count, query: compileFilter(filter) };
  });
}

// ---------------------------------------------------------------------------------------------
// Writing: transactions and their overlays

interface Write {
  readonly id: string;
  readonly before: Doc | null;
  readonly after: Doc | null;
}

/** One transaction's pending writes to one collection. */
class CollectionOverlay implements DocSource {
  /** `_id` → new document, or null for a deletion. */
  readonly writes = new Map<string, Doc | null>();
  /** Per unique index of the base: keys this transaction gives to documents. */
  private readonly added: Map<string, string>[];
  /** Per unique index of the base: keys this transaction takes away from committed documents. */
  private readonly removed: Set<string>[];

  constructor(
    readonly name: string,
    readonly base: CollectionState | undefined,
  ) {
    const count = base ? base.unique.length : 0;
    this.added = Array.from({ length: count }, () => new Map());
    this.removed = Array.from({ length: count }, () => new Set());
  }

  lookup(id: string): Doc | undefined {
    const written = this.writes.get(id);
    if (written !== undefined) return written ?? undefined;
    return this.base?.get(id);
  }

  *all(): Iterable<Doc> {
    if (this.base) {
      for (const doc of this.base.values()) if (!this.writes.has(doc._id)) yield doc;
    }
    for (const doc of this.writes.values()) if (doc) yield doc;
  }

  /** The base's candidates this transaction left alone, and every document it wrote (to test). */
  candidates(filter: Filter): Candidates | null {
    const plan = this.base?.lookupFor(filter);
    if (!plan) return null;
    const base = this.base!;
    const { keyed, unkeyed } = plan.lookup.candidates(plan.values);
    const untouched = (ids: Iterable<string> | undefined) =>
      ids
        ? Array.from(ids)
            .filter((id) => !this.writes.has(id))
            .map((id) => base.get(id)!)
        : [];
    const written = [...this.writes.values()].filter((doc): doc is Doc => doc !== null);
    return plan.exact
      ? { matching: untouched(keyed), maybe: [...untouched(unkeyed), ...written] }
      : { matching: [], maybe: [...untouched(keyed), ...untouched(unkeyed), ...written] };
  }

  private owner(index: number, key: string): string | undefined {
    const added = this.added[index].get(key);
    if (added !== undefined) return added;
    if (this.removed[index].has(key)) return undefined;
    return this.base?.unique[index].entries.get(key);
  }

  /**
   * Applies a batch of writes to the overlay, all or none: every unique index is checked against
   * committed state, the overlay and the batch itself before anything changes.
   */
  apply(batch: Write[]): void {
    const unique = this.base?.unique ?? [];
    const keysOf: Array<Array<{ before: string[] | null; after: string[] | null }>> = [];
    for (let i = 0; i < unique.length; i++) {
      const definition = unique[i].definition;
      const perWrite = batch.map((write) => ({
        before: write.before ? indexKeys(definition, write.before) : null,
        after: write.after ? indexKeys(definition, write.after) : null,
      }));
      keysOf.push(perWrite);
      const released = new Set<string>();
      for (const keys of perWrite) if (keys.before) for (const key of keys.before) released.add(key);
      const taken = new Map<string, string>();
      for (let w = 0; w < batch.length; w++) {
        const after = perWrite[w].after;
        if (!after) continue;
        const id = batch[w].id;
        for (const key of after) {
          const other = taken.get(key);
          if (other !== undefined && other !== id) throw duplicateKey(this.name, definition, key);
          taken.set(key, id);
          const owner = this.owner(i, key);
          if (owner !== undefined && owner !== id && !released.has(key)) throw duplicateKey(this.name, definition, key);
        }
      }
    }
    for (let i = 0; i < unique.length; i++) {
      const entries = unique[i].entries;
      const added = this.added[i];
      const removed = this.removed[i];
      for (let w = 0; w < batch.length; w++) {
        const before = keysOf[i][w].before;
        if (!before) continue;
        const id = batch[w].id;
        for (const key of before) {
          if (added.get(key) === id) added.delete(key);
          if (entries.get(key) === id) removed.add(key);
        }
      }
      for (let w = 0; w < batch.length; w++) {
        const after = keysOf[i][w].after;
        if (after) for (const key of after) added.set(key, batch[w].id);
      }
    }
    for (const { id, after } of batch) this.writes.set(id, after);
  }

  /** The overlay's writes, as the file stores them. */
  changes(): DocumentWrite[] {
    return Array.from(this.writes, ([id, doc]) => ({ collection: this.name, id, doc }));
  }

  /** Applies the overlay to committed state (synchronous); not for a large collection (`MemoryReadStore.commit`). */
  commitTo(state: CollectionState): void {
    for (let i = 0; i < state.unique.length; i++) {
      const entries = state.unique[i].entries;
      for (const key of this.removed[i]) entries.delete(key);
      for (const [key, id] of this.added[i]) entries.set(key, id);
    }
    const maintained = state.lookups.size > 0 || state.sorted.size > 0 || state.counts.size > 0;
    for (const [id, doc] of this.writes) {
      if (maintained) {
        const before = state.docs.get(id);
        for (const lookup of state.lookups.values()) {
          if (before) lookup.remove(before);
          if (doc) lookup.add(doc);
        }
        for (const index of state.sorted.values()) index.replace(id, before, doc);
        state.counts.apply(before, doc);
      }
      if (doc) state.docs.set(id, doc);
      else state.docs.delete(id);
    }
  }
}

class Transaction {
  readonly overlays = new Map<string, CollectionOverlay>();
  private readonly handles = new Map<string, TransactionalCollection<Doc>>();
  /** Set once the transaction can no longer be used (ended, or failed on a write). */
  ended = false;
  failure: unknown = undefined;

  constructor(readonly store: MemoryReadStore) {}

  overlay(name: string): CollectionOverlay {
    let overlay = this.overlays.get(name);
    if (!overlay) {
      overlay = new CollectionOverlay(name, this.store.state(name));
      this.overlays.set(name, overlay);
    }
    return overlay;
  }

  /** The overlay to read from (without creating one for a collection this transaction never wrote). */
  source(name: string): DocSource {
    return this.overlays.get(name) ?? committedSource(this.store.state(name));
  }

  handle<T extends Doc>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new TransactionalCollection(this, checkCollectionName(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  check(): void {
    if (this.failure !== undefined) {
      throw new ReadStoreInputError(`the transaction was aborted by an earlier failed write: ${describe(this.failure)}`);
    }
    if (this.ended) throw new ReadStoreInputError('the transaction has ended: use it only inside its work function');
    this.store.checkAlive();
  }

  /** Runs a write; a failed write aborts the whole transaction, as in MongoDB. */
  write<R>(run: () => R): R {
    this.check();
    try {
      return run();
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** MongoDB's rules: a non-empty name without `$` or NUL, not in the reserved `system.` namespace. */
function checkCollectionName(name: string): string {
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    name.length > 120 ||
    name.includes('$') ||
    name.includes('\0') ||
    name.startsWith('system.')
  ) {
    throw new ReadStoreInputError(`invalid collection name ${JSON.stringify(String(name).slice(0, 130))}`);
  }
  return name;
}

// The write operations, on an overlay; shared by transactions and one-operation writes.

/** Inserts a document already copied by `cloneDocument`. */
function insertInto(overlay: CollectionOverlay, copy: Doc): void {
  if (overlay.lookup(copy._id)) throw new DuplicateKeyError(overlay.name, '_id', { _id: copy._id });
  overlay.apply([{ id: copy._id, before: null, after: copy }]);
}

/** Stores a document already copied by `cloneDocument`. */
function putInto(overlay: CollectionOverlay, copy: Doc): void {
  overlay.apply([{ id: copy._id, before: overlay.lookup(copy._id) ?? null, after: copy }]);
}

function updateIn(overlay: CollectionOverlay, id: string, parsed: ParsedUpdate, upsert: boolean): Doc | null {
  const before = overlay.lookup(id);
  if (!before && !upsert) return null;
  const after = applyUpdate(before ?? { _id: id }, parsed, !before);
  overlay.apply([{ id, before: before ?? null, after }]);
  return after;
}

function updateManyIn(overlay: CollectionOverlay, filter: Filter, parsed: ParsedUpdate): number {
  const targets = matching(overlay, filter);
  overlay.apply(targets.map((before) => ({ id: before._id, before, after: applyUpdate(before, parsed, false) })));
  return targets.length;
}

function deleteIn(overlay: CollectionOverlay, id: string): boolean {
  const before = overlay.lookup(id);
  if (!before) return false;
  overlay.apply([{ id, before, after: null }]);
  return true;
}

function deleteManyIn(overlay: CollectionOverlay, filter: Filter): number {
  const targets = matching(overlay, filter);
  overlay.apply(targets.map((before) => ({ id: before._id, before, after: null })));
  return targets.length;
}

function cloneDocument(doc: Doc): Doc {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ReadStoreInputError('a document must be an object');
  }
  const copy = cloneIn(doc, 'document');
  checkId(copy._id, 'document _id');
  return copy;
}

function checkUpsertOption(options: { upsert?: boolean } | undefined): boolean {
  if (options === undefined || options === null) return false;
  if (typeof options !== 'object') throw new ReadStoreInputError('update options must be an object');
  return options.upsert === true;
}

function checkFilter(filter: Filter): Filter {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ReadStoreInputError('filter must be an object');
  }
  return filter;
}

/** The reads both collection views share; they differ only in which documents a read sees. */
abstract class ReadableCollection<T extends Doc> {
  /** The documents a read sees; throws when the store or transaction is no longer usable. */
  protected abstract source(): DocSource;
  /** Whether reads hand out the stored documents, frozen (outside transactions), or copies (`handOut`). */
  protected abstract readonly shared: boolean;

  protected read<R>(run: (source: DocSource) => R): Promise<R> {
    try {
      return Promise.resolve(run(this.source()));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Tells the store's read observer, if any, what is read (`observeReads`). */
  protected noteRead(_id: string | null, _filter?: Filter): void {}

  get(id: string): Promise<T | null> {
    this.noteRead(id);
    return this.read((source) => readDoc<T>(source.lookup(checkId(id)), this.shared));
  }

  findOne(filter: Filter): Promise<T | null> {
    this.noteRead(null, filter);
    return this.read((source) => readDoc<T>(firstMatch(source, checkFilter(filter)), this.shared));
  }

  find(filter?: Filter, options?: FindOptions): Promise<Page<T>> {
    this.noteRead(null, filter);
    return this.read((source) => findIn<T>(source, filter, options, this.shared));
  }

  count(filter?: Filter): Promise<number> {
    this.noteRead(null, filter);
    return this.read((source) => countIn(source, filter));
  }
}

/** A collection seen through a transaction. */
class TransactionalCollection<T extends Doc> extends ReadableCollection<T> implements Collection<T> {
  protected readonly shared = false;
  constructor(
    private readonly tx: Transaction,
    private readonly name: string,
  ) {
    super();
  }

  protected source(): DocSource {
    this.tx.check();
    return this.tx.source(this.name);
  }

  private write<R>(run: (overlay: CollectionOverlay) => R): Promise<R> {
    try {
      return Promise.resolve(this.tx.write(() => run(this.tx.overlay(this.name))));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  insert(doc: T): Promise<void> {
    return this.write((overlay) => insertInto(overlay, cloneDocument(doc)));
  }

  put(doc: T): Promise<void> {
    return this.write((overlay) => putInto(overlay, cloneDocument(doc)));
  }

  update(id: string, update: Update, options?: { upsert?: boolean }): Promise<T | null> {
    return this.write((overlay) => {
      checkId(id);
      const upsert = checkUpsertOption(options);
      return readDoc<T>(updateIn(overlay, id, parseUpdate(update), upsert) ?? undefined);
    });
  }

  updateMany(filter: Filter, update: Update): Promise<number> {
    return this.write((overlay) => updateManyIn(overlay, checkFilter(filter), parseUpdate(update)));
  }

  delete(id: string): Promise<boolean> {
    return this.write((overlay) => deleteIn(overlay, checkId(id)));
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.write((overlay) => deleteManyIn(overlay, checkFilter(filter)));
  }
}

function firstMatch(source: DocSource, filter: Filter): Doc | undefined {
  let first: Doc | undefined;
  eachMatch(source, filter, (doc) => ((first = doc), true));
  return first;
}

function countIn(source: DocSource, filter: Filter | undefined): number {
  if (filter !== undefined && filter !== null) checkFilter(filter);
  if (source.committed && idList(filter ?? undefined) === undefined) return countCommitted(source.committed, filter ?? undefined);
  let count = 0;
  eachMatch(source, filter, () => void count++);
  return count;
}

/** A collection outside any transaction: reads see committed state, each write is its own transaction. */
class StoreCollection<T extends Doc> extends ReadableCollection<T> implements Collection<T> {
  protected readonly shared = true;
  constructor(
    private readonly store: MemoryReadStore,
    private readonly name: string,
  ) {
    super();
  }

  protected source(): DocSource {
    this.store.checkOpen();
    return committedSource(this.store.state(this.name));
  }

  protected override noteRead(id: string | null, filter?: Filter): void {
    this.store.notifications.read(this.name, typeof id === 'string' ? id : null, filter);
  }

  private write<R>(run: (overlay: CollectionOverlay) => R): Promise<R> {
    return this.store.writeOnce(this.name, run);
  }

  insert(doc: T): Promise<void> {
    return attempt(() => {
      const copy = cloneDocument(doc);
      return this.write((overlay) => insertInto(overlay, copy));
    });
  }

  put(doc: T): Promise<void> {
    return attempt(() => {
      const copy = cloneDocument(doc);
      return this.write((overlay) => putInto(overlay, copy));
    });
  }

  update(id: string, update: Update, options?: { upsert?: boolean }): Promise<T | null> {
    return attempt(() => {
      checkId(id);
      const upsert = checkUpsertOption(options);
      const parsed = parseUpdate(update);
      return this.write((overlay) => readDoc<T>(updateIn(overlay, id, parsed, upsert) ?? undefined));
    });
  }

  updateMany(filter: Filter, update: Update): Promise<number> {
    return attempt(() => {
      checkFilter(filter);
      const parsed = parseUpdate(update);
      return this.write((overlay) => updateManyIn(overlay, filter, parsed));
    });
  }

  delete(id: string): Promise<boolean> {
    return attempt(() => {
      checkId(id);
      return this.write((overlay) => deleteIn(overlay, id));
    });
  }

  deleteMany(filter: Filter): Promise<number> {
    return attempt(() => {
      checkFilter(filter);
      return this.write((overlay) => deleteManyIn(overlay, filter));
    });
  }
}

/** Turns a synchronous throw into a rejected promise. */
function attempt<R>(run: () => Promise<R>): Promise<R> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}

// ---------------------------------------------------------------------------------------------

/** Documents read from the file per step of loading: a few milliseconds of the event loop. */
const LOAD_CHUNK = 2000;
/** Pending documents of large collections past which a transaction's commit waits for the file (back-pressure). */
const MAX_PENDING_LARGE = 20_000;

export class MemoryReadStore implements ReadStore {
  private readonly collections = new Map<string, CollectionState>();
  private readonly handles = new Map<string, StoreCollection<Doc>>();
  /** Tail of the queue that serializes transactions and writes. */
  private tail: Promise<void> = Promise.resolve();
  /** Queued or running queue entries; 0 means a write may run at once. */
  private pending = 0;
  /** Set by `close()`: new calls are refused, work already accepted still runs. */
  private closing = false;
  /** Set once accepted work has drained: nothing runs any more. */
  private closed = false;
  /** Moved before every change to committed state (which is synchronous, so no read sees a change under an old version). */
  private version = 0;
  /** Set when a commit could not be written to the file: committed memory is then ahead of the disk, so no more writes. */
  private broken: unknown = undefined;
  /** Set while commits could not be written to the file for lack of space: their keys, written once it is back. */
  private unwritten: UnwrittenCommits | undefined;
  /** The last commit handed to the file (settles once LMDB has written it). */
  private written: Promise<void> = Promise.resolve();
  /** Commits that wrote to a large collection, numbered (`CollectionState.pending`). */
  private commits = 0;
  /** Documents pending in large collections, all together. */
  private pendingLarge = 0;

  /**
   * Loading. Collections of the file not yet in memory, with what the background has loaded of
   * each so far. A collection is loaded whole the first time anything uses it; the background,
   * once started (`loadInBackground`), loads the others a chunk per event-loop turn. So a start with
   * large read models (1,000,000 events: 660,000 audit events) answers as soon as the collections
   * it needs are in, instead of decoding every document first; the memory ends the same once the
   * background is done.
   */
  private readonly unloaded = new Map<string, { state: CollectionState; afterId: string | undefined }>();
  /** Indexes declared on a collection not loaded yet: created when it loads. */
  private readonly pendingIndexes = new Map<string, IndexDefinition[]>();
  private backgroundLoad: NodeJS.Timeout | undefined;
  private backgroundStarted = false;
  /** @internal Told of every change to committed contents and of every read outside transactions. */
  readonly notifications = new ChangeNotifications();

  /**
   * With `file`, its documents are loaded (see Loading), every commit is written to it
   * (`read-model-file.ts`), and collections declared large live in it (`declareLarge`).
   */
  constructor(private readonly file?: ReadModelFile) {
    if (!file) return;
    for (const name of file.large.collectionNames()) this.collections.set(name, new CollectionState(name, file.large));
    for (const name of file.collectionNames()) {
      // Left in the main file by a move to the large file that a crash cut short: the large file has them.
      if (this.collections.has(name)) this.persist([], [name]);
      else this.unloaded.set(name, { state: new CollectionState(name), afterId: undefined });
    }
  }

  /**
   * Starts loading the collections nothing has used yet, a chunk per event-loop turn (idempotent).
   * The service asks once its read models have caught up: loading alongside the start made a start
   * after a clean stop about a tenth slower. Without it, each collection still loads on first use.
   */
  loadInBackground(): void {
    if (this.backgroundStarted) return;
    this.backgroundStarted = true;
    this.scheduleBackgroundLoad();
  }

  /**
   * With a file: once the transactions queued before it and the writes handed to the file are done,
   * unmaps the file and maps it again (`ReadModelFile.releaseMappedPages`); transactions queued after
   * it wait. Only for a replay alone on the store, between two commits (the CLI's `rebuild`, the
   * service's catch-up at start: `ReplayMappedPages`): a read of a large collection or a background
   * load while it runs would fail. A no-op without a file.
   */
  releaseMappedPages(): Promise<void> {
    this.checkOpen();
    return this.enqueue(async () => {
      await this.written;
      await this.file?.releaseMappedPages();
    });
  }

  /** Whether every collection of the file is in memory (large collections stay on disk). */
  get loaded(): boolean {
    return this.unloaded.size === 0;
  }

  /** A store whose documents persist in an LMDB environment in `directory` (the embedded service's read models). */
  static open(directory: string, options?: ReadModelFileOptions): MemoryReadStore {
    return new MemoryReadStore(ReadModelFile.open(directory, options));
  }

  contentVersion(): number {
    return this.version;
  }

  onChange(listener: ReadStoreChangeListener): () => void {
    return this.notifications.onChange(listener);
  }

  observeReads(observer: ReadObserver | undefined): void {
    this.notifications.observeReads(observer);
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new StoreCollection(this, checkCollectionName(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  transaction<R>(work: (tx: ReadStoreTransaction) => Promise<R>): Promise<R> {
    try {
      this.checkOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    if (typeof work !== 'function') return Promise.reject(new ReadStoreInputError('transaction work must be a function'));
    return this.enqueue(async () => {
      const tx = new Transaction(this);
      const handle: ReadStoreTransaction = { collection: <T extends Doc = Doc>(name: string) => tx.handle<T>(name) };
      let result: R;
      try {
        result = await work(handle);
      } finally {
        tx.ended = true;
      }
      if (tx.failure !== undefined) throw tx.failure;
      this.checkAlive();
      this.commit([...tx.overlays.values()]);
      // Back-pressure: a replay commits faster than LMDB writes, and pending documents are memory.
      if (this.pendingLarge > MAX_PENDING_LARGE) await this.written;
      return result;
    });
  }

  ensureIndex(collection: string, index: IndexSpec): Promise<void> {
    try {
      this.checkOpen();
      checkCollectionName(collection);
      const definition = indexDefinition(index);
      return this.enqueue(async () => {
        // A large collection's entries are made from its documents in the file: the commits handed over first must be there.
        if (this.collections.get(collection)?.large) await this.written;
        this.createIndex(collection, definition);
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Without a file (a store in memory only), a large collection is held in memory like any other.
   * With one, its documents move from memory into the file's large collections, where its declared
   * indexes are kept too.
   */
  declareLarge(name: string): Promise<void> {
    try {
      this.checkOpen();
      checkCollectionName(name);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async () => {
      this.checkAlive();
      if (!this.file) return;
      const large = this.file.large;
      const current = this.state(name);
      if (current?.large) return;
      if (current?.unique.length) throw new ReadStoreInputError(`'${name}' has a unique index: a large collection takes none`);
      await this.written;
      this.checkAlive();
      const moved = current !== undefined && current.docs.size > 0;
      this.file.writeSync([], moved ? [name] : [], () => {
        large.declare(name);
        for (const definition of current?.indexes ?? []) large.ensureIndex(name, definition.key);
        if (moved)
          large.write(
            name,
            Array.from(current.docs, ([id, doc]) => ({ id, before: undefined, after: doc })),
          );
      });
      const state = new CollectionState(name, large);
      state.indexes.push(...(current?.indexes ?? []));
      // Declared just now, it holds what moved and nothing else: its count is kept from here, so
      // counting it never walks the file (a rebuild's audit log: 1.6 GB of pages read to count it).
      state.counts.set(MaintainedCounts.keyOf(undefined)!, undefined, null, moved ? current.docs.size : 0);
      this.version++;
      this.collections.set(name, state);
      this.notifications.changed(new Map([[name, null]]));
    });
  }

  dropCollections(names: readonly string[]): Promise<void> {
    let dropped: string[];
    try {
      this.checkOpen();
      if (!Array.isArray(names)) throw new ReadStoreInputError('collection names must be an array');
      dropped = [...new Set(names.map((name) => checkCollectionName(name)))];
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async () => {
      this.checkAlive();
      if (dropped.length === 0) return;
      const file = this.file;
      if (file) {
        // One commit, written before the memory changes: what is queued first must be in the file.
        await this.written;
        this.checkAlive();
        if (!(await file.dropByRewrite(dropped))) {
          const large = dropped.filter((name) => this.collections.get(name)?.large);
          file.writeSync([], dropped, () => {
            for (const name of large) file.large.drop(name);
          });
        }
      }
      this.version++;
      for (const name of dropped) {
        this.collections.delete(name);
        this.unloaded.delete(name);
        this.pendingIndexes.delete(name);
      }
      this.notifications.changed(new Map(dropped.map((name) => [name, null])));
    });
  }

  /** Resolves once every commit handed to the file so far has been written (a large collection's pending writes included). */
  async whenWritten(): Promise<void> {
    await this.written;
  }

  async listCollections(): Promise<string[]> {
    this.checkOpen();
    return [...new Set([...this.collections.keys(), ...this.unloaded.keys()])].sort();
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    // Found by the check that runs after the start (`ReadModelFile.open`): the process is closing.
    const damaged = this.file?.damaged;
    if (damaged !== undefined) return { ok: false, detail: `readModels: damaged, rebuilding on restart (${damaged})` };
    if (this.broken !== undefined) return { ok: false, detail: `the read models could not be written to disk: ${describe(this.broken)}` };
    if (this.unwritten) {
      return {
        ok: false,
        detail: `the read models are not written to disk (kept in memory, retried): ${this.unwritten.cause.message} (${describe(this.unwritten.cause.cause)})`,
      };
    }
    if (this.closing) return { ok: false, detail: 'the memory read store is closed' };
    // Still answering: a collection not in memory yet is loaded on first use. Said so that whoever
    // watches memory or the first requests' times knows the loading is not over.
    if (this.unloaded.size > 0) {
      const rest = this.backgroundStarted ? 'loading in the background' : 'each loaded on first use';
      return { ok: true, detail: `${this.unloaded.size} read model collection(s) not in memory yet, ${rest}` };
    }
    return { ok: true };
  }

  /** Refuses new calls, lets transactions and writes already accepted finish, then drops all data. */
  async close(): Promise<void> {
    if (this.closing) {
      await this.tail;
      return;
    }
    this.closing = true;
    // A checksum still being compared in the background would hold the commits queued behind it.
    this.file?.abandonCheck();
    await this.tail;
    this.closed = true;
    clearTimeout(this.backgroundLoad);
    this.unloaded.clear();
    this.collections.clear();
    this.handles.clear();
    await this.written;
    await this.file?.close();
  }

  // -- internals used by transactions and collection handles -------------------------------------

  /** @internal Refuses a new call once `close()` has been called. */
  checkOpen(): void {
    if (this.closing) throw new ReadStoreUnavailableError('the memory read store is closed');
  }

  /** @internal Refuses to run anything once the store has closed (accepted work may finish while closing). */
  checkAlive(): void {
    if (this.closed) throw new ReadStoreUnavailableError('the memory read store is closed');
    if (this.broken !== undefined)
      throw new ReadStoreUnavailableError(`the read models could not be written to disk: ${describe(this.broken)}`);
  }

  /**
   * Applies overlays to committed state, synchronously, and hands their writes to the file. A large
   * collection's writes become pending (reads take them from there) and go to the file in the
   * commit's own LMDB transaction, which then moves the collection's index entries; once written,
   * those still current leave `pending`.
   */
  private commit(overlays: readonly CollectionOverlay[]): void {
    const written = overlays.filter((overlay) => overlay.writes.size > 0);
    const large = written.filter((overlay) => overlay.base?.large);
    const changes: DocumentWrite[] = [];
    const change = new Map<string, DocumentChange[]>();
    for (const overlay of written) {
      if (overlay.base?.large) continue;
      changes.push(...overlay.changes());
      const state = this.stateForWrite(overlay.name);
      if (this.notifications.listening)
        change.set(
          overlay.name,
          Array.from(overlay.writes, ([id, after]) => ({ id, before: state.get(id) ?? null, after })),
        );
      overlay.commitTo(state);
    }
    if (large.length === 0) {
      this.persist(changes);
      return this.notifications.changed(change);
    }
    const commit = ++this.commits;
    const handed = large.map((overlay) => {
      const state = this.stateForWrite(overlay.name);
      const writes: LargeWrite[] = [];
      for (const [id, after] of overlay.writes) {
        const before = state.get(id);
        writes.push({ id, before, after });
        if (this.notifications.listening)
          change.set(overlay.name, [...(change.get(overlay.name) ?? []), { id, before: before ?? null, after }]);
        state.counts.apply(before, after);
        if (!state.pending.has(id)) this.pendingLarge++;
        state.pending.set(id, { doc: after, commit });
      }
      return { state, writes };
    });
    this.persist(changes, [], {
      touched: handed.map(({ state, writes }) => ({ state, ids: writes.map(({ id }) => id) })),
      run: () => handed.forEach(({ state, writes }) => state.large!.write(state.name, writes)),
      written: () =>
        handed.forEach(({ state, writes }) => {
          for (const { id } of writes) {
            if (state.pending.get(id)?.commit !== commit) continue;
            state.pending.delete(id);
            this.pendingLarge--;
          }
        }),
    });
    this.notifications.changed(change);
  }

  /**
   * Hands a commit to the file, if there is one, without waiting for it: LMDB writes the commits
   * in the order they were handed over, each with its checkpoint in the same LMDB transaction, so
   * the file always holds some commit's whole state and a restart resumes from that commit's
   * checkpoint (replaying from the log what had not reached the file). A failed write stops every
   * later call (memory is ahead of the disk); `close()` waits for the writes handed over.
   */
  private persist(
    writes: DocumentWrite[],
    dropped: string[] = [],
    large?: { run: () => void; written: () => void; touched: Array<{ state: CollectionState; ids: string[] }> },
  ): void {
    if (!this.file || (writes.length === 0 && dropped.length === 0 && !large)) return;
    // Behind the memory for lack of space: the keys wait for `writeUnwritten`, in the order of nothing.
    if (this.unwritten && dropped.length === 0) return this.unwritten.note(writes, large?.touched);
    const failed = (error: unknown): void => {
      const full = asStorageFull('read store', error);
      if (!(full instanceof StorageFullError) || dropped.length > 0) {
        this.broken ??= error;
        return;
      }
      if (!this.unwritten) {
        log.error(
          { err: full.cause },
          'the read models could not be written to disk for lack of space; kept in memory, written once space is back',
        );
        this.unwritten = new UnwrittenCommits(full);
        this.scheduleUnwritten();
      }
      this.unwritten.note(writes, large?.touched);
    };
    try {
      this.written = this.file.write(writes, dropped, large?.run).then(large?.written, failed);
    } catch (error) {
      // Refused before LMDB took it (a put, or a large collection's write inside the batch): memory
      // is committed already, so this commit takes the path of one that failed later, at once (the
      // commits after it wait with it), and never fails the transaction that made it.
      failed(error);
    }
  }

  /** The next attempt at `writeUnwritten`, after a backoff; it runs between two commits. */
  private scheduleUnwritten(): void {
    const unwritten = this.unwritten;
    if (!unwritten || this.closing) return;
    setTimeout(() => {
      if (this.closing || this.unwritten !== unwritten) return;
      void this.enqueue(() => this.writeUnwritten()).catch(() => undefined);
    }, unwritten.nextDelay()).unref();
  }

  /**
   * Writes what the file missed since a commit failed for lack of space (`UnwrittenCommits`),
   * once the commits handed to the file before have settled; on success the file holds memory's
   * state again and commits are handed to it as before, else the next attempt is scheduled.
   */
  private async writeUnwritten(): Promise<void> {
    await this.written;
    const unwritten = this.unwritten;
    if (!unwritten || !this.file || this.closed || this.broken !== undefined) return;
    try {
      const large = unwritten.writeTo(this.file, (collection, id) => this.collections.get(collection)?.docs.get(id) ?? null);
      this.unwritten = undefined;
      for (const { state, ids } of large as Array<{ state: CollectionState; ids: string[] }>) {
        for (const id of ids) if (state.pending.delete(id)) this.pendingLarge--;
      }
      log.info('the read models are written to disk again');
    } catch (error) {
      const full = asStorageFull('read store', error);
      if (full instanceof StorageFullError) unwritten.cause = full;
      else log.error({ err: error }, 'the read models could not be written to disk; retried');
      this.scheduleUnwritten();
    }
  }

  /** @internal Committed state of a collection, if it exists. */
  state(name: string): CollectionState | undefined {
    if (this.unloaded.has(name)) this.finishLoading(name);
    return this.collections.get(name);
  }

  /** @internal Committed state of a collection, created when missing. */
  stateForWrite(name: string): CollectionState {
    this.version++;
    let state = this.state(name);
    if (!state) {
      state = new CollectionState(name);
      this.collections.set(name, state);
    }
    return state;
  }

  /** @internal A write outside any transaction: a one-operation transaction, run at once when the queue is idle. */
  writeOnce<R>(name: string, run: (overlay: CollectionOverlay) => R): Promise<R> {
    try {
      this.checkOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    const once = (): R => {
      this.checkAlive();
      const overlay = new CollectionOverlay(name, this.state(name));
      const result = run(overlay);
      this.commit([overlay]);
      return result;
    };
    if (this.pending === 0) {
      try {
        return Promise.resolve(once());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.enqueue(async () => once());
  }

  /** Loads the rest of a collection from the file, makes it visible, then creates the indexes declared meanwhile. */
  private finishLoading(name: string): void {
    const partial = this.unloaded.get(name);
    if (!partial) return;
    while (this.loadChunk(name, partial, LOAD_CHUNK)) {
      // until the collection is complete
    }
    this.unloaded.delete(name);
    this.collections.set(name, partial.state);
    const pending = this.pendingIndexes.get(name) ?? [];
    this.pendingIndexes.delete(name);
    for (const definition of pending) this.createIndex(name, definition);
  }

  /** Adds up to `size` more documents of a collection being loaded; false once it has them all. */
  private loadChunk(name: string, partial: { state: CollectionState; afterId: string | undefined }, size: number): boolean {
    const docs = this.file!.loadCollection(name, partial.afterId, size);
    for (const doc of docs) partial.state.docs.set(doc._id, doc);
    if (docs.length > 0) partial.afterId = docs[docs.length - 1]._id;
    return docs.length === size;
  }

  /** One chunk of the first collection not loaded yet per event-loop turn, until every collection is in. */
  private scheduleBackgroundLoad(): void {
    if (this.unloaded.size === 0 || this.closing) return;
    this.backgroundLoad = setTimeout(() => {
      this.backgroundLoad = undefined;
      const next = this.unloaded.entries().next();
      if (next.done || this.closing || this.broken !== undefined) return;
      const [name, partial] = next.value;
      if (!this.loadChunk(name, partial, LOAD_CHUNK)) this.finishLoading(name);
      this.scheduleBackgroundLoad();
    }, 0);
    this.backgroundLoad.unref();
  }

  private enqueue<R>(run: () => Promise<R>): Promise<R> {
    this.pending++;
    const result = this.tail.then(run);
    const settled = (): void => {
      this.pending--;
    };
    this.tail = result.then(settled, settled);
    return result;
  }

  private createIndex(name: string, definition: IndexDefinition): void {
    this.checkAlive();
    if (definition.fields.length === 1 && definition.fields[0] === '_id') return;
    if (this.unloaded.has(name)) {
      // Declared at every start for every collection: kept until the collection loads, so declaring does not load it.
      const pending = this.pendingIndexes.get(name) ?? [];
      const same = pending.find((d) => d.key === definition.key);
      if (same && same.canonical !== definition.canonical)
        throw new ReadStoreInputError(`an index on ${definition.key} already exists in '${name}' with different options`);
      if (!same) this.pendingIndexes.set(name, [...pending, definition]);
      return;
    }
    const existing = this.collections.get(name)?.indexes.find((d) => d.key === definition.key);
    if (existing) {
      if (existing.canonical === definition.canonical) return;
      throw new ReadStoreInputError(`an index on ${definition.key} already exists in '${name}' with different options`);
    }
    const state = this.collections.get(name);
    if (state?.large) {
      if (definition.unique) throw new ReadStoreInputError(`'${name}' is a large collection: it takes no unique index`);
      // Entries derive from the large collection's documents in the file (`ensureIndex` waited for the commits handed over).
      // Declared at every start: an index the file keeps needs no transaction (a synchronous one
      // would wait for the file's checksum, compared in the background after the start).
      if (state.large.hasIndex(name, definition.key)) state.large.ensureIndex(name, definition.key);
      else this.file!.writeSync([], [], () => state.large!.ensureIndex(name, definition.key));
      this.version++;
      state.indexes.push(definition);
      return;
    }
    if (definition.unique) {
      const entries = new Map<string, string>();
      for (const doc of state?.docs.values() ?? []) {
        for (const key of indexKeys(definition, doc) ?? []) {
          const owner = entries.get(key);
          if (owner !== undefined && owner !== doc._id) throw duplicateKey(name, definition, key);
          entries.set(key, doc._id);
        }
      }
      const target = this.stateForWrite(name);
      target.indexes.push(definition);
      target.unique.push({ definition, entries });
    } else {
      this.stateForWrite(name).indexes.push(definition);
    }
  }
}

function indexDefinition(index: IndexSpec): IndexDefinition {
  if (index === null || typeof index !== 'object') throw new ReadStoreInputError('index must be an object');
  const { fields, unique, partial } = index;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields) || Object.keys(fields).length === 0) {
    throw new ReadStoreInputError('index fields must name at least one field');
  }
  const names = Object.keys(fields);
  for (const field of names) {
    splitPath(field, 'index field');
    if (field.startsWith('$')) throw new ReadStoreInputError(`invalid index field '${field}'`);
    const direction = (fields as Record<string, unknown>)[field];
    if (direction !== 1 && direction !== -1) throw new ReadStoreInputError(`index direction of '${field}' must be 1 or -1`);
  }
  if (unique !== undefined && typeof unique !== 'boolean') throw new ReadStoreInputError('index unique must be a boolean');
  let partialQuery: CompiledFilter | undefined;
  if (partial !== undefined) {
    checkPartialFilter(partial);
    partialQuery = compileFilter(cloneIn(partial, 'partial filter')) ?? undefined;
  }
  const key = JSON.stringify(names.map((field) => [field, fields[field]]));
  return {
    key,
    canonical: JSON.stringify([key, unique === true, partial ?? null]),
    name: names.join(','),
    fields: names,
    directions: names.map((field) => fields[field]),
    paths: names.map((field) => splitPath(field)),
    unique: unique === true,
    partial: partialQuery,
  };
}

/** Partial filters may use equality (including `null` for null-or-missing), `$eq`, `$exists` and `$and`. */
function checkPartialFilter(filter: unknown): void {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ReadStoreInputError('a partial index filter must be an object');
  }
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      if (!Array.isArray(value) || value.length === 0) throw new ReadStoreInputError('$and in a partial filter needs a list');
      value.forEach(checkPartialFilter);
      continue;
    }
    if (key.startsWith('$')) throw new ReadStoreInputError(`${key} is not supported in a partial index filter`);
    splitPath(key, 'partial filter');
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const operators = Object.keys(value);
      if (operators.some((op) => op.startsWith('$'))) {
        for (const op of operators) {
          const operand = (value as Record<string, unknown>)[op];
          if (op === '$exists' && typeof operand === 'boolean') continue;
          if (op === '$eq') continue;
          throw new ReadStoreInputError(`${op} is not supported in a partial index filter (equality and $exists only)`);
        }
      }
    }
  }
}
