/** A collection's committed state in the memory read store, and how a read chooses the index it walks. */
import type { Doc, Filter } from '../read-store.port';
import type { SortSpec } from '../pagination';
import { resolvePath } from './paths';
import { EqualityLookup, indexEqualities, scalarEqualities, type Scalar } from './equality-lookups';
import { SortedIndex } from './sorted-index';
import { MaintainedCounts } from './maintained-counts';
import { idOf, valuesParts, type LargeCollections } from './large-collections';
import { testFilter, type CompiledFilter } from './compiled-filter';
import type { IndexDefinition, UniqueIndex } from './index-definition';

/** How a read walks a sorted index (`CollectionState.indexPlan`): in memory, or a large collection's entries on disk. */
export interface IndexPlan<I = SortedIndex> {
  index: I;
  /** Values of the leading index fields the filter sets (null: null or missing): the range walked. */
  prefix: (Scalar | null)[];
  /** Whether those equalities are the whole filter (every entry of the range matches). */
  exact: boolean;
  /** Whether the sort runs against the index's directions (the range is walked from its end). */
  backward: boolean;
  /** How many index fields after the prefix are sort fields. */
  walked: number;
  /** Whether prefix and sort fields are all the index's fields (entries with equal values are then in `_id` order). */
  wholeKey: boolean;
}

/** An index of a large collection, as a plan walks it: its definition and its entries' name in the file. */
export interface LargeIndexRef {
  readonly definition: IndexDefinition;
  readonly tag: string;
}

/** What an equality lookup answers: ids that hold the values, and ids it cannot tell about. */
export interface Lookup {
  candidates(values: readonly Scalar[]): { keyed: Iterable<string> | undefined; unkeyed: Iterable<string> };
}

export class CollectionState {
  /** The documents, unless the collection is large (then in `large`). */
  readonly docs = new Map<string, Doc>();
  readonly indexes: IndexDefinition[] = [];
  readonly unique: UniqueIndex[] = [];
  /** Equality lookups over leading fields of the declared indexes, by their fields joined with ','; built on first use. */
  readonly lookups = new Map<string, EqualityLookup>();
  /** Sorted indexes of the declared indexes, by their key; built on first use. */
  readonly sorted = new Map<string, SortedIndex>();
  /** Counts of filters already counted, kept up to date by every commit. */
  readonly counts = new MaintainedCounts();
  /** @param large set for a large collection: its documents and index entries live in this file, not in `docs`. */
  constructor(
    readonly name: string,
    readonly large?: LargeCollections,
  ) {}

  /**
   * A large collection's writes committed and handed to the file but not written yet, by id (null:
   * deleted), with the number of the commit that made each: reads take these before the file's.
   */
  readonly pending = new Map<string, { doc: Doc | null; commit: number }>();

  get(id: string): Doc | undefined {
    if (!this.large) return this.docs.get(id);
    const pending = this.pending.get(id);
    return pending ? (pending.doc ?? undefined) : this.large.get(this.name, id);
  }

  /** Every document (a large collection's read from disk as iterated, its pending writes over it). */
  *values(): Iterable<Doc> {
    if (!this.large) return yield* this.docs.values();
    for (const doc of this.large.scan(this.name)) if (!this.pending.has(doc._id)) yield doc;
    for (const { doc } of this.pending.values()) if (doc) yield doc;
  }

  /** A large collection's pending documents, those a read must add to what the file answers. */
  pendingDocs(): Doc[] {
    const docs: Doc[] = [];
    for (const { doc } of this.pending.values()) if (doc) docs.push(doc);
    return docs;
  }

  /** How many documents matching `query` the pending writes add (or remove, when negative) to what the file holds. */
  pendingDelta(query: CompiledFilter | null): number {
    let delta = 0;
    for (const [id, { doc }] of this.pending) {
      const stored = this.large!.get(this.name, id);
      delta += (doc && testFilter(query, doc) ? 1 : 0) - (stored && testFilter(query, stored) ? 1 : 0);
    }
    return delta;
  }

  /** Whether a large collection's index may answer reads: the file's entries hold every document, and no pending one is irregular. */
  private largeUsable(definition: IndexDefinition): boolean {
    if (!this.large!.usable(this.name, definition.key)) return false;
    for (const { doc } of this.pending.values())
      if (doc && valuesParts(definition.paths.map((path) => resolvePath(doc, path))) === null) return false;
    return true;
  }

  /** The sorted index of a declared index, built from the committed documents on first use. */
  sortedIndex(definition: IndexDefinition): SortedIndex {
    let index = this.sorted.get(definition.key);
    if (!index)
      this.sorted.set(
        definition.key,
        (index = new SortedIndex(definition.fields, definition.paths, definition.directions, this.docs.values())),
      );
    return index;
  }

