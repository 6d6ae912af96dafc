import type { FileEntry, FileList, PageNode, PageView, TreeRoot } from './tree.model';
import { TreeStore } from './tree-store';

/** Node reads in flight at once while loading a level: enough to keep the store busy, not so many that file handles run out. */
const LOAD_CONCURRENCY = 64;

/** The nodes of one depth, as loaded: `firstChild[i]` is where node i's children start in the next level. */
interface Level {
  hashes: readonly string[];
  nodes: PageNode[];
  firstChild: Int32Array;
}

/**
 * A run of a derived tree's pre-order: a node read from the store (`from` -1), or the whole subtree
 * of the previous tree at `from`; placed at `start`, under `parent`, at `index` among its siblings.
 */
interface Segment {
  from: number;
  node: PageNode;
  hash: string;
  start: number;
  parent: number;
  index: number;
  depth: number;
  path: string;
}

/** A tree has an id at most once; a blob set that says otherwise was not written by the editor. */
export class RevisionTreeError extends Error {
  override readonly name = 'RevisionTreeError';
}

/**
 * One revision, loaded: every page node of the tree, read once, then answered synchronously.
 *
 * Compact by design, since the service caches one per root hash: the page nodes themselves are the
 * store's cached (frozen) objects, and where each sits is kept in typed arrays indexed by the page's
 * position in depth-first order, a subtree being the range `[position, end[position])`. `PageView`s
 * are built on request.
 */
export class RevisionTree {
  private pathIndex: Map<string, number> | undefined;
  private fileIndex: Map<string, FileEntry> | undefined;

  private constructor(
    readonly rootHash: string,
    private readonly root: TreeRoot,
    private readonly fileList: FileList,
    /** Page nodes in depth-first order. */
    private readonly nodes: readonly PageNode[],
    private readonly hashes: readonly string[],
    /** Position of the parent, -1 at the top level. */
    private readonly parents: Int32Array,
    /** End (exclusive) of the subtree that starts at a position. */
    private readonly ends: Int32Array,
    /** Index among siblings. */
    private readonly indexes: Int32Array,
    private readonly depths: Int32Array,
    private readonly paths: readonly string[],
    private readonly positions: ReadonlyMap<string, number>,
  ) {}

  /**
   * Loads a revision: the root and file list, then the page nodes level by level, each level's
   * missing nodes read in parallel. Nodes already in the store's cache are taken synchronously, so
   * a warm load is one pass over the tree.
   */
  static async load(store: TreeStore, rootHash: string): Promise<RevisionTree> {
    const root = await store.readRoot(rootHash);
    const fileList = store.readFiles(root.files);
    // A rejected file list must not go unhandled while the nodes load.
    fileList.catch(() => undefined);
    // Level by level: each level's hashes are its parents' children, concatenated in order.
    const levels: Level[] = [];
    let hashes: readonly string[] = root.pages;
    while (hashes.length > 0) {
      const nodes: PageNode[] = new Array<PageNode>(hashes.length);
      const missing: number[] = [];
      for (let i = 0; i < hashes.length; i++) {
        const cached = store.peekNode(hashes[i]);
        if (cached) nodes[i] = cached;
        else missing.push(i);
      }
      await readMissing(store, hashes, missing, nodes);
      const firstChild = new Int32Array(hashes.length);
      const next: string[] = [];
      for (let i = 0; i < nodes.length; i++) {
        firstChild[i] = next.length;
        for (const child of nodes[i].children) next.push(child);
      }
      levels.push({ hashes, nodes, firstChild });
      hashes = next;
    }
    return RevisionTree.build(rootHash, root, await fileList, levels);
  }

