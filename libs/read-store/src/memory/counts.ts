/** Counts in the memory read store: a range's width, a count kept up to date by every commit, or a scan. */
import type { Filter } from '../read-store.port';
import { MaintainedCounts } from './maintained-counts';
import { idOf, valuesParts } from './large-collections';
import { compileFilter, testFilter, type CompiledFilter } from './compiled-filter';
import type { CollectionState, IndexPlan, LargeIndexRef } from './collection-state';
import { committedSource, eachMatch, idList, type DocSource } from './doc-source';
import { checkFilter } from './input-checks';

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
export function countOnIndex(state: CollectionState, plan: IndexPlan, filter: Filter | undefined, query: CompiledFilter | null): number {
  const { index, prefix } = plan;
  if (plan.exact) return index.rank(index.seek(prefix, undefined, true)) - index.rank(index.seek(prefix, undefined, false));
  return keptCount(state, filter, () => {
    let count = 0;
    for (const entry of index.forward(index.seek(prefix, undefined, false))) {
      if (prefix.length > 0 && index.compare(entry, prefix) !== 0) break;
      if (query === null || testFilter(query, entry.doc)) count++;
    }
    return { count, query };
  });
}

/**
 * `countOnIndex` for a large collection: a kept count, else the range's width in the file (the
 * width is a walk over the range's keys in LMDB, so it is kept too) or a walk over the range.
 */
export function countOnLarge(
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
      if (doc && (query === null || testFilter(query, doc))) count++;
    }
    for (const doc of state.pendingDocs()) if (testFilter(whole, doc)) count++;
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

export function countIn(source: DocSource, filter: Filter | undefined): number {
  if (filter !== undefined && filter !== null) checkFilter(filter);
  if (source.committed && idList(filter ?? undefined) === undefined) return countCommitted(source.committed, filter ?? undefined);
  let count = 0;
  eachMatch(source, filter, () => void count++);
  return count;
}