  /** How a read walks a sorted index in memory (`choosePlan`); null for a large collection. */
  indexPlan(filter: Filter | undefined, sort: SortSpec | null): IndexPlan | null {
    if (this.large) return null;
    return choosePlan(
      this.indexes,
      filter,
      sort,
      (definition) => definition.directions,
      (definition) => {
        const index = this.sortedIndex(definition);
        return index.usable ? index : null;
      },
    );
  }

  /** How a read walks a large collection's index entries (`choosePlan`): every field is stored ascending. */
  largePlan(filter: Filter | undefined, sort: SortSpec | null): IndexPlan<LargeIndexRef> | null {
    const large = this.large!;
    return choosePlan(
      this.indexes,
      filter,
      sort,
      (definition) => definition.fields.map(() => 1),
      (definition) => (this.largeUsable(definition) ? { definition, tag: large.tagOf(definition.key) } : null),
    );
  }

  /**
   * The lookup for the longest run of leading index fields that `filter` sets to scalars, and the
   * values it sets them to; `exact` when those equalities are the whole filter.
   */
  lookupFor(filter: Filter): { lookup: Lookup; values: Scalar[]; exact: boolean } | null {
    if (this.indexes.length === 0) return null;
    const { equalities, conditions } = scalarEqualities(filter);
    if (equalities.size === 0) return null;
    let best: IndexDefinition | undefined;
    let length = 0;
    for (const definition of this.indexes) {
      if (this.large && !this.largeUsable(definition)) continue;
      let n = 0;
      while (n < definition.fields.length && equalities.has(definition.fields[n])) n++;
      if (n > length) [best, length] = [definition, n];
    }
    if (!best) return null;
    const values = best.fields.slice(0, length).map((field) => equalities.get(field)!);
    if (this.large) {
      // The entries whose leading values are these: ids read from the keys, no document fetched; pending documents to test.
      const [large, tag] = [this.large, this.large.tagOf(best.key)];
      const lookup: Lookup = {
        candidates: (probe) => ({
          keyed: Array.from(large.walk(this.name, tag, valuesParts(probe)!, undefined, false), idOf).filter((id) => !this.pending.has(id)),
          unkeyed: this.pendingDocs().map((doc) => doc._id),
        }),
      };
      return { lookup, values, exact: conditions === length };
    }
    const fields = best.fields.slice(0, length);
    const name = fields.join(',');
    let lookup = this.lookups.get(name);
    if (!lookup) this.lookups.set(name, (lookup = new EqualityLookup(fields, best.paths.slice(0, length), this.docs.values())));
    return { lookup, values, exact: conditions === length };
  }
}

/**
 * The declared index that answers `filter` in `sort` order by a walk over one range: the longest
 * run of its leading fields set to scalars by the filter (the range), then the sort's fields (less
 * those the range fixes) as the next fields of the index, all in its directions (`directions`: how
 * the walked structure orders each field) or all against. With no sort field left, the range must
 * cover every field (its entries are then in `_id` order). `usable` gives the index to walk, or
 * null when it cannot answer reads.
 */
function choosePlan<I>(
  indexes: readonly IndexDefinition[],
  filter: Filter | undefined,
  sort: SortSpec | null,
  directionsOf: (definition: IndexDefinition) => readonly (1 | -1)[],
  usable: (definition: IndexDefinition) => I | null,
): IndexPlan<I> | null {
  if (indexes.length === 0) return null;
  const { equalities, conditions } = filter ? indexEqualities(filter) : { equalities: new Map<string, Scalar | null>(), conditions: 0 };
  let best: IndexPlan<I> | null = null;
  let bestScore = -1;
  for (const definition of indexes) {
    const directions = directionsOf(definition);
    let k = 0;
    while (k < definition.fields.length && equalities.has(definition.fields[k])) k++;
    let backward = false;
    let walked = 0;
    if (sort) {
      const fixed = new Set(definition.fields.slice(0, k));
      const rest = sort.slice(0, -1).filter(([field]) => !fixed.has(field));
      if (rest.length === 0 && k < definition.fields.length) continue;
      if (rest.length > definition.fields.length - k) continue;
      let sign = 0;
      let fits = true;
      for (let i = 0; i < rest.length && fits; i++) {
        const [field, direction] = rest[i];
        const relative = direction * directions[k + i];
        fits = field === definition.fields[k + i] && (sign === 0 || sign === relative);
        sign = relative;
      }
      if (!fits) continue;
      if (rest.length === 0) sign = sort[sort.length - 1][1];
      backward = sign === -1;
      walked = rest.length;
    } else if (k === 0) continue;
    const score = k * 100 + walked;
    if (score <= bestScore) continue;
    const index = usable(definition);
    if (index === null) continue;
    bestScore = score;
    best = {
      index,
      prefix: definition.fields.slice(0, k).map((field) => equalities.get(field)!),
      exact: conditions === k,
      backward,
      walked,
      wholeKey: k + walked === definition.fields.length,
    };
  }
  return best;
}