  /**
   * A revision's tree derived from another one's, usually its parent's: a tree is a Merkle tree, so
   * every subtree whose node hash `previous` already holds is taken from it as it is, and only the
   * nodes along the changed hashes are read from the store. When every page keeps its place (edits
   * of attributes and bodies), the new tree shares the previous one's layout and indexes and copies
   * only its lists of nodes, hashes and paths. Equal, node for node, to `load` of the same root.
   */
  static async derive(store: TreeStore, previous: RevisionTree, rootHash: string): Promise<RevisionTree> {
    if (rootHash === previous.rootHash) return previous;
    const root = await store.readRoot(rootHash);
    const fileList = root.files === previous.root.files ? previous.fileList : await store.readFiles(root.files);
    const { segments, count } = await previous.segmentsOf(store, root);
    const tree = previous.inPlace(segments, count)
      ? previous.patched(rootHash, root, fileList, segments)
      : previous.laidOut(rootHash, root, fileList, segments, count);
    if (fileList === previous.fileList) tree.fileIndex = previous.fileIndex;
    return tree;
  }

  /**
   * The pre-order walk of a new root against this tree: each segment is either a node read from the
   * store (a changed page) or a whole subtree of this tree whose node hash did not change, placed
   * at `start` in the new tree.
   */
  private async segmentsOf(store: TreeStore, root: TreeRoot): Promise<{ segments: Segment[]; count: number }> {
    const segments: Segment[] = [];
    /** Paths of the nodes read, by new position: only those have children walked. */
    const readPaths = new Map<number, string>();
    let count = 0;
    // An explicit stack (trees may be deeper than the call stack) of (hash, parent position, index
    // among siblings, depth, where this tree had the old parent's children by hash), as parallel arrays.
    const stackHashes: string[] = [];
    const stackParents: number[] = [];
    const stackIndexes: number[] = [];
    const stackDepths: number[] = [];
    const stackSiblings: Array<ReadonlyMap<string, number> | undefined> = [];
    const push = (children: readonly string[], parent: number, depth: number, siblings: ReadonlyMap<string, number> | undefined): void => {
      for (let i = children.length - 1; i >= 0; i--) {
        stackHashes.push(children[i]);
        stackParents.push(parent);
        stackIndexes.push(i);
        stackDepths.push(depth);
        stackSiblings.push(siblings);
      }
    };
    push(root.pages, -1, 0, this.childHashPositions(-1));
    while (stackHashes.length > 0) {
      const hash = stackHashes.pop()!;
      const parent = stackParents.pop()!;
      const index = stackIndexes.pop()!;
      const depth = stackDepths.pop()!;
      const siblings = stackSiblings.pop();
      const parentPath = parent < 0 ? '' : readPaths.get(parent)!;
      // The same child as before (the usual case: an unchanged sibling of a changed page), else
      // read, and maybe a subtree moved here from elsewhere in the tree, unchanged.
      let from = siblings?.get(hash);
      let node: PageNode;
      if (from !== undefined) node = this.nodes[from];
      else {
        node = store.peekNode(hash) ?? (await store.readNode(hash));
        const before = this.positions.get(node.id);
        if (before !== undefined && this.hashes[before] === hash) from = before;
        else {
          const path = pathOf(node, parentPath);
          segments.push({ from: -1, node, hash, start: count, parent, index, depth, path });
          readPaths.set(count, path);
          push(node.children, count, depth + 1, before === undefined ? undefined : this.childHashPositions(before));
          count++;
          continue;
        }
      }
      segments.push({ from, node, hash, start: count, parent, index, depth, path: pathOf(node, parentPath) });
      count += this.ends[from] - from;
    }
    return { segments, count };
  }

  /** Whether every page of the new tree sits where it sat in this one, under the same parent at the same index. */
  private inPlace(segments: readonly Segment[], count: number): boolean {
    if (count !== this.nodes.length) return false;
    for (const segment of segments) {
      const at = segment.from < 0 ? this.positions.get(segment.node.id) : segment.from;
      if (at !== segment.start || this.parents[at] !== segment.parent || this.indexes[at] !== segment.index) return false;
    }
    return true;
  }

