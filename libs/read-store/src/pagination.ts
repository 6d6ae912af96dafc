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
 * different types order as null < numbers < strings < objects < booleans. Comparison operators
 * (`$gt`, `$lt`) only match values of the operand's type, so "strictly after" is the union of
 * "greater within the same type" and "any value of a type that sorts later" (one `$type` each).
 *
 * The filter is a top-level `$or` of plain branches, each an AND of equalities on earlier sort keys
 * and one range or single-type condition on the next, with the caller's filter copied into every
 * branch: MongoDB plans each branch on the sort index (bounded scans merged in sort order) instead
 * of scanning and sorting every match, which a nested `$or` under `$and` forced.
 *
 * Rules: sort fields hold null/missing, numbers, strings, objects or booleans, never arrays (arrays
 * are multikey in MongoDB and cannot be paginated by value); null and missing are one value,
 * matched by their own branch (`$eq: null` / `$ne: null`), never by a range.
 *
 * A cursor also carries the first page's `count` with a fingerprint of the filter it counted, so
 * later pages of the same query do not count again (the count is as of the first page).
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
export function encodeCursor(doc: Doc, sort: SortSpec, counted?: { filter: Filter; count: number }): string {
  const payload: unknown[] = [sortFingerprint(sort)];
  for (const [field] of sort) payload.push(sortValue(doc, field));
  // The count rides after the values, tagged with the filter it counted (another filter recounts).
  if (counted) payload.push([filterFingerprint(counted.filter), counted.count]);
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/**
 * The sort-key values a cursor carries, one per entry of `sort`. A cursor that is not one of ours,
 * was made for another sort, or is otherwise malformed is a `ReadStoreInputError`.
 */
export function decodeCursor(cursor: string, sort: SortSpec): unknown[] {
  return readCursor(cursor, sort).values;
}

/** The values of a cursor and the count it carries for `filter`, if it carries one for that filter. */
export function readCursor(cursor: string, sort: SortSpec, filter?: Filter): { values: unknown[]; count?: number } {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !CURSOR_CHARS.test(cursor)) {
    throw invalidCursor();
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (
    !Array.isArray(payload) ||
    (payload.length !== sort.length + 1 && payload.length !== sort.length + 2) ||
    payload[0] !== sortFingerprint(sort)
  ) {
    throw invalidCursor();
  }
  const values = payload.slice(1, sort.length + 1);
  for (let i = 0; i < sort.length; i++) {
    if (sort[i][0] === '_id' && typeof values[i] !== 'string') throw invalidCursor();
  }
  if (payload.length === sort.length + 1) return { values };
  const counted = payload[sort.length + 1] as unknown;
  if (
    !Array.isArray(counted) ||
    counted.length !== 2 ||
    typeof counted[0] !== 'string' ||
    !Number.isSafeInteger(counted[1]) ||
    (counted[1] as number) < 0
  ) {
    throw invalidCursor();
  }
  return filter !== undefined && counted[0] === filterFingerprint(filter) ? { values, count: counted[1] as number } : { values };
}

/**
 * `filter` restricted to the documents after the cursor: the cursor's branches, each with the
 * filter's conditions copied in (so that the `$or` stays at the top level, where MongoDB plans every
 * branch on an index). A branch that names a field the filter also constrains keeps both under `$and`.
 */
export function filterAfter(filter: Filter, sort: SortSpec, values: unknown[]): Filter {
  const after = afterCursorFilter(sort, values);
  const branches = (after.$or as Filter[] | undefined) ?? [after];
  const merged = branches.map((branch) =>
    Object.keys(branch).some((key) => Object.prototype.hasOwnProperty.call(filter, key))
      ? { $and: [filter, branch] }
      : { ...filter, ...branch },
  );
  return merged.length === 1 ? merged[0] : { $or: merged };
}

function invalidCursor(): ReadStoreInputError {
  return new ReadStoreInputError('invalid page cursor: use the `next` value of a previous page with the same sort');
}

/** MongoDB `$type` aliases of the sortable types, in sort order after null (no arrays: see above). */
const TYPE_ORDER = ['number', 'string', 'object', 'bool'] as const;

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

/** Index in `TYPE_ORDER` of a rank from `typeRank` (arrays, unsupported, are placed before booleans). */
function typeSlot(rank: number): number {
  return rank === 5 ? 4 : rank;
}

/**
 * A filter matching exactly the documents that sort strictly after the cursor position `values`
 * (one value per `sort` entry): a flat `$or`, over each sort key, of "equal on every earlier key and
 * strictly after on this one", one branch per range or type.
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
    for (const condition of strictlyAfter(field, direction, value)) clauses.push({ ...equal, [field]: condition });
    equal[field] = { $eq: value };
  }
  if (clauses.length === 1) return clauses[0];
  if (clauses.length === 0) return { _id: { $in: [] } };
  return { $or: clauses };
}

/** Conditions on `field` (to be OR-ed) matching values strictly after `value`; none when nothing is. */
function strictlyAfter(field: string, direction: 1 | -1, value: unknown): Filter[] {
  if (field === '_id' && typeof value === 'string') {
    // `_id` is always a string: no other type can sort around it.
    return [direction === 1 ? { $gt: value } : { $lt: value }];
  }
  const slot = typeSlot(typeRank(value));
  if (direction === 1) {
    if (slot === 0) return [{ $ne: null }];
    return [{ $gt: value }, ...TYPE_ORDER.slice(slot).map((type) => ({ $type: type }))];
  }
  if (slot === 0) return [];
  return [{ $lt: value }, ...TYPE_ORDER.slice(0, slot - 1).map((type) => ({ $type: type })), { $eq: null }];
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
      current = Object.prototype.hasOwnProperty.call(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
    }
  }
  return current === undefined ? null : current;
}

/** A short fingerprint of a sort, so that a cursor made for another sort is refused. */
function sortFingerprint(sort: SortSpec): string {
  return fnv1a(sort.map(([field, direction]) => `${field}:${direction}`).join(','));
}

/** A short fingerprint of a filter, so that a count carried by a cursor is used only for the filter it counted. */
function filterFingerprint(filter: Filter): string {
  return fnv1a(JSON.stringify(filter) ?? '');
}

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
