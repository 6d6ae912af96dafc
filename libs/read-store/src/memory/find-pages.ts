/** Pages of `find` in the memory read store: by a scan, or by a walk along a sorted index in memory or a large collection's on disk. */
import { ReadStoreInputError } from '../errors';
import type { Doc, Filter, FindOptions, Page } from '../read-store.port';
import { afterCursorFilter, checkLimit, encodeCursor, normalizeSort, readCursor, type SortSpec } from '../pagination';
import { compareValues, sortKeyValue, splitPath } from './paths';
import { idOf, storageString, valuesParts } from './large-collections';
import { compileFilter, testFilter, type CompiledFilter } from './compiled-filter';
import type { CollectionState, IndexPlan, LargeIndexRef } from './collection-state';
import { eachMatch, handOut, idList, type DocSource } from './doc-source';
import { countOnIndex, countOnLarge } from './counts';
import { checkFilter } from './input-checks';

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

export function findIn<T extends Doc>(source: DocSource, filter: Filter | undefined, options: FindOptions = {}, shared = false): Page<T> {
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
    if (afterQuery !== null && !testFilter(afterQuery, doc)) return;
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
      if ((afterCursor === null || afterCursor(doc)) && testFilter(whole, doc)) keepFirst(selected, doc, limit + 1, compare);
  }
  const ordered = extra.length === 0 && plan.wholeKey && sort[sort.length - 1][1] === (plan.backward ? -1 : 1);
  for (const doc of docs) {
    if (selected.length > limit && (ordered || compareFields(doc, selected[limit]) > 0)) break;
    if (afterCursor !== null && !afterCursor(doc)) continue;
    if (query !== null && !testFilter(query, doc)) continue;
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
