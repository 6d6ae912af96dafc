/**
 * Equality lookups for the memory read store: the hash-map counterpart of a declared index's
 * leading fields, so that `find({ organizationId, userId })` visits the documents holding those
 * values instead of compiling a mingo query and testing every document of the collection.
 *
 * A lookup covers a list of fields that is a prefix of a declared index. It is built on first use
 * (one pass over the collection) and kept up to date by every commit. It maps the scalar values a
 * document holds at those fields to the ids of the documents holding them:
 *
 * - a document whose fields all hold strings, finite numbers or booleans has one key;
 * - one holding an array (of scalars) at a single-field lookup has one key per element, MongoDB's
 *   multikey rule for equality;
 * - one that cannot be keyed that simply (an array in a compound lookup, on the way down a dotted
 *   path, or holding arrays or objects; an object) is "unkeyed": always a candidate, tested by the
 *   full filter, so the answer is the query engine's whatever it makes of such values;
 * - one missing a field (or holding null) cannot equal a scalar and is left out.
 *
 * Only scalar equalities (`{ f: 'x' }`, `{ f: { $eq: 'x' } }`) use lookups; everything else scans.
 * Candidates are tested with the whole filter unless every condition of the filter is one of the
 * lookup's equalities, in which case a keyed candidate is a match by construction.
 */
import type { Doc, Filter } from '../read-store.port';

export type Scalar = string | number | boolean;

/** Field path → value, for the top-level conditions of a filter that are scalar equalities. */
export function scalarEqualities(filter: Filter): { equalities: Map<string, Scalar>; conditions: number } {
  return equalitiesOf(filter, isScalar);
}

/**
 * The same with `null` equalities too (`{ f: null }`: null or missing), for sorted indexes: they
 * hold a missing value as undefined, which compares equal to null, so the range of a null prefix is
 * exactly what the condition matches (`{ changeRequestId: null }`: the comments of a space's content).
 */
export function indexEqualities(filter: Filter): { equalities: Map<string, Scalar | null>; conditions: number } {
  return equalitiesOf(filter, (value): value is Scalar | null => value === null || isScalar(value));
}

function equalitiesOf<V>(filter: Filter, accepts: (value: unknown) => value is V): { equalities: Map<string, V>; conditions: number } {
  const equalities = new Map<string, V>();
  let conditions = 0;
  for (const field in filter) {
    conditions++;
    if (field.startsWith('$')) continue;
    const condition = (filter as Record<string, unknown>)[field];
    if (accepts(condition)) equalities.set(field, condition);
    else {
      const value = onlyEq(condition);
      if (value !== NOT_EQ && accepts(value)) equalities.set(field, value);
    }
  }
  return { equalities, conditions };
}

const NOT_EQ = Symbol('not an equality');

/** The operand of a condition that is exactly `{ $eq: value }`. */
function onlyEq(condition: unknown): unknown {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return NOT_EQ;
  let only: unknown = NOT_EQ;
  let count = 0;
  for (const operator in condition as Record<string, unknown>) {
    if (operator !== '$eq' || ++count > 1) return NOT_EQ;
    only = (condition as Record<string, unknown>)[operator];
  }
  return only;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** One key per type and value: `'1'` and `1` are different values. */
function scalarKey(value: Scalar): string {
  return typeof value === 'string' ? `s${value}` : typeof value === 'number' ? `n${value === 0 ? 0 : value}` : `b${value}`;
}

const UNKEYED = Symbol('unkeyed');

export class EqualityLookup {
  private readonly keyed = new Map<string, Set<string>>();
  private readonly unkeyed = new Set<string>();

  constructor(
    readonly fields: readonly string[],
    private readonly paths: readonly (readonly string[])[],
    docs: Iterable<Doc>,
  ) {
    for (const doc of docs) this.add(doc);
  }

  /** Ids of the documents that may hold these values (in `fields` order); `exact`: keyed ones certainly do. */
  candidates(values: readonly Scalar[]): { keyed: ReadonlySet<string> | undefined; unkeyed: ReadonlySet<string> } {
    const key = values.map(scalarKey).join('\u0000');
    return { keyed: this.keyed.get(key), unkeyed: this.unkeyed };
  }

  add(doc: Doc): void {
    const keys = this.keysOf(doc);
    if (keys === UNKEYED) this.unkeyed.add(doc._id);
    else
      for (const key of keys) {
        let ids = this.keyed.get(key);
        if (!ids) this.keyed.set(key, (ids = new Set()));
        ids.add(doc._id);
      }
  }

  remove(doc: Doc): void {
    const keys = this.keysOf(doc);
    if (keys === UNKEYED) this.unkeyed.delete(doc._id);
    else
      for (const key of keys) {
        const ids = this.keyed.get(key);
        if (!ids) continue;
        ids.delete(doc._id);
        if (ids.size === 0) this.keyed.delete(key);
      }
  }

  private keysOf(doc: Doc): string[] | typeof UNKEYED {
    const parts: string[] = [];
    for (const path of this.paths) {
      const value = valueAt(doc, path);
      if (value === UNKEYED) return UNKEYED;
      if (Array.isArray(value)) {
        if (this.paths.length > 1) return UNKEYED;
        const keys = new Set<string>();
        for (const element of value) {
          if (isScalar(element)) keys.add(scalarKey(element));
          else if (element !== null) return UNKEYED;
        }
        return [...keys];
      }
      if (value !== null && typeof value === 'object') return UNKEYED;
      if (!isScalar(value)) return [];
      parts.push(scalarKey(value));
    }
    return [parts.join('\u0000')];
  }
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The value at a path; UNKEYED when the path runs through an array (MongoDB would look into every element). */
function valueAt(doc: Doc, path: readonly string[]): unknown {
  let current: unknown = doc;
  for (let i = 0; i < path.length; i++) {
    if (Array.isArray(current)) return UNKEYED;
    if (current === null || typeof current !== 'object') return undefined;
    current = hasOwn.call(current, path[i]) ? (current as Record<string, unknown>)[path[i]] : undefined;
  }
  return current;
}
