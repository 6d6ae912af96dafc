/**
 * Keyset pagination shared by the read-store adapters (memory on mingo, MongoDB).
 *
 * A page is "the first `limit` documents, in sort order, strictly after the last document of the
 * previous page". The cursor carries that last document's sort-key values (and a fingerprint of
 * the sort it was made for); `afterCursorFilter` turns it into a query filter. Because the filter
 * is expressed in MongoDB query syntax, the same code serves both adapters, and a page is stable
 * under concurrent inserts and deletes: no document is visited twice or skipped (a document that
 * moves in sort order between pages may be).
 *
 * Sort order follows MongoDB: null and missing are equal and come first ascending (last descending);
 * different types order as null < numbers < strings < objects < arrays < booleans. Comparison
 * operators (`$gt`, `$lt`) only match values of the operand's type, so "strictly after" is the
 * union of "greater within the same type" and "any value of a type that sorts later" (`$type`).
 * Sort fields are expected to hold scalars (or objects); array-valued sort fields are multikey in
 * MongoDB and cannot be paginated by value.
 */
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type Doc, type Filter, type Sort } from './read-store.port';
import { ReadStoreInputError } from './errors';

export type SortSpec = Array<[string, 1 | -1]>;

/** Longest cursor accepted, in characters (a cursor holds the sort values of one document). */
const MAX_CURSOR_LENGTH = 16_384;
const CURSOR_CHARS = /^[A-Za-z0-9_-]+$/;

/**
 * Validates a sort and appends `_id` ascending as the tie-breaker unless `_id` is already there.
 * Keys after `_id` are dropped: `_id` is unique, so they can never change the order.
 */
export function normalizeSort(sort?: Sort): SortSpec {
  const spec: SortSpec = [];
  if (sort !== undefined && sort !== null) {
    if (typeof sort !== 'object' || Array.isArray(sort)) {
      throw new ReadStoreInputError('sort must be an object of field → 1 or -1');
    }
    for (const field of Object.keys(sort)) {
      checkSortField(field);
      const direction = (sort as Record<string, unknown>)[field];
      if (direction !== 1 && direction !== -1) {
        throw new ReadStoreInputError(`sort direction of '${field}' must be 1 or -1`);
      }
      spec.push([field, direction]);
      if (field === '_id') return spec;
    }
  }
  spec.push(['_id', 1]);
  return spec;
}

function checkSortField(field: string): void {
  if (field.length === 0 || field.length > 1024 || field.startsWith('$') || field.split('.').some((s) => s === '')) {
    throw new ReadStoreInputError(`invalid sort field ${JSON.stringify(field.slice(0, 100))}`);
  }
}

/** The page size: `DEFAULT_PAGE_LIMIT` when absent, otherwise an integer in 1..`MAX_PAGE_LIMIT`. */
export function checkLimit(limit?: number): number {
  if (limit === undefined || limit === null) return DEFAULT_PAGE_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new ReadStoreInputError(`limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${String(limit)}`);
  }
  return limit;
}

/** The cursor of the page that follows `doc` (the last item of a page) in this sort. */
export function encodeCursor(doc: Doc, sort: SortSpec): string {
  const payload: unknown[] = [sortFingerprint(sort)];
  for (const [field] of sort) payload.push(sortValue(doc, field));
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/**
 * The sort-key values a cursor carries, one per entry of `sort`. A cursor that is not one of ours,
 * was made for another sort, or is otherwise malformed is a `ReadStoreInputError`.
 */
export function decodeCursor(cursor: string, sort: SortSpec): unknown[] {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !CURSOR_CHARS.test(cursor)) {
    throw invalidCursor();
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(payload) || payload.length !== sort.length + 1 || payload[0] !== sortFingerprint(sort)) {
    throw invalidCursor();
  }
  const values = payload.slice(1);
  for (let i = 0; i < sort.length; i++) {
    if (sort[i][0] === '_id' && typeof values[i] !== 'string') throw invalidCursor();
  }
  return values;
}

