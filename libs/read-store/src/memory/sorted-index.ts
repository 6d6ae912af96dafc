/**
 * Sorted indexes for the memory read store: the ordered counterpart of a declared index, so that a
 * page of `find(filter, { sort, after })` visits about `limit` documents instead of every document
 * the filter's equalities select, and `count` of an equality prefix is the width of a range.
 *
 * An index holds one entry per document: the values of its fields (in sort-key form: plain member
 * access, missing as undefined, compared with `compareValues` like the sort comparator) and the
 * `_id` as the tie-breaker, ordered by the fields in their declared directions then `_id`
 * ascending. Entries live in blocks of at most `BLOCK` entries (a sorted list of sorted arrays), so
 * an insert or removal moves at most one block's entries and a seek is two binary searches.
 *
 * A document that holds an array at an indexed field, or whose path runs through an array, would
 * be multikey in MongoDB (its equality and range semantics differ from plain comparison): it is
 * kept aside as "irregular", and an index holding any such document is not used to answer reads
 * (the store then scans, as before).
 *
 * Built on first use from the committed documents, then kept up to date by every commit, which is
 * synchronous: a transaction that throws never reaches it, so it never holds uncommitted writes.
 */
import type { Doc } from '../read-store.port';
import { compareValues } from './paths';

const BLOCK = 512;

export interface IndexEntry {
  readonly key: unknown[];
  readonly id: string;
  doc: Doc;
}

/** A position between entries: block and offset (offset may equal the block's length at the very end). */
export interface Position {
  block: number;
  offset: number;
}

const IRREGULAR = Symbol('irregular');
const hasOwn = Object.prototype.hasOwnProperty;

/** The value at a path for indexing; IRREGULAR when an array is met on the way or at the end. */
function keyValue(doc: Doc, path: readonly string[]): unknown {
  let current: unknown = doc;
  for (let i = 0; i < path.length; i++) {
    if (Array.isArray(current)) return IRREGULAR;
    if (current === null || typeof current !== 'object') return undefined;
    current = hasOwn.call(current, path[i]) ? (current as Record<string, unknown>)[path[i]] : undefined;
  }
  return Array.isArray(current) ? IRREGULAR : current;
}

export class SortedIndex {
  private blocks: IndexEntry[][] = [];
  /** `_id` → its entry, to find an entry again on update and removal. */
  private readonly byId = new Map<string, IndexEntry>();
  /** Ids of the documents that cannot be ordered by plain comparison (see above). */
  private readonly irregular = new Set<string>();

  constructor(
    readonly fields: readonly string[],
    private readonly paths: readonly (readonly string[])[],
    readonly directions: readonly (1 | -1)[],
    docs: Iterable<Doc>,
  ) {
    const entries: IndexEntry[] = [];
    for (const doc of docs) {
      const entry = this.entryOf(doc);
      if (entry) {
        entries.push(entry);
        this.byId.set(entry.id, entry);
      } else this.irregular.add(doc._id);
    }
    entries.sort((a, b) => this.compare(a, b.key, b.id));
    for (let i = 0; i < entries.length; i += BLOCK) this.blocks.push(entries.slice(i, i + BLOCK));
  }

