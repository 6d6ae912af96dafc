/** What the areas of the `ReadStore` contract share: the store under test, its documents and helpers. */
import type { Collection, Doc, Filter, FindOptions, ReadStore } from './read-store.port';

/** The store a test of the contract runs against (fresh and empty), and its collection `items`; set before each test. */
export interface ContractSubject {
  store: ReadStore;
  items: Collection<Item>;
}

export interface Item extends Doc {
  title?: string;
  n?: number | null | string | boolean | Record<string, unknown>;
  group?: string;
  score?: number;
  tags?: string[];
  meta?: { owner?: string; level?: number };
}

/** Every page of a query, in order, with the `count` each page reported. */
export async function allPages<T extends Doc>(
  collection: Collection<T>,
  filter: Filter,
  options: FindOptions,
): Promise<{ ids: string[]; counts: number[]; pages: number }> {
  const ids: string[] = [];
  const counts: number[] = [];
  let after: string | undefined = options.after;
  let pages = 0;
  do {
    const page = await collection.find(filter, { ...options, after });
    pages++;
    ids.push(...page.items.map((item) => item._id));
    counts.push(page.count);
    after = page.next;
    if (pages > 1000) throw new Error('pagination does not end');
  } while (after !== undefined);
  return { ids, counts, pages };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
