import { LRUCache } from 'lru-cache';
import type { BlobStore } from '#blob-store/blob-store.port';
import type { DocumentNode } from '#document/document.model';
import { canonicalJson, sha256Hex } from './canonical-json';
import { deepFreeze } from '#platform/plain-object';
import type { FileList, PageNode, TreeRoot } from './tree.model';

/** Anything a revision tree stores: its root, page nodes, file lists and page bodies. */
export type TreeBlob = TreeRoot | PageNode | FileList | DocumentNode;
type TreeBlobKind = TreeBlob['object'];

/** A blob serialized and hashed, not yet stored: the editor hashes bodies when they are set, writes them on commit. */
export interface EncodedBlob {
  hash: string;
  bytes: Buffer;
}

export interface TreeStoreOptions {
  /** Bound of the parsed-blob cache, in approximate bytes of heap. Default 64 MiB. */
  maxCacheBytes?: number;
}

/** A blob is not what the tree says it is (a node hash naming a body, a truncated write, ...). */
export class TreeBlobError extends Error {
  override readonly name = 'TreeBlobError';
  constructor(
    readonly hash: string,
    message: string,
  ) {
    super(`tree blob ${hash}: ${message}`);
  }
}

export const DEFAULT_TREE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Parsed objects take several times their JSON size on the heap (property maps, string headers);
 * the cache bound is meant in heap bytes, so each entry counts as a multiple of its JSON.
 */
const HEAP_BYTES_PER_JSON_BYTE = 3;

/** The empty file list and the empty tree: well known, so a new space needs no write to have content. */
const EMPTY_FILE_LIST: FileList = deepFreeze({ object: 'file-list', files: [] });
const EMPTY_FILE_LIST_HASH = sha256Hex(canonicalJson(EMPTY_FILE_LIST));
const EMPTY_ROOT: TreeRoot = deepFreeze({ object: 'content-tree', pages: [], files: EMPTY_FILE_LIST_HASH, variables: {} });
const EMPTY_ROOT_HASH = sha256Hex(canonicalJson(EMPTY_ROOT));
/** Root hash of the empty tree, as `TreeStore.EMPTY`. */
export const EMPTY_TREE_ROOT = EMPTY_ROOT_HASH;

const WELL_KNOWN = new Map<string, TreeBlob>([
  [EMPTY_FILE_LIST_HASH, EMPTY_FILE_LIST],
  [EMPTY_ROOT_HASH, EMPTY_ROOT],
]);

/**
 * Reads and writes the blobs of revision trees over a `BlobStore`, with an LRU cache of the parsed
 * blobs keyed by hash. Blobs are immutable (the hash is their content), so a cached value is never
 * stale and needs no invalidation. Cached values are frozen and shared by every reader: clone one
 * (`structuredClone`) before changing it.
 */
export class TreeStore {
  /** Root hash of the empty tree (no pages, no files, no variables). Readable before anything is stored. */
  static readonly EMPTY = EMPTY_ROOT_HASH;
  /** Hash of the empty file list. */
  static readonly EMPTY_FILES = EMPTY_FILE_LIST_HASH;

  private readonly cache: LRUCache<string, TreeBlob>;
  /** Reads under way, so that concurrent reads of one hash fetch and parse it once. */
  private readonly reading = new Map<string, Promise<TreeBlob>>();
  private emptyFilesStored: Promise<void> | undefined;

  constructor(
    readonly blobs: BlobStore,
    options: TreeStoreOptions = {},
  ) {
    const maxSize = options.maxCacheBytes ?? DEFAULT_TREE_CACHE_BYTES;
    if (!Number.isSafeInteger(maxSize) || maxSize <= 0) throw new RangeError('TreeStore: maxCacheBytes must be a positive integer');
    // Sizes are given on each set (the JSON length is known there); the function is a fallback.
    this.cache = new LRUCache<string, TreeBlob>({ maxSize, sizeCalculation: (value) => heapBytes(canonicalJson(value).length) });
  }

  readRoot(hash: string): Promise<TreeRoot> {
    return this.readAs(hash, 'content-tree');
  }

  readNode(hash: string): Promise<PageNode> {
    return this.readAs(hash, 'page-node');
  }

  readFiles(hash: string): Promise<FileList> {
    return this.readAs(hash, 'file-list');
  }

  readDocument(hash: string): Promise<DocumentNode> {
    return this.readAs(hash, 'document');
  }

  /** A page node if it is cached, without waiting: lets a warm load of a large tree run synchronously. */
  peekNode(hash: string): PageNode | undefined {
    const value = this.cache.get(hash);
    return value?.object === 'page-node' ? value : undefined;
  }

