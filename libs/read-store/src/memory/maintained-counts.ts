/**
 * Counts kept by the memory read store: once a filter has been counted, its count is kept and
 * moved by every commit (each written document's before and after tested against the filter), so
 * that counting it again costs nothing whatever the collection holds. The first page of every list
 * asks for its count; without this, that is a walk over every matching document per request.
 *
 * At most `MAX_COUNTS` filters per collection are kept (least recently used dropped first), and
 * only filters of reasonable size, so that each commit tests a bounded number of filters. A filter's
 * top-level scalar equalities are checked first on plain fields, so most written documents are
 * ruled out without running the query. A filter whose test throws on a written document is dropped
 * (it is counted again on the next request) rather than failing the commit.
 */
import type { Doc, Filter } from '../read-store.port';
import { scalarEqualities, type Scalar } from './equality-lookups';

/** A compiled filter, as the memory read store keeps them. */
interface DocumentTest {
  test(doc: Doc): boolean;
}

const MAX_COUNTS = 64;
const MAX_KEY_LENGTH = 4096;

interface Counted {
  count: number;
  query: DocumentTest | null;
  /** Top-level scalar equalities on undotted fields, checked before the query. */
  equalities: Array<[string, Scalar]>;
}

const hasOwn = Object.prototype.hasOwnProperty;

export class MaintainedCounts {
  private readonly entries = new Map<string, Counted>();

  /** The key a filter is kept under, or null when it is too large to keep. */
  static keyOf(filter: Filter | undefined): string | null {
    const key = JSON.stringify(filter ?? {});
    return key.length <= MAX_KEY_LENGTH ? key : null;
  }

  get(key: string): number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.count;
  }

  set(key: string, filter: Filter | undefined, query: DocumentTest | null, count: number): void {
    if (this.entries.size >= MAX_COUNTS) this.entries.delete(this.entries.keys().next().value!);
    const equalities = filter ? [...scalarEqualities(filter).equalities].filter(([field]) => !field.includes('.')) : [];
    this.entries.set(key, { count, query, equalities });
  }

  get size(): number {
    return this.entries.size;
  }

  /** Moves every kept count by one document's write (before and/or after may be absent). */
  apply(before: Doc | null | undefined, after: Doc | null | undefined): void {
    for (const [key, entry] of this.entries) {
      try {
        const delta = (after && matches(entry, after) ? 1 : 0) - (before && matches(entry, before) ? 1 : 0);
        entry.count += delta;
      } catch {
        this.entries.delete(key);
      }
    }
  }
}

function matches(entry: Counted, doc: Doc): boolean {
  for (const [field, value] of entry.equalities) {
    const held = hasOwn.call(doc, field) ? doc[field] : undefined;
    if (held !== value && !Array.isArray(held)) return false;
  }
  return entry.query === null || entry.query.test(doc);
}