  /** The new tree on this one's layout: its parents, ends, indexes, depths and positions shared, the changed nodes and paths patched in copies. */
  private patched(rootHash: string, root: TreeRoot, fileList: FileList, segments: readonly Segment[]): RevisionTree {
    const nodes = this.nodes.slice();
    const hashes = this.hashes.slice();
    let paths: string[] | undefined;
    const setPath = (position: number, path: string): void => {
      if (path === (paths ?? this.paths)[position]) return;
      paths ??= this.paths.slice();
      paths[position] = path;
    };
    for (const segment of segments) {
      nodes[segment.start] = segment.node;
      hashes[segment.start] = segment.hash;
      if (segment.from >= 0 && segment.path === this.paths[segment.from]) continue;
      setPath(segment.start, segment.path);
      if (segment.from < 0) continue;
      for (let p = segment.from + 1; p < this.ends[segment.from]; p++) setPath(p, pathOf(nodes[p], (paths ?? this.paths)[this.parents[p]]));
    }
    const tree = new RevisionTree(
      rootHash,
      root,
      fileList,
      nodes,
      hashes,
      this.parents,
      this.ends,
      this.indexes,
      this.depths,
      paths ?? this.paths,
      this.positions,
    );
    if (paths === undefined) tree.pathIndex = this.pathIndex;
    return tree;
  }

  /** The new tree laid out afresh: the reused subtrees copied from this one, shifted to their new places. */
  private laidOut(rootHash: string, root: TreeRoot, fileList: FileList, segments: readonly Segment[], count: number): RevisionTree {
    const nodes = new Array<PageNode>(count);
    const hashes = new Array<string>(count);
    const paths = new Array<string>(count);
    const parents = new Int32Array(count);
    const indexes = new Int32Array(count);
    const depths = new Int32Array(count);
    for (const segment of segments) {
      const { start, from } = segment;
      nodes[start] = segment.node;
      hashes[start] = segment.hash;
      parents[start] = segment.parent;
      indexes[start] = segment.index;
      depths[start] = segment.depth;
      paths[start] = segment.path;
      if (from < 0) continue;
      const shift = start - from;
      const deeper = segment.depth - this.depths[from];
      const samePaths = segment.path === this.paths[from];
      for (let p = from + 1; p < this.ends[from]; p++) {
        const at = p + shift;
        nodes[at] = this.nodes[p];
        hashes[at] = this.hashes[p];
        parents[at] = this.parents[p] + shift;
        indexes[at] = this.indexes[p];
        depths[at] = this.depths[p] + deeper;
        paths[at] = samePaths ? this.paths[p] : pathOf(this.nodes[p], paths[parents[at]]);
      }
    }
    const positions = new Map<string, number>();
    for (let position = 0; position < count; position++) {
      positions.set(nodes[position].id, position);
      if (positions.size === position) throw new RevisionTreeError(`tree ${rootHash} holds page ${nodes[position].id} twice`);
    }
    const ends = new Int32Array(count);
    for (let p = count - 1; p >= 0; p--) {
      if (ends[p] === 0) ends[p] = p + 1;
      const parent = parents[p];
      if (parent >= 0 && ends[p] > ends[parent]) ends[parent] = ends[p];
    }
    return new RevisionTree(rootHash, root, fileList, nodes, hashes, parents, ends, indexes, depths, paths, positions);
  }

  /** The empty tree, without reading anything: the "before" of a space's first revision. */
  static empty(): RevisionTree {
    return RevisionTree.build(
      TreeStore.EMPTY,
      { object: 'content-tree', pages: [], files: TreeStore.EMPTY_FILES, variables: {} },
      { object: 'file-list', files: [] },
      [],
    );
  }

