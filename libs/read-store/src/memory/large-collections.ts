/**
 * Large collections of the embedded read store: collections that grow with the log and are read a
 * page at a time (the audit log: 660,000 of the 1,000,000-event seed's documents). Their documents
 * and the entries of their declared indexes stay in the read-model file (`read-model-file.ts`) and
 * are read from it on each request, so they cost the memory of the pages read, not of the
 * collection. The memory read store holds every other collection in memory.
 *
 * Layout, in the file's keys under three names no collection can have (they start with NUL):
 * - `[DOCUMENTS, collection, storage id]` → the document;
 * - `[ENTRIES, collection, index tag, rank₁, value₁, …, rankₙ, valueₙ, storage id]` → true: one key
 *   per document and kept index, in the index's order (every field ascending; a read in a
 *   descending order walks backward); null and missing are their rank with no value after it;
 * - `[REGISTRY, 'collection', name]` and `[REGISTRY, 'index', name, index]` → the large collections,
 *   and the indexes whose entries are kept, with how many documents each leaves out.
 *
 * Order. A key orders as `compareValues` does: each value is preceded by its type rank (null and
 * missing < numbers < strings < booleans), and strings are stored so that LMDB's byte order is
 * UTF-16 code-unit order (`storageString`). A document whose value at an indexed path is an object
 * or an array (multikey in MongoDB), or whose key would pass LMDB's key size, is left out of that
 * index and counted as irregular: the index then answers no read (the store scans), as with the
 * in-memory sorted indexes.
 *
 * Writes (`declare`, `ensureIndex`, `write`, `drop`) run inside one of the file's transactions: a
 * commit's (`ReadModelFile.write`), with the rest of the commit and its checkpoint, so the file never
 * holds a large collection ahead of the checkpoint it was written with; or a synchronous one
 * (`ReadModelFile.writeSync`: declaring, dropping). Until a commit is written, the memory read store
 * answers its documents from memory (`pending`).
 */
import { createHash } from 'node:crypto';
import type { RootDatabase } from 'lmdb';
import type { Doc } from '../read-store.port';
import { typeRank } from '../pagination';
import { resolvePath, splitPath } from './paths';

export type KeyPart = string | number | boolean;

/** After every stored string and number: the end of a range of keys (strings are stored below U+127FF). */
export const END = '\u{10FFFF}';
/** Names of the file's key spaces for large collections (a collection name has no NUL). */
export const LARGE_KEY_SPACE = '\u0000';
const DOCUMENTS = '\u0000documents';
const ENTRIES = '\u0000entries';
const REGISTRY = '\u0000registry';
/** Below LMDB's default maximum key size (1,978 bytes), with room for the encoding's separators. */
const MAX_KEY_BYTES = 1900;
const HIGH_UNITS = /[\ud800-\uffff]/;
const ASTRAL = /[\ud800-\udfff]/;

/** One document written by a commit, with the document it replaces (undefined: none). */
export interface LargeWrite {
  readonly id: string;
  readonly before: Doc | undefined;
  readonly after: Doc | null;
}

/** An index of a large collection whose entries are kept. */
interface LargeIndex {
  /** The index's identity in the memory read store: its fields with directions, as JSON. */
  readonly key: string;
  /** Its short name in entry keys. */
  readonly tag: string;
  readonly paths: readonly (readonly string[])[];
}

function largeIndex(key: string): LargeIndex {
  const fields = (JSON.parse(key) as Array<[string, number]>).map(([field]) => field);
  return { key, tag: tagOf(key), paths: fields.map((field) => splitPath(field)) };
}

function tagOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

/**
 * A string as keys store it: code units below U+D800 unchanged, the others moved above the Basic
 * Multilingual Plane (U+10000 + unit − U+D800), one code point per code unit. The result is
 * well-formed (lone surrogates included) and its UTF-8 byte order, LMDB's, is the original's
 * UTF-16 code-unit order, the order of `compareValues`. Most strings contain no such unit.
 */
export function storageString(value: string): string {
  if (!HIGH_UNITS.test(value)) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    out += unit < 0xd800 ? value[i] : String.fromCodePoint(0x10000 + unit - 0xd800);
  }
  return out;
}

/** The string `storageString` stored (entry keys end with a document's storage id). */
export function idOf(stored: string): string {
  if (!ASTRAL.test(stored)) return stored;
  let out = '';
  for (const char of stored) {
    const point = char.codePointAt(0)!;
    out += point < 0x10000 ? char : String.fromCharCode(point - 0x10000 + 0xd800);
  }
  return out;
}