  /** Whether reads may use the index: no document of the collection is irregular. */
  get usable(): boolean {
    return this.irregular.size === 0;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Moves the index from `before` to `after` (either may be null: an insertion or a deletion). */
  replace(id: string, before: Doc | null | undefined, after: Doc | null | undefined): void {
    const old = before ? this.byId.get(id) : undefined;
    const next = after ? this.entryOf(after) : null;
    if (old && next && this.compare(old, next.key, next.id) === 0) {
      old.doc = after!;
      return;
    }
    if (before) {
      if (old) this.removeEntry(old);
      else this.irregular.delete(id);
    }
    if (after) {
      if (next) this.insertEntry(next);
      else this.irregular.add(id);
    }
  }

  /**
   * Sign of `entry` against a probe: the first `probe.length` fields in index order, then `_id`
   * when `id` is given. 0 means the entry falls within the probe (a prefix probe matches a range).
   */
  compare(entry: IndexEntry, probe: readonly unknown[], id?: string): number {
    for (let i = 0; i < probe.length; i++) {
      const order = compareValues(entry.key[i], probe[i]);
      if (order !== 0) return order * this.directions[i];
    }
    if (id === undefined) return 0;
    return entry.id < id ? -1 : entry.id > id ? 1 : 0;
  }

  /** First position whose entry compares ≥ 0 (`strict`: > 0) to the probe. */
  seek(probe: readonly unknown[], id: string | undefined, strict: boolean): Position {
    const past = (entry: IndexEntry) => {
      const order = this.compare(entry, probe, id);
      return strict ? order > 0 : order >= 0;
    };
    let low = 0;
    let high = this.blocks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const block = this.blocks[middle];
      if (past(block[block.length - 1])) high = middle;
      else low = middle + 1;
    }
    if (low === this.blocks.length) return this.end();
    const block = this.blocks[low];
    let start = 0;
    let stop = block.length;
    while (start < stop) {
      const middle = (start + stop) >>> 1;
      if (past(block[middle])) stop = middle;
      else start = middle + 1;
    }
    return { block: low, offset: start };
  }

  /** Number of entries before a position. */
  rank(position: Position): number {
    let rank = position.offset;
    for (let b = 0; b < position.block; b++) rank += this.blocks[b].length;
    return rank;
  }

  /** Entries from `position` onwards, in index order. */
  *forward(position: Position): Generator<IndexEntry> {
    for (let b = position.block, o = position.offset; b < this.blocks.length; b++, o = 0) {
      const block = this.blocks[b];
      for (let i = o; i < block.length; i++) yield block[i];
    }
  }

  /** Entries before `position`, in reverse index order. */
  *backward(position: Position): Generator<IndexEntry> {
    let offset = position.offset - 1;
    for (let b = position.block; b >= 0; b--) {
      const block = this.blocks[b];
      if (block) for (let i = Math.min(offset, block.length - 1); i >= 0; i--) yield block[i];
      offset = Number.MAX_SAFE_INTEGER;
    }
  }

  private end(): Position {
    const last = this.blocks.length - 1;
    return last < 0 ? { block: 0, offset: 0 } : { block: last, offset: this.blocks[last].length };
  }

  private entryOf(doc: Doc): IndexEntry | null {
    const key: unknown[] = new Array(this.paths.length);
    for (let i = 0; i < this.paths.length; i++) {
      const value = keyValue(doc, this.paths[i]);
      if (value === IRREGULAR) return null;
      key[i] = value;
    }
    return { key, id: doc._id, doc };
  }

  private insertEntry(entry: IndexEntry): void {
    this.byId.set(entry.id, entry);
    if (this.blocks.length === 0) {
      this.blocks.push([entry]);
      return;
    }
    let { block, offset } = this.seek(entry.key, entry.id, false);
    if (block === this.blocks.length) [block, offset] = [this.blocks.length - 1, this.blocks[this.blocks.length - 1].length];
    const target = this.blocks[block];
    target.splice(offset, 0, entry);
    if (target.length > BLOCK * 2) this.blocks.splice(block, 1, target.slice(0, BLOCK), target.slice(BLOCK));
  }

  private removeEntry(entry: IndexEntry): void {
    this.byId.delete(entry.id);
    const { block, offset } = this.seek(entry.key, entry.id, false);
    const target = this.blocks[block];
    if (!target || target[offset] !== entry) throw new Error('sorted index out of step with its collection');
    target.splice(offset, 1);
    if (target.length === 0) this.blocks.splice(block, 1);
    else if (target.length < BLOCK / 4 && block + 1 < this.blocks.length && target.length + this.blocks[block + 1].length <= BLOCK * 2) {
      this.blocks.splice(block, 2, target.concat(this.blocks[block + 1]));
    }
  }
}
