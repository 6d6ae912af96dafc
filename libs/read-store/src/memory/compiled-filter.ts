/** Filters compiled once into mingo queries, behind a shortcut for scalar conditions, and kept by their JSON. */
import { LRUCache } from 'lru-cache';
import { Context } from 'mingo/core';
import * as queryOperators from 'mingo/operators/query';
import { Query } from 'mingo/query';
import { ReadStoreInputError } from '../errors';
import type { Doc, Filter } from '../read-store.port';
import { scalarConditions, type ScalarTest } from './scalar-conditions';

// Filters use query operators only: mingo's main entry would also load its expression, accumulator,
// pipeline and window operators (200 ms to load against 65, on a start of about 2.3 s).
const QUERY_OPTIONS = { scriptEnabled: false, context: Context.init({ query: queryOperators }) };

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
export class CompiledFilter {
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

export function compileFilter(filter: Filter | undefined): CompiledFilter | null {
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

export function testFilter(query: CompiledFilter | null, doc: Doc): boolean {
  if (query === null) return true;
  try {
    return query.test(doc);
  } catch (error) {
    throw new ReadStoreInputError(`invalid filter: ${(error as Error)?.message ?? String(error)}`);
  }
}