/**
 * The key parts of values an index holds, in its field order: each value's type rank, then the
 * value as stored (none for null and missing, which are one value); null when one cannot be
 * ordered by plain comparison (an object or an array).
 */
export function valuesParts(values: readonly unknown[]): KeyPart[] | null {
  const parts: KeyPart[] = [];
  for (const value of values) {
    const rank = typeRank(value);
    if (rank === 0) parts.push(0);
    else if (rank === 1) parts.push(1, (value as number) === 0 ? 0 : (value as number));
    else if (rank === 2) parts.push(2, storageString(value as string));
    else if (rank === 5) parts.push(5, value as boolean);
    else return null;
  }
  return parts;
}

function keyBytes(parts: readonly KeyPart[]): number {
  let bytes = 0;
  for (const part of parts) bytes += typeof part === 'string' ? Buffer.byteLength(part) + 2 : 10;
  return bytes;
}

function irregularKey(collection: string, indexKey: string): string {
  return `${collection}\u0000${indexKey}`;
}

function sameKey(a: readonly KeyPart[], b: readonly KeyPart[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/** The large collections of a read-model file. Reads run at any time; writes only inside one of the file's transactions. */
export class LargeCollections {
  /** Per collection, the indexes whose entries are kept (read from the registry once). */
  private readonly kept = new Map<string, LargeIndex[]>();
  /**
   * Per collection and index, how many documents it leaves out, as the commits handed over so far
   * leave it: read from the registry once, then kept here, since `write` runs in a batch that
   * cannot read what the commits queued before it wrote.
   */
  private readonly irregularCounts = new Map<string, number>();

  /** @param db the file's database (msgpack values: documents, registry records, `true` for entries). */
  constructor(private db: RootDatabase<unknown, KeyPart[]>) {}

  /** The file's database opened again (`ReadModelFile.releaseMappedPages`). */
  useDatabase(db: RootDatabase<unknown, KeyPart[]>): void {
    this.db = db;
  }

  /** The collections declared large, in name order. */
  collectionNames(): string[] {
    return Array.from(this.db.getKeys({ start: [REGISTRY, 'collection'], end: [REGISTRY, 'collection', END] }), (key) => key[2] as string);
  }

  /** Records a collection as large (idempotent). */
  declare(collection: string): void {
    void this.db.put([REGISTRY, 'collection', collection], true);
  }

  /**
   * Keeps entries for an index (identified by its key), filled from the collection's documents the
   * first time; every later write moves them. Answers whether the index holds every document of
   * the collection, so that it may answer reads.
   */
  ensureIndex(collection: string, key: string): boolean {
    let state = this.indexState(collection, key);
    if (!state) {
      const index = largeIndex(key);
      let irregular = 0;
      for (const { key: documentKey, value } of this.db.getRange({ start: [DOCUMENTS, collection], end: [DOCUMENTS, collection, END] })) {
        const entry = this.entryKey(collection, index, value as Doc, documentKey[2] as string);
        if (entry) void this.db.put(entry, true);
        else irregular++;
      }
      state = { irregular };
      void this.db.put([REGISTRY, 'index', collection, key], state);
      this.kept.delete(collection);
    }
    this.irregularCounts.set(irregularKey(collection, key), state.irregular);
    return state.irregular === 0;
  }

  /** Whether the file keeps entries for the index already: `ensureIndex` then writes nothing. */
  hasIndex(collection: string, key: string): boolean {
    return this.indexState(collection, key) !== undefined;
  }

  /** Whether the index holds every document of the collection (see `ensureIndex`). */
  usable(collection: string, key: string): boolean {
    return this.indexState(collection, key)?.irregular === 0;
  }

  /** The short name of an index in entry keys (`walk`, `count`). */
  tagOf(key: string): string {
    return tagOf(key);
  }

  get(collection: string, id: string): Doc | undefined {
    return this.stored(collection, storageString(id));
  }

  /** A document by its storage id (as `walk` yields it). */
  stored(collection: string, storageId: string): Doc | undefined {
    return this.db.get([DOCUMENTS, collection, storageId]) as Doc | undefined;
  }

  /** Every document of the collection, read as iterated. */
  *scan(collection: string): Iterable<Doc> {
    for (const { value } of this.db.getRange({ start: [DOCUMENTS, collection], end: [DOCUMENTS, collection, END] })) yield value as Doc;
  }

  /**
   * Writes one commit's documents of a collection and moves its index entries. Each write names the
   * document it replaces, as the commit saw it (its pending version, else the file's): the file
   * holds exactly that when the commit's transaction runs, since commits are written in order, so
   * nothing is read back here (a read per document was a third of the time a replay spent writing
   * the audit log).
   */
  write(collection: string, writes: Iterable<LargeWrite>): void {
    const indexes = this.indexesOf(collection);
    const irregular = indexes.map(
      (index) => this.irregularCounts.get(irregularKey(collection, index.key)) ?? this.indexState(collection, index.key)?.irregular ?? 0,
    );
    for (const { id, before, after } of writes) {
      const stored = storageString(id);
      indexes.forEach((index, i) => {
        const old = before ? this.entryKey(collection, index, before, stored) : undefined;
        const next = after ? this.entryKey(collection, index, after, stored) : undefined;
        if (old && next && sameKey(old, next)) return;
        if (old) void this.db.remove(old);
        else if (before) irregular[i]--;
        if (next) void this.db.put(next, true);
        else if (after) irregular[i]++;
      });
      if (after) void this.db.put([DOCUMENTS, collection, stored], after);
      else if (before) void this.db.remove([DOCUMENTS, collection, stored]);
    }
    indexes.forEach((index, i) => {
      this.irregularCounts.set(irregularKey(collection, index.key), irregular[i]);
      void this.db.put([REGISTRY, 'index', collection, index.key], { irregular: irregular[i] });
    });
  }

  /**
   * Storage ids of an index's entries whose leading values are `prefix` (key parts), in index order
   * (backward from the end with `reverse`), from `from` on (key parts of the next values, inclusive).
   */
  *walk(
    collection: string,
    tag: string,
    prefix: readonly KeyPart[],
    from: readonly KeyPart[] | undefined,
    reverse: boolean,
  ): Iterable<string> {
    const base = [ENTRIES, collection, tag, ...prefix];
    const start = from ? [...base, ...from] : base;
    const range = reverse ? { start: [...start, END], end: base, reverse: true } : { start, end: [...base, END] };
    for (const key of this.db.getKeys(range)) yield key[key.length - 1] as string;
  }

  /** The number of an index's entries whose leading values are `prefix` (key parts). */
  count(collection: string, tag: string, prefix: readonly KeyPart[]): number {
    const base = [ENTRIES, collection, tag, ...prefix];
    return this.db.getKeysCount({ start: base, end: [...base, END] });
  }

  /** The number of documents of the collection (a walk over its keys, no document read). */
  countAll(collection: string): number {
    return this.db.getKeysCount({ start: [DOCUMENTS, collection], end: [DOCUMENTS, collection, END] });
  }

  /** The ranges of the file's keys that hold a collection: its documents, index entries and registration. */
  ranges(collection: string): Array<{ start: KeyPart[]; end: KeyPart[] }> {
    const ranges = [
      [DOCUMENTS, collection],
      [ENTRIES, collection],
      [REGISTRY, 'index', collection],
    ].map((prefix) => ({ start: prefix, end: [...prefix, END] }));
    return [...ranges, { start: [REGISTRY, 'collection', collection], end: [REGISTRY, 'collection', collection, END] }];
  }

  /** Removes a collection: its documents, index entries and registration. */
  drop(collection: string): void {
    for (const range of this.ranges(collection)) {
      for (const key of this.db.getKeys(range)) void this.db.remove(key);
    }
    this.forget(collection);
  }

  /** Forgets what was read of a collection that is no longer in the file (`drop`, `ReadModelFile.dropByRewrite`). */
  forget(collection: string): void {
    for (const key of this.irregularCounts.keys()) if (key.startsWith(irregularKey(collection, ''))) this.irregularCounts.delete(key);
    this.kept.delete(collection);
  }

  private indexState(collection: string, key: string): { irregular: number } | undefined {
    return this.db.get([REGISTRY, 'index', collection, key]) as { irregular: number } | undefined;
  }

  private indexesOf(collection: string): LargeIndex[] {
    let indexes = this.kept.get(collection);
    if (!indexes) {
      indexes = Array.from(this.db.getKeys({ start: [REGISTRY, 'index', collection], end: [REGISTRY, 'index', collection, END] }), (key) =>
        largeIndex(key[3] as string),
      );
      this.kept.set(collection, indexes);
    }
    return indexes;
  }

  /** A document's entry in an index, or undefined when the index cannot hold it (irregular). */
  private entryKey(collection: string, index: LargeIndex, doc: Doc, storageId: string): KeyPart[] | undefined {
    const values: unknown[] = [];
    for (const path of index.paths) {
      const value = resolvePath(doc, path);
      if (Array.isArray(value)) return undefined;
      values.push(value);
    }
    const parts = valuesParts(values);
    if (!parts) return undefined;
    const key = [ENTRIES, collection, index.tag, ...parts, storageId];
    return keyBytes(key) <= MAX_KEY_BYTES ? key : undefined;
  }
}
