import type { Filter, ReadStore } from './read-store.port';

/** Reads every page of a query (bounded result sets: one organization's collections, one parent's children). */
export async function readAll<T extends { _id: string }>(
  reads: ReadStore,
  collection: string,
  filter: Filter,
  sort?: Record<string, 1 | -1>,
): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  do {
    const page = await reads.collection<T & { _id: string }>(collection).find(filter, { sort, limit: 1000, after, count: false });
    all.push(...page.items);
    after = page.next;
  } while (after !== undefined);
  return all;
}