function invalidCursor(): ReadStoreInputError {
  return new ReadStoreInputError('invalid page cursor: use the `next` value of a previous page with the same sort');
}

/** MongoDB `$type` aliases in sort order (after null). */
const TYPE_ORDER = ['number', 'string', 'object', 'array', 'bool'] as const;

/** Position of a value's type in MongoDB's sort order: null/missing < numbers < strings < objects < arrays < booleans. */
export function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  switch (typeof value) {
    case 'number':
      return 1;
    case 'string':
      return 2;
    case 'boolean':
      return 5;
    default:
      return Array.isArray(value) ? 4 : 3;
  }
}

/**
 * A filter matching exactly the documents that sort strictly after the cursor position `values`
 * (one value per `sort` entry): the `$or`, over each sort key, of "equal on every earlier key and
 * strictly after on this one".
 */
export function afterCursorFilter(sort: SortSpec, values: unknown[]): Filter {
  if (!Array.isArray(values) || values.length !== sort.length) {
    throw new ReadStoreInputError('invalid page cursor: it does not match the sort');
  }
  const clauses: Filter[] = [];
  const equal: Filter = {};
  for (let i = 0; i < sort.length; i++) {
    const [field, direction] = sort[i];
    const value = values[i] === undefined ? null : values[i];
    const after = strictlyAfter(field, direction, value);
    if (after !== null) {
      const clause: Filter = { ...equal };
      if (after.length === 1) Object.assign(clause, after[0]);
      else clause.$or = after;
      clauses.push(clause);
    }
    equal[field] = { $eq: value };
  }
  if (clauses.length === 1) return clauses[0];
  if (clauses.length === 0) return { _id: { $in: [] } };
  return { $or: clauses };
}

/** Alternatives (to be OR-ed) matching values strictly after `value` on `field`, or null for none. */
function strictlyAfter(field: string, direction: 1 | -1, value: unknown): Filter[] | null {
  if (field === '_id' && typeof value === 'string') {
    // `_id` is always a string: no other type can sort around it.
    return [{ _id: direction === 1 ? { $gt: value } : { $lt: value } }];
  }
  const rank = typeRank(value);
  if (direction === 1) {
    if (rank === 0) return [{ [field]: { $ne: null } }];
    const alternatives: Filter[] = [{ [field]: { $gt: value } }];
    const later = TYPE_ORDER.slice(rank);
    if (later.length > 0) alternatives.push({ [field]: { $type: [...later] } });
    return alternatives;
  }
  if (rank === 0) return null;
  const alternatives: Filter[] = [{ [field]: { $lt: value } }];
  const earlier = TYPE_ORDER.slice(0, rank - 1);
  if (earlier.length > 0) alternatives.push({ [field]: { $type: [...earlier] } });
  alternatives.push({ [field]: { $eq: null } });
  return alternatives;
}

/** The value of a (dotted) sort field in a document, missing as null. */
function sortValue(doc: Doc, field: string): unknown {
  let current: unknown = doc;
  for (const segment of field.split('.')) {
    if (current === null || typeof current !== 'object') return null;
    if (Array.isArray(current)) {
      const index = /^(0|[1-9]\d{0,8})$/.test(segment) ? Number(segment) : NaN;
      if (Number.isNaN(index)) return null;
      current = current[index];
    } else {
      current = Object.prototype.hasOwnProperty.call(current, segment)
        ? (current as Record<string, unknown>)[segment]
        : undefined;
    }
  }
  return current === undefined ? null : current;
}

/** A short fingerprint of a sort, so that a cursor made for another sort is refused. */
function sortFingerprint(sort: SortSpec): string {
  let hash = 0x811c9dc5;
  const text = sort.map(([field, direction]) => `${field}:${direction}`).join(',');
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