  /** Lays the levels out in depth-first order. */
  private static build(rootHash: string, root: TreeRoot, fileList: FileList, levels: readonly Level[]): RevisionTree {
    const count = levels.reduce((total, level) => total + level.nodes.length, 0);
    const nodes: PageNode[] = new Array<PageNode>(count);
    const hashes: string[] = new Array<string>(count);
    const parents = new Int32Array(count);
    const indexes = new Int32Array(count);
    const depths = new Int32Array(count);
    const paths: string[] = new Array<string>(count);
    const positions = new Map<string, number>();
    // Pre-order with an explicit stack (trees may be deeper than the call stack) of (depth, slot in
    // that level, parent position, index among siblings), as parallel arrays.
    const stackDepths: number[] = [];
    const stackSlots: number[] = [];
    const stackParents: number[] = [];
    const stackIndexes: number[] = [];
    for (let i = root.pages.length - 1; i >= 0; i--) {
      stackDepths.push(0);
      stackSlots.push(i);
      stackParents.push(-1);
      stackIndexes.push(i);
    }
    let position = 0;
    while (stackSlots.length > 0) {
      const depth = stackDepths.pop()!;
      const slot = stackSlots.pop()!;
      const parent = stackParents.pop()!;
      const level = levels[depth];
      const node = level.nodes[slot];
      if (positions.has(node.id)) throw new RevisionTreeError(`tree ${rootHash} holds page ${node.id} twice`);
      positions.set(node.id, position);
      nodes[position] = node;
      hashes[position] = level.hashes[slot];
      parents[position] = parent;
      indexes[position] = stackIndexes.pop()!;
      depths[position] = depth;
      paths[position] = pathOf(node, parent < 0 ? '' : paths[parent]);
      const first = level.firstChild[slot];
      for (let i = node.children.length - 1; i >= 0; i--) {
        stackDepths.push(depth + 1);
        stackSlots.push(first + i);
        stackParents.push(position);
        stackIndexes.push(i);
      }
      position++;
    }
    // A subtree ends where its last descendant's subtree ends: one backward pass over pre-order.
    const ends = new Int32Array(count);
    for (let p = count - 1; p >= 0; p--) {
      if (ends[p] === 0) ends[p] = p + 1;
      const parent = parents[p];
      if (parent >= 0 && ends[p] > ends[parent]) ends[parent] = ends[p];
    }
    return new RevisionTree(rootHash, root, fileList, nodes, hashes, parents, ends, indexes, depths, paths, positions);
  }

  /** Number of pages. */
  get size(): number {
    return this.nodes.length;
  }

  get variables(): Readonly<Record<string, string>> {
    return this.root.variables;
  }

  /** Hash of the revision's `FileList` blob. */
  get filesHash(): string {
    return this.root.files;
  }

  /** Every page in depth-first tree order. */
  pages(): PageView[] {
    return this.nodes.map((_, position) => this.view(position));
  }

