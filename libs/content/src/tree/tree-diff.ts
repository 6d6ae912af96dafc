import { jsonEqual } from './canonical-json';
import { RevisionTree } from './revision-tree';
import type { FileEntry, PageNode, PageType, PageView } from './tree.model';

/** A page as a change names it: as it is after the change (before it, for a deletion). */
export interface PageRef {
  id: string;
  type: PageType;
  title: string;
  /** Empty for link pages. */
  path: string;
}

export interface FileRef {
  id: string;
  name: string;
}

/** An absent value is `null`, so that the change survives JSON. */
export interface ValueChange<T> {
  before: T;
  after: T;
}

/** The page attributes a `page_edited` change reports; `document` compares body hashes. */
export const DIFFED_PAGE_ATTRIBUTES = [
  'title',
  'description',
  'slug',
  'document',
  'emoji',
  'icon',
  'cover',
  'layout',
  'variables',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'linkTitle',
  'condition',
  'computed',
  'target',
  'href',
  'type',
] as const;
export type DiffedPageAttribute = (typeof DIFFED_PAGE_ATTRIBUTES)[number];

export const DIFFED_FILE_ATTRIBUTES = ['name', 'contentType', 'size', 'hash', 'dimensions'] as const;
export type DiffedFileAttribute = (typeof DIFFED_FILE_ATTRIBUTES)[number];

export type SemanticChange =
  | { type: 'page_created'; page: PageRef; parent: string | null }
  | {
      type: 'page_edited';
      page: PageRef;
      attributes: Partial<Record<DiffedPageAttribute, ValueChange<unknown>>>;
      /** When the page's own slug changed: its path, which every subpage's path starts with. */
      path?: ValueChange<string>;
    }
  | { type: 'page_deleted'; page: PageRef }
  | {
      type: 'page_moved';
      page: PageRef;
      parent: ValueChange<string | null>;
      index: ValueChange<number>;
      /** The page's path before and after: every subpage's path moved with it (same prefix change). */
      path: ValueChange<string>;
    }
  | { type: 'file_created'; file: FileRef }
  | { type: 'file_edited'; file: FileRef; attributes: Partial<Record<DiffedFileAttribute, ValueChange<unknown>>> }
  | { type: 'file_deleted'; file: FileRef }
  | { type: 'variables_edited'; variables: ValueChange<Record<string, string>> };

/**
 * The semantic changes from one revision to the next (`before` null: the first revision, all
 * created). Pages come first in the after tree's order (created, edited, moved), then deletions in
 * the before tree's order, then files, then the space's variables.
 *
 * Unchanged subtrees are skipped by node hash: the same hash under the same id means the page and
 * everything under it are as they were, so only the page's own place needs a look. A subtree that
 * moved keeps its hash, so only its top page is reported moved; the paths of its subpages change
 * with it, which the change's `path` says once (use `changedPages` to get every page whose path
 * changed).
 *
 * A page moved among the same siblings is reported only when it left the longest run of siblings
 * that kept their relative order: inserting one page does not report every later sibling as moved.
 */
export function diffTrees(before: RevisionTree | null, after: RevisionTree): SemanticChange[] {
  const old = before ?? RevisionTree.empty();
  const changes: SemanticChange[] = [];

  // Pages as they are after: created, edited, moved.
  const reordered = new Set<string>();
  if (!sameList(old.topLevelHashes(), after.topLevelHashes())) markReordered(old, after, null, reordered);
  walk(after, (id) => {
    const beforeHash = old.nodeHash(id);
    if (beforeHash === undefined) {
      changes.push({ type: 'page_created', page: refOf(after, id), parent: after.parentId(id)! });
      return true;
    }
    const edited = attributeChanges(old.node(id)!, after.node(id)!);
    if (edited) {
      const change: Extract<SemanticChange, { type: 'page_edited' }> = { type: 'page_edited', page: refOf(after, id), attributes: edited };
      if (edited.slug) change.path = { before: old.path(id)!, after: after.path(id)! };
      changes.push(change);
    }
    const parentBefore = old.parentId(id)!;
    const parentAfter = after.parentId(id)!;
    if (parentBefore !== parentAfter || reordered.has(id)) {
      changes.push({
        type: 'page_moved',
        page: refOf(after, id),
        parent: { before: parentBefore, after: parentAfter },
        index: { before: old.index(id)!, after: after.index(id)! },
        path: { before: old.path(id)!, after: after.path(id)! },
      });
    }
    if (beforeHash === after.nodeHash(id)) return false;
    markReordered(old, after, id, reordered);
    return true;
  });

  // Pages that are gone: a deleted page's subpages are walked too, some may have moved out.
  walk(old, (id) => {
    if (!after.has(id)) {
      changes.push({ type: 'page_deleted', page: refOf(old, id) });
      return true;
    }
    return old.nodeHash(id) !== after.nodeHash(id);
  });

  if (old.filesHash !== after.filesHash) changes.push(...fileChanges(old.files(), after.files()));
  if (!jsonEqual(old.variables, after.variables)) {
    changes.push({ type: 'variables_edited', variables: { before: { ...old.variables }, after: { ...after.variables } } });
  }
  return changes;
}

