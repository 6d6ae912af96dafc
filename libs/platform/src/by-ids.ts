/** What `byIds` needs of a read-store collection: its lookup by `_id`. */
export interface LookupById<T> {
  get(id: string): Promise<T | null>;
  find(filter: { _id: { $in: string[] } }, options: { limit: number; count: false }): Promise<{ items: T[] }>;
}

/** Above this many ids, one `$in` query (one round trip to a database) beats a lookup each. */
const MAX_LOOKUPS = 16;

/**
 * The documents with these ids (each once; unknown ids left out), by
 * direct lookups rather than a `{ _id: { $in } }` query: a read of a few documents by id then
 * costs a map lookup each, where a query is compiled for every call (the API benchmark found
 * such queries on most read paths: docs/performance.md). Reads on the request path (the
 * counters of one space, the users of one page of comments) name few ids; many ids still take one
 * query (one round trip to MongoDB rather than one each).
 */
export async function byIds<T>(collection: LookupById<T>, ids: readonly string[]): Promise<T[]> {
  const unique = [...new Set(ids)];
  if (unique.length > MAX_LOOKUPS) return (await collection.find({ _id: { $in: unique } }, { limit: unique.length, count: false })).items;
  const found = await Promise.all(unique.map((id) => collection.get(id)));
  return found.filter((doc): doc is Awaited<T> & T => doc !== null);
}
