import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import type { DocumentNode } from '#document/document.model';
import { RevisionTree } from './tree/revision-tree';
import { TreeStore } from './tree/tree-store';

/** Loaded trees kept, counted in pages: a 10,000-page space's tree takes a few megabytes. */
const LOADED_TREE_PAGES = 200_000;

/**
 * The revision trees of every space, as the queries, the commands and the projections read them: a
 * tree is loaded once per root hash (immutable, so never stale) and kept in an LRU bounded by
 * pages, over the blob store's own LRU of parsed nodes and bodies. One per blob store, shared by
 * the whole process: the tree the links projection derives for a new revision from its parent's is
 * the one the next read and the next write use. Page bodies are never held in read models.
 */
export class LoadedTrees {
  private readonly loaded = new LRUCache<string, RevisionTree>({
    maxSize: LOADED_TREE_PAGES,
    sizeCalculation: (tree) => Math.max(1, tree.size),
  });
  private readonly loading = new Map<string, Promise<RevisionTree>>();

  constructor(readonly store: TreeStore) {}

  /**
   * The tree of a root hash. Given `from` (a loaded tree, usually the revision's parent), a tree not
   * yet loaded is derived from it, reading only the nodes along the changed hashes.
   */
  async tree(rootHash: string, from?: RevisionTree): Promise<RevisionTree> {
    const cached = this.loaded.get(rootHash);
    if (cached) return cached;
    let pending = this.loading.get(rootHash);
    if (!pending) {
      pending = (from ? RevisionTree.derive(this.store, from, rootHash) : RevisionTree.load(this.store, rootHash)).finally(() =>
        this.loading.delete(rootHash),
      );
      this.loading.set(rootHash, pending);
    }
    const tree = await pending;
    this.loaded.set(rootHash, tree);
    return tree;
  }
}

/** The process's loaded trees, injectable. */
@Injectable()
export class ContentTrees {
  readonly store: TreeStore;
  private readonly trees: LoadedTrees;

  constructor(@Inject(BLOB_STORE) readonly blobs: BlobStore) {
    this.trees = loadedTreesOf(blobs);
    this.store = this.trees.store;
  }

  /** The tree of a root hash; derived from `from` (usually its parent's) when it is not loaded yet. */
  tree(rootHash: string, from?: RevisionTree): Promise<RevisionTree> {
    return this.trees.tree(rootHash, from);
  }

  document(hash: string): Promise<DocumentNode> {
    return this.store.readDocument(hash);
  }
}

const loadedTrees = new WeakMap<object, LoadedTrees>();

/** The loaded trees over a blob store (one per store in a process). */
export function loadedTreesOf(blobs: Pick<BlobStore, 'read'> & Partial<BlobStore>): LoadedTrees {
  let trees = loadedTrees.get(blobs);
  if (!trees) {
    trees = new LoadedTrees(treeStoreOf(blobs));
    loadedTrees.set(blobs, trees);
  }
  return trees;
}

const stores = new WeakMap<object, TreeStore>();

/** One tree store (and so one cache) per blob store, shared by the queries, the commands and the projections of a process. */
export function treeStoreOf(blobs: Pick<BlobStore, 'read'> & Partial<BlobStore>): TreeStore {
  let store = stores.get(blobs);
  if (!store) {
    store = new TreeStore(blobs as BlobStore);
    stores.set(blobs, store);
  }
  return store;
}