/**
 * What read models (search, links) must redo from one revision to the next: every page whose view
 * differs (attributes, body hash, path, parent, index, depth) or is new, in the after tree's order,
 * and the ids of the pages that are gone. A page whose path changed (moved, or an ancestor's slug
 * changed) brings its whole subtree, since every path inside it changed; a subtree with the same
 * hash and the same place is skipped unread. A page whose only change is below it (its `nodeHash`,
 * its `childIds`) is not listed: read models should not keep those two.
 */
export function changedPages(before: RevisionTree | null, after: RevisionTree): { upserts: PageView[]; removes: string[] } {
  const old = before ?? RevisionTree.empty();
  const upserts: PageView[] = [];
  const removes: string[] = [];
  walk(after, (id) => {
    const beforeHash = old.nodeHash(id);
    if (beforeHash === undefined) {
      upserts.push(after.page(id)!);
      return true;
    }
    const shifted = old.path(id) !== after.path(id) || old.depth(id) !== after.depth(id);
    const samePlace = !shifted && old.parentId(id) === after.parentId(id) && old.index(id) === after.index(id);
    if (beforeHash === after.nodeHash(id)) {
      if (shifted) upserts.push(...after.subtree(id));
      else if (!samePlace) upserts.push(after.page(id)!);
      return false;
    }
    if (!samePlace || !sameNode(old.node(id)!, after.node(id)!)) upserts.push(after.page(id)!);
    return true;
  });
  walk(old, (id) => {
    if (!after.has(id)) {
      removes.push(id);
      return true;
    }
    return old.nodeHash(id) !== after.nodeHash(id);
  });
  return { upserts, removes };
}

/** Depth-first over a tree, in order; `visit` answers whether to go into the page's subpages. */
function walk(tree: RevisionTree, visit: (id: string) => boolean): void {
  const stack = tree.childIds(null).reverse();
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (!visit(id)) continue;
    const children = tree.childIds(id);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

function refOf(tree: RevisionTree, id: string): PageRef {
  const node = tree.node(id)!;
  return { id, type: node.type, title: node.title, path: tree.path(id)! };
}

function attributeChanges(before: PageNode, after: PageNode): Partial<Record<DiffedPageAttribute, ValueChange<unknown>>> | undefined {
  let changes: Partial<Record<DiffedPageAttribute, ValueChange<unknown>>> | undefined;
  for (const name of DIFFED_PAGE_ATTRIBUTES) {
    if (jsonEqual(before[name], after[name])) continue;
    changes ??= {};
    changes[name] = { before: before[name] ?? null, after: after[name] ?? null };
  }
  return changes;
}

/** The same node but for its children: every attribute, the body hash, the timestamps. */
function sameNode(before: PageNode, after: PageNode): boolean {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  names.delete('children');
  for (const name of names) {
    if (!jsonEqual(before[name as keyof PageNode], after[name as keyof PageNode])) return false;
  }
  return true;
}

/**
 * The pages under `parentId` that stayed among the same siblings but changed order: those outside
 * the longest subsequence of such siblings whose before order is kept (the fewest moves that
 * explain the new order).
 */
function markReordered(before: RevisionTree, after: RevisionTree, parentId: string | null, into: Set<string>): void {
  if (parentId !== null && !before.has(parentId)) return;
  const stayed = after.childIds(parentId).filter((id) => before.parentId(id) === parentId);
  const kept = longestIncreasingRun(stayed.map((id) => before.index(id)!));
  stayed.forEach((id, i) => {
    if (!kept.has(i)) into.add(id);
  });
}

/** Indexes (into `values`) of a longest strictly increasing subsequence: patience sorting, O(n log n). */
export function longestIncreasingRun(values: readonly number[]): Set<number> {
  const tails: number[] = [];
  const previous = new Int32Array(values.length).fill(-1);
  for (let i = 0; i < values.length; i++) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (values[tails[middle]] < values[i]) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[i] = tails[low - 1];
    tails[low] = i;
  }
  const run = new Set<number>();
  for (let i = tails.length > 0 ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) run.add(i);
  return run;
}

function fileChanges(before: readonly FileEntry[], after: readonly FileEntry[]): SemanticChange[] {
  const changes: SemanticChange[] = [];
  const old = new Map(before.map((entry) => [entry.id, entry]));
  const current = new Set<string>();
  for (const file of after) {
    current.add(file.id);
    const previous = old.get(file.id);
    if (!previous) {
      changes.push({ type: 'file_created', file: { id: file.id, name: file.name } });
      continue;
    }
    let attributes: Partial<Record<DiffedFileAttribute, ValueChange<unknown>>> | undefined;
    for (const name of DIFFED_FILE_ATTRIBUTES) {
      if (jsonEqual(previous[name], file[name])) continue;
      attributes ??= {};
      attributes[name] = { before: previous[name] ?? null, after: file[name] ?? null };
    }
    if (attributes) changes.push({ type: 'file_edited', file: { id: file.id, name: file.name }, attributes });
  }
  for (const file of before) {
    if (!current.has(file.id)) changes.push({ type: 'file_deleted', file: { id: file.id, name: file.name } });
  }
  return changes;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