  /** Stores a blob as canonical JSON (idempotent) and returns its hash; the parsed blob is cached. */
  async write(value: TreeBlob): Promise<string> {
    return (await this.writeEncoded(this.encode(value))).hash;
  }

  /** Serializes and hashes a blob without storing it. */
  encode(value: TreeBlob): EncodedBlob {
    if (!isTreeBlobKind((value as { object?: unknown } | null)?.object)) {
      throw new TypeError('TreeStore.write: not a tree blob (expected object: content-tree, page-node, file-list or document)');
    }
    const bytes = Buffer.from(canonicalJson(value), 'utf8');
    return { hash: sha256Hex(bytes), bytes };
  }

  /** Stores an encoded blob; `size` is the number of bytes handed to the blob store. */
  async writeEncoded(encoded: EncodedBlob): Promise<{ hash: string; size: number }> {
    const parsed = this.parse(encoded.hash, encoded.bytes);
    // A root naming the empty file list must not point at a blob that was never stored.
    if (parsed.object === 'content-tree' && parsed.files === EMPTY_FILE_LIST_HASH) await this.storeEmptyFiles();
    const info = await this.blobs.put(encoded.bytes);
    if (info.hash !== encoded.hash) throw new TreeBlobError(encoded.hash, `the blob store named it ${info.hash}`);
    this.remember(encoded.hash, parsed, encoded.bytes.length);
    return { hash: encoded.hash, size: encoded.bytes.length };
  }

  /**
   * Stores a new tree's blobs all at once, in no order (docs/content.md, Storage): a tree is
   * reachable only through the root hash of an event appended after this resolves. Resolves to the
   * number of bytes handed to the blob store.
   */
  async writeAll(blobs: readonly EncodedBlob[]): Promise<number> {
    const written = await Promise.all(blobs.map((blob) => this.writeEncoded(blob)));
    return written.reduce((total, { size }) => total + size, 0);
  }

  /** Stores the empty tree (root and file list) and returns its hash, `TreeStore.EMPTY`. */
  async writeEmpty(): Promise<string> {
    return this.write(EMPTY_ROOT);
  }

  /** Heap bytes the cache holds (approximate) and its entry count. */
  cacheStats(): { bytes: number; entries: number } {
    return { bytes: this.cache.calculatedSize, entries: this.cache.size };
  }

  // ---------------------------------------------------------------------------------------------

  private async readAs<K extends TreeBlobKind>(hash: string, kind: K): Promise<Extract<TreeBlob, { object: K }>> {
    const value = this.cache.get(hash) ?? (await this.load(hash));
    if (value.object !== kind) throw new TreeBlobError(hash, `expected a ${kind} blob, found ${value.object}`);
    return value as Extract<TreeBlob, { object: K }>;
  }

  private load(hash: string): Promise<TreeBlob> {
    const wellKnown = WELL_KNOWN.get(hash);
    if (wellKnown) return Promise.resolve(wellKnown);
    let pending = this.reading.get(hash);
    if (!pending) {
      pending = this.blobs
        .read(hash)
        .then((bytes) => {
          const parsed = this.parse(hash, bytes);
          this.remember(hash, parsed, bytes.length);
          return parsed;
        })
        .finally(() => this.reading.delete(hash));
      this.reading.set(hash, pending);
    }
    return pending;
  }

  private parse(hash: string, bytes: Buffer): TreeBlob {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new TreeBlobError(hash, 'not JSON');
    }
    const kind = (value as { object?: unknown } | null)?.object;
    if (!isTreeBlobKind(kind)) throw new TreeBlobError(hash, 'not a tree blob');
    return deepFreeze(value as TreeBlob);
  }

  private remember(hash: string, value: TreeBlob, jsonBytes: number): void {
    this.cache.set(hash, value, { size: heapBytes(jsonBytes) });
  }

  private storeEmptyFiles(): Promise<void> {
    this.emptyFilesStored ??= this.blobs.put(Buffer.from(canonicalJson(EMPTY_FILE_LIST), 'utf8')).then(
      () => undefined,
      (error: unknown) => {
        this.emptyFilesStored = undefined;
        throw error;
      },
    );
    return this.emptyFilesStored;
  }
}

function isTreeBlobKind(kind: unknown): kind is TreeBlobKind {
  return kind === 'content-tree' || kind === 'page-node' || kind === 'file-list' || kind === 'document';
}

function heapBytes(jsonBytes: number): number {
  return Math.max(1, jsonBytes * HEAP_BYTES_PER_JSON_BYTE);
}
