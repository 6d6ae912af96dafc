/** What reads see of a collection (committed state, or a transaction's overlay over it), and the documents a filter matches there. */
import { deepFreeze } from '#platform/plain-object';
import type { Doc, Filter } from '../read-store.port';
import { cloneOut } from './json-value';
import { compileFilter, testFilter, type CompiledFilter } from './compiled-filter';
import type { CollectionState } from './collection-state';

/** What reads need from a collection: committed state, or committed state under an overlay. */
export interface DocSource {
  lookup(id: string): Doc | undefined;
  all(): Iterable<Doc>;
  /** The documents that may match `filter`, through an equality lookup; null when none applies (scan). */
  candidates(filter: Filter): Candidates | null;
  /** Committed state, when the source is exactly that (reads may then use its sorted indexes and kept counts). */
  readonly committed?: CollectionState;
}

export interface Candidates {
  /** Documents that match by construction (the filter is exactly the lookup's equalities). */
  matching: Iterable<Doc>;
  /** Documents to test against the filter. */
  maybe: Iterable<Doc>;
}

const EMPTY_SOURCE: DocSource = { lookup: () => undefined, all: () => [], candidates: () => null };

export function committedSource(state: CollectionState | undefined): DocSource {
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
export function idList(filter: Filter | undefined): string[] | undefined {
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
export function eachMatch(source: DocSource, filter: Filter | undefined, visit: (doc: Doc) => boolean | void): void {
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
      if (doc && (query === null || testFilter(query, doc)) && visit(doc) === true) return;
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
      if (testFilter(query, doc) && visit(doc) === true) return;
    }
    return;
  }
  const query = compileFilter(filter);
  for (const doc of source.all()) if (testFilter(query, doc) && visit(doc) === true) return;
}

/** Documents of `source` matching `filter`, each visited once. */
export function matching(source: DocSource, filter: Filter | undefined): Doc[] {
  const out: Doc[] = [];
  eachMatch(source, filter, (doc) => void out.push(doc));
  return out;
}

export function readDoc<T extends Doc>(doc: Doc | undefined, shared = false): T | null {
  return doc ? handOut<T>(doc, shared) : null;
}

/**
 * A document as a read answers it. Outside transactions (`shared`), the stored document itself,
 * frozen (deeply, once): stored documents are never changed in place (an update stores a changed
 * copy), so readers can share them, and copying every document of every read was a tenth of a
 * GET's time. Inside a transaction, and for what a write answers, a copy the caller may change
 * (projections read, change and write back).
 */
export function handOut<T extends Doc>(doc: Doc, shared: boolean): T {
  return (shared ? deepFreeze(doc) : cloneOut(doc)) as T;
}

export function firstMatch(source: DocSource, filter: Filter): Doc | undefined {
  let first: Doc | undefined;
  eachMatch(source, filter, (doc) => ((first = doc), true));
  return first;
}