  page(id: string): PageView | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.view(position);
  }

  /** The page at exactly this path (already URL-decoded by the caller); link pages have none. */
  pageByPath(path: string): PageView | undefined {
    if (path === '') return undefined;
    if (!this.pathIndex) {
      this.pathIndex = new Map();
      // The first in tree order wins, should a foreign tree hold a path twice.
      for (let position = this.paths.length - 1; position >= 0; position--) {
        if (this.paths[position] !== '') this.pathIndex.set(this.paths[position], position);
      }
    }
    const position = this.pathIndex.get(path);
    return position === undefined ? undefined : this.view(position);
  }

  /** The pages directly under a page (the top level for null), in order; none for an unknown id. */
  children(parentId: string | null): PageView[] {
    return this.childPositions(parentId).map((position) => this.view(position));
  }

  /** Every page of a subtree, the page first, in tree order; none for an unknown id. */
  subtree(id: string): PageView[] {
    const position = this.positions.get(id);
    if (position === undefined) return [];
    const views: PageView[] = [];
    for (let p = position; p < this.ends[position]; p++) views.push(this.view(p));
    return views;
  }

  files(): FileEntry[] {
    return [...this.fileList.files];
  }

  file(id: string): FileEntry | undefined {
    this.fileIndex ??= new Map(this.fileList.files.map((entry) => [entry.id, entry]));
    return this.fileIndex.get(id);
  }

  // Cheap reads without building views: the editor and the diff walk the tree with them. -------

  has(id: string): boolean {
    return this.positions.has(id);
  }

  /** The page's node blob as stored (frozen; `children` are hashes). */
  node(id: string): PageNode | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.nodes[position];
  }

  nodeHash(id: string): string | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.hashes[position];
  }

  /** The parent's id, null at the top level, undefined for an unknown page. */
  parentId(id: string): string | null | undefined {
    const position = this.positions.get(id);
    if (position === undefined) return undefined;
    const parent = this.parents[position];
    return parent < 0 ? null : this.nodes[parent].id;
  }

  /** Ids of the pages directly under a page (the top level for null), in order. */
  childIds(parentId: string | null): string[] {
    return this.childPositions(parentId).map((position) => this.nodes[position].id);
  }

  /** Ids of a subtree, the page first, in tree order. */
  subtreeIds(id: string): string[] {
    const position = this.positions.get(id);
    if (position === undefined) return [];
    const ids: string[] = [];
    for (let p = position; p < this.ends[position]; p++) ids.push(this.nodes[p].id);
    return ids;
  }

  path(id: string): string | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.paths[position];
  }

  depth(id: string): number | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.depths[position];
  }

  index(id: string): number | undefined {
    const position = this.positions.get(id);
    return position === undefined ? undefined : this.indexes[position];
  }

  /** Hashes of the top-level page nodes, in order. */
  topLevelHashes(): readonly string[] {
    return this.root.pages;
  }

  /** Where each child of a position (-1: the top level) sits, by its node hash. */
  private childHashPositions(position: number): Map<string, number> {
    const children = this.positionsUnder(position);
    const byHash = new Map<string, number>();
    for (const child of children) byHash.set(this.hashes[child], child);
    return byHash;
  }

  private childPositions(parentId: string | null): number[] {
    if (parentId === null) return this.positionsUnder(-1);
    const position = this.positions.get(parentId);
    return position === undefined ? [] : this.positionsUnder(position);
  }

  /** Positions of the children of a position (-1: the top level): each child's subtree ends where the next sibling starts. */
  private positionsUnder(position: number): number[] {
    const first = position + 1;
    const end = position < 0 ? this.nodes.length : this.ends[position];
    const children: number[] = [];
    for (let child = first; child < end; child = this.ends[child]) children.push(child);
    return children;
  }

  private view(position: number): PageView {
    const node = this.nodes[position];
    // A plain copy loop: object rest (`{ object, children, ...rest }`) is many times slower on these
    // parsed objects of varied shapes, and `pages()` builds thousands of views.
    const view = {} as Record<string, unknown>;
    for (const key in node) if (key !== 'object' && key !== 'children') view[key] = node[key as keyof PageNode];
    const parent = this.parents[position];
    view.nodeHash = this.hashes[position];
    view.parentId = parent < 0 ? null : this.nodes[parent].id;
    view.path = this.paths[position];
    view.index = this.indexes[position];
    view.depth = this.depths[position];
    view.childIds = this.positionsUnder(position).map((child) => this.nodes[child].id);
    return view as unknown as PageView;
  }
}

/** Reads the nodes at the `missing` slots of a level, `LOAD_CONCURRENCY` at a time. */
async function readMissing(store: TreeStore, hashes: readonly string[], missing: readonly number[], into: PageNode[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < missing.length) {
      const slot = missing[next++];
      into[slot] = await store.readNode(hashes[slot]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, missing.length) }, worker));
}

/** Slugs from the top joined by '/': a link page has no path, and cannot be a parent. */
export function pathOf(node: Pick<PageNode, 'type' | 'slug'>, parentPath: string): string {
  if (node.type === 'link') return '';
  const slug = node.slug ?? '';
  return parentPath === '' ? slug : slug === '' ? parentPath : `${parentPath}/${slug}`;
}
