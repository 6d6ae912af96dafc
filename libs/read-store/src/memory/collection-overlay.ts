/** A transaction's pending writes to one collection of the memory read store, and the write operations on them. */
import { DuplicateKeyError } from '../errors';
import type { Doc, Filter } from '../read-store.port';
import type { DocumentWrite } from './read-model-file';
import { applyUpdate, type ParsedUpdate } from './update-engine';
import type { CollectionState } from './collection-state';
import { matching, type Candidates, type DocSource } from './doc-source';
import { duplicateKey, indexKeys } from './index-definition';

export interface Write {
  readonly id: string;
  readonly before: Doc | null;
  readonly after: Doc | null;
}

/** One transaction's pending writes to one collection. */
export class CollectionOverlay implements DocSource {
  /** `_id` → new document, or null for a deletion. */
  readonly writes = new Map<string, Doc | null>();
  /** Per unique index of the base: keys this transaction gives to documents. */
  private readonly added: Map<string, string>[];
  /** Per unique index of the base: keys this transaction takes away from committed documents. */
  private readonly removed: Set<string>[];

  constructor(
    readonly name: string,
    readonly base: CollectionState | undefined,
  ) {
    const count = base ? base.unique.length : 0;
    this.added = Array.from({ length: count }, () => new Map());
    this.removed = Array.from({ length: count }, () => new Set());
  }

  lookup(id: string): Doc | undefined {
    const written = this.writes.get(id);
    if (written !== undefined) return written ?? undefined;
    return this.base?.get(id);
  }

  *all(): Iterable<Doc> {
    if (this.base) {
      for (const doc of this.base.values()) if (!this.writes.has(doc._id)) yield doc;
    }
    for (const doc of this.writes.values()) if (doc) yield doc;
  }

  /** The base's candidates this transaction left alone, and every document it wrote (to test). */
  candidates(filter: Filter): Candidates | null {
    const plan = this.base?.lookupFor(filter);
    if (!plan) return null;
    const base = this.base!;
    const { keyed, unkeyed } = plan.lookup.candidates(plan.values);
    const untouched = (ids: Iterable<string> | undefined) =>
      ids
        ? Array.from(ids)
            .filter((id) => !this.writes.has(id))
            .map((id) => base.get(id)!)
        : [];
    const written = [...this.writes.values()].filter((doc): doc is Doc => doc !== null);
    return plan.exact
      ? { matching: untouched(keyed), maybe: [...untouched(unkeyed), ...written] }
      : { matching: [], maybe: [...untouched(keyed), ...untouched(unkeyed), ...written] };
  }

  private owner(index: number, key: string): string | undefined {
    const added = this.added[index].get(key);
    if (added !== undefined) return added;
    if (this.removed[index].has(key)) return undefined;
    return this.base?.unique[index].entries.get(key);
  }

  /**
   * Applies a batch of writes to the overlay, all or none: every unique index is checked against
   * committed state, the overlay and the batch itself before anything changes.
   */
  apply(batch: Write[]): void {
    const unique = this.base?.unique ?? [];
    const keysOf: Array<Array<{ before: string[] | null; after: string[] | null }>> = [];
    for (let i = 0; i < unique.length; i++) {
      const definition = unique[i].definition;
      const perWrite = batch.map((write) => ({
        before: write.before ? indexKeys(definition, write.before) : null,
        after: write.after ? indexKeys(definition, write.after) : null,
      }));
      keysOf.push(perWrite);
      const released = new Set<string>();
      for (const keys of perWrite) if (keys.before) for (const key of keys.before) released.add(key);
      const taken = new Map<string, string>();
      for (let w = 0; w < batch.length; w++) {
        const after = perWrite[w].after;
        if (!after) continue;
        const id = batch[w].id;
        for (const key of after) {
          const other = taken.get(key);
          if (other !== undefined && other !== id) throw duplicateKey(this.name, definition, key);
          taken.set(key, id);
          const owner = this.owner(i, key);
          if (owner !== undefined && owner !== id && !released.has(key)) throw duplicateKey(this.name, definition, key);
        }
      }
    }
    for (let i = 0; i < unique.length; i++) {
      const entries = unique[i].entries;
      const added = this.added[i];
      const removed = this.removed[i];
      for (let w = 0; w < batch.length; w++) {
        const before = keysOf[i][w].before;
        if (!before) continue;
        const id = batch[w].id;
        for (const key of before) {
          if (added.get(key) === id) added.delete(key);
          if (entries.get(key) === id) removed.add(key);
        }
      }
      for (let w = 0; w < batch.length; w++) {
        const after = keysOf[i][w].after;
        if (after) for (const key of after) added.set(key, batch[w].id);
      }
    }
    for (const { id, after } of batch) this.writes.set(id, after);
  }

  /** The overlay's writes, as the file stores them. */
  changes(): DocumentWrite[] {
    return Array.from(this.writes, ([id, doc]) => ({ collection: this.name, id, doc }));
  }

  /** Applies the overlay to committed state (synchronous); not for a large collection (`MemoryReadStore.commit`). */
  commitTo(state: CollectionState): void {
    for (let i = 0; i < state.unique.length; i++) {
      const entries = state.unique[i].entries;
      for (const key of this.removed[i]) entries.delete(key);
      for (const [key, id] of this.added[i]) entries.set(key, id);
    }
    const maintained = state.lookups.size > 0 || state.sorted.size > 0 || state.counts.size > 0;
    for (const [id, doc] of this.writes) {
      if (maintained) {
        const before = state.docs.get(id);
        for (const lookup of state.lookups.values()) {
          if (before) lookup.remove(before);
          if (doc) lookup.add(doc);
        }
        for (const index of state.sorted.values()) index.replace(id, before, doc);
        state.counts.apply(before, doc);
      }
      if (doc) state.docs.set(id, doc);
      else state.docs.delete(id);
    }
  }
}

// The write operations, on an overlay; shared by transactions and one-operation writes.

/** Inserts a document already copied by `cloneDocument`. */
export function insertInto(overlay: CollectionOverlay, copy: Doc): void {
  if (overlay.lookup(copy._id)) throw new DuplicateKeyError(overlay.name, '_id', { _id: copy._id });
  overlay.apply([{ id: copy._id, before: null, after: copy }]);
}

/** Stores a document already copied by `cloneDocument`. */
export function putInto(overlay: CollectionOverlay, copy: Doc): void {
  overlay.apply([{ id: copy._id, before: overlay.lookup(copy._id) ?? null, after: copy }]);
}

export function updateIn(overlay: CollectionOverlay, id: string, parsed: ParsedUpdate, upsert: boolean): Doc | null {
  const before = overlay.lookup(id);
  if (!before && !upsert) return null;
  const after = applyUpdate(before ?? { _id: id }, parsed, !before);
  overlay.apply([{ id, before: before ?? null, after }]);
  return after;
}

export function updateManyIn(overlay: CollectionOverlay, filter: Filter, parsed: ParsedUpdate): number {
  const targets = matching(overlay, filter);
  overlay.apply(targets.map((before) => ({ id: before._id, before, after: applyUpdate(before, parsed, false) })));
  return targets.length;
}

export function deleteIn(overlay: CollectionOverlay, id: string): boolean {
  const before = overlay.lookup(id);
  if (!before) return false;
  overlay.apply([{ id, before, after: null }]);
  return true;
}

export function deleteManyIn(overlay: CollectionOverlay, filter: Filter): number {
  const targets = matching(overlay, filter);
  overlay.apply(targets.map((before) => ({ id: before._id, before, after: null })));
  return targets.length;
}
