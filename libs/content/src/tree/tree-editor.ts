import { DomainError } from '#platform/errors';
import type { ContentRef, DocumentNode } from '#document/document.model';
import {
  assertAttributes,
  assertContentRef,
  assertDocument,
  assertFileEntry,
  assertGroupPlacement,
  assertHref,
  assertIndex,
  assertPageId,
  assertPageType,
  assertSlug,
  assertStringRecord,
  assertTimestamp,
  emptyDocument,
  slugify,
  uniqueSlug,
  withoutUndefined,
} from './page-rules';
import { pathOf, type RevisionTree } from './revision-tree';
import type { FileEntry, FileList, PageAttributes, PageNode, PageType, TreeRoot } from './tree.model';
import type { EncodedBlob, TreeStore } from './tree-store';

export interface InsertPageInput {
  id: string;
  type: PageType;
  attributes: PageAttributes;
  /** Document pages: the body (an empty document when absent). */
  document?: DocumentNode;
  /** Link pages: where the link points (a target, an href or both). */
  target?: ContentRef;
  href?: string;
  /** Parent page id; the top level when null or absent. */
  into?: string | null;
  /** Zero-based index among the new siblings; last when absent. */
  at?: number;
  now: string;
}

export interface UpdatePageInput {
  /** Attributes to set; one given as `undefined` is removed (not `title`, nor a document or group page's `slug`). */
  attributes?: Partial<PageAttributes>;
  /** Document pages: the new body. */
  document?: DocumentNode;
  /** Link pages. */
  target?: ContentRef;
  href?: string;
  now: string;
}

export interface PageSummary {
  id: string;
  title: string;
  path: string;
}

export interface CommitResult {
  rootHash: string;
  /** Bytes handed to the blob store: page nodes, bodies, the file list and the root. */
  bytesWritten: number;
  /** Page nodes written. */
  nodesWritten: number;
  /** Every blob written: page nodes, bodies, the file list, the root. */
  blobsWritten: number;
}

export interface TouchedPages {
  created: string[];
  updated: string[];
  deleted: string[];
}

/**
 * A page the batch has looked into: its attributes (changed or not) and where it sits now. Pages
 * never looked into stay in the base tree, where they are read from; so a batch costs what it
 * touches, not what the tree holds.
 */
interface Entry {
  /** The page's attributes; its `children` are stale (hashes of the base): `childIds` is the truth. */
  node: PageNode;
  /** The node's hash while nothing in or under it changed; undefined once it must be rewritten. */
  hash: string | undefined;
  parentId: string | null;
  childIds: string[];
  /** A body set in this batch, written on commit if the page is still there. */
  body?: EncodedBlob;
}

/**
 * Copy-on-write edits of a revision tree (docs/content.md, "Storage"). The base tree is never
 * changed: a page is copied into the batch's overlay when an operation touches it or something
 * under it, and `commit` stores the overlay's changed nodes, with their new bodies, the file list if
 * it changed and the root. Everything else is shared by hash with the base.
 *
 * Every operation validates before it changes anything, so a refused operation (a `DomainError`)
 * leaves the batch as it was.
 */
export class TreeEditor {
  private readonly overlay = new Map<string, Entry>();
  /** Base pages no longer in the tree (deleted with their subpages). */
  private readonly removed = new Set<string>();
  /** Ids of the top-level pages once the batch has read or changed them. */
  private topLevel: string[] | undefined;
  /** The root's page list must be rewritten (a top-level page changed or the list did). */
  private pagesChanged = false;
  private files: Map<string, FileEntry> | undefined;
  private filesChanged = false;
  private variables: Record<string, string> | undefined;
  /** Every page an operation named or removed, in first-touched order. */
  private readonly touchedIds = new Set<string>();
  private committing: Promise<CommitResult> | undefined;

  constructor(
    private readonly store: TreeStore,
    readonly base: RevisionTree,
  ) {}

  insertPage(input: InsertPageInput): PageSummary {
    this.assertOpen();
    const { id, type, attributes, document, target, href, now } = input;
    assertPageId(id);
    assertPageType(type);
    assertTimestamp(now);
    assertAttributes(attributes, false);
    if (this.exists(id)) throw DomainError.conflict(`page ${id} already exists`);
    if (attributes.computed !== undefined && type !== 'document') throw DomainError.invalid('only document pages are computed');
    const parentId = this.resolveParent(input.into ?? null);
    assertGroupPlacement(type, parentId, id);
    const siblings = this.childIdsOf(parentId);
    const at = input.at ?? siblings.length;
    assertIndex(at, siblings.length);

    let node: PageNode = { ...withoutUndefined(attributes), object: 'page-node', id, type, createdAt: now, updatedAt: now, children: [] };
    let body: EncodedBlob | undefined;
    if (type === 'link') {
      if (attributes.slug !== undefined) throw DomainError.invalid('a link page has no slug');
      if (document !== undefined) throw DomainError.invalid('a link page has no body');
      if (target === undefined && href === undefined) throw DomainError.invalid('a link page needs a target or an href');
      if (target !== undefined) assertContentRef(target);
      if (href !== undefined) assertHref(href);
      node = withoutUndefined({ ...node, target, href });
    } else {
      if (target !== undefined || href !== undefined) throw DomainError.invalid('only link pages have a target or an href');
      const taken = this.slugsUnder(parentId);
      let slug: string;
      if (attributes.slug !== undefined) {
        assertSlug(attributes.slug);
        if (taken.has(attributes.slug)) throw DomainError.conflict(`a sibling page already has the slug ${attributes.slug}`);
        slug = attributes.slug;
      } else {
        slug = uniqueSlug(slugify(attributes.title), taken);
      }
      node.slug = slug;
      if (type === 'group') {
        if (document !== undefined) throw DomainError.invalid('a group page has no body');
      } else {
        const content = document ?? emptyDocument();
        assertDocument(content);
        body = this.store.encode(content);
        node.document = body.hash;
      }
    }

    this.overlay.set(id, { node, hash: undefined, parentId, childIds: [], ...(body ? { body } : {}) });
    this.removed.delete(id);
    this.mutableChildIds(parentId).splice(at, 0, id);
    this.markChanged(parentId);
    this.touchedIds.add(id);
    return this.summary(id);
  }

  updatePage(id: string, input: UpdatePageInput): PageSummary {
    this.assertOpen();
    const { now, document, target, href } = input;
    assertTimestamp(now);
    this.assertExists(id);
    const attributes = input.attributes ?? {};
    assertAttributes(attributes, true);
    const current = this.nodeOf(id);
    if (attributes.computed !== undefined && current.type !== 'document') throw DomainError.invalid('only document pages are computed');
    const next: PageNode = { ...current, ...attributes, updatedAt: now };
    if ('slug' in attributes) {
      if (current.type === 'link') {
        if (attributes.slug !== undefined) throw DomainError.invalid('a link page has no slug');
      } else {
        if (attributes.slug === undefined) throw DomainError.invalid(`a ${current.type} page needs a slug`);
        assertSlug(attributes.slug);
        // The title never moves the slug; an explicit slug must be free among the siblings.
        if (attributes.slug !== current.slug && this.slugsUnder(this.parentOf(id), id).has(attributes.slug)) {
          throw DomainError.conflict(`a sibling page already has the slug ${attributes.slug}`);
        }
      }
    }
    let body: EncodedBlob | undefined;
    if (document !== undefined) {
      if (current.type !== 'document') throw DomainError.invalid(`a ${current.type} page has no body`);
      assertDocument(document);
      body = this.store.encode(document);
      next.document = body.hash;
    }
    if (target !== undefined || href !== undefined) {
      if (current.type !== 'link') throw DomainError.invalid('only link pages have a target or an href');
      if (target !== undefined) assertContentRef(target);
      if (href !== undefined) assertHref(href);
      if (target !== undefined) next.target = target;
      if (href !== undefined) next.href = href;
    }

    const entry = this.entry(id);
    entry.node = withoutUndefined(next);
    if (body) entry.body = body;
    this.markChanged(id);
    this.touchedIds.add(id);
    return this.summary(id);
  }

  /**
   * Moves a page (with its subpages) under another parent or to another index. A slug taken in the
   * new parent gets a suffix; the paths of the page and everything under it follow.
   */
  movePage(id: string, into: string | null, at: number | undefined, now: string): PageSummary {
    this.assertOpen();
    assertTimestamp(now);
    this.assertExists(id);
    const parentId = this.resolveParent(into);
    assertGroupPlacement(this.nodeOf(id).type, parentId, id);
    for (let ancestor: string | null = parentId; ancestor !== null; ancestor = this.parentOf(ancestor)) {
      if (ancestor === id) throw DomainError.invalid(`page ${id} cannot move into itself or one of its subpages`);
    }
    const oldParentId = this.parentOf(id);
    const sameParent = oldParentId === parentId;
    const count = this.childIdsOf(parentId).length - (sameParent ? 1 : 0);
    const index = at ?? count;
    assertIndex(index, count);
    if (sameParent && this.childIdsOf(parentId).indexOf(id) === index) return this.summary(id);

    const entry = this.entry(id);
    const leaving = this.mutableChildIds(oldParentId);
    leaving.splice(leaving.indexOf(id), 1);
    const node: PageNode = { ...entry.node, updatedAt: now };
    if (!sameParent && node.slug !== undefined) node.slug = uniqueSlug(node.slug, this.slugsUnder(parentId));
    entry.node = node;
    entry.parentId = parentId;
    this.mutableChildIds(parentId).splice(index, 0, id);
    this.markChanged(id);
    this.markChanged(oldParentId);
    this.touchedIds.add(id);
    return this.summary(id);
  }

  /** Deletes a page and every page under it. */
  deletePage(id: string): void {
    this.assertOpen();
    this.assertExists(id);
    const parentId = this.parentOf(id);
    const siblings = this.mutableChildIds(parentId);
    siblings.splice(siblings.indexOf(id), 1);
    this.markChanged(parentId);
    const stack = [id];
    while (stack.length > 0) {
      const pageId = stack.pop()!;
      stack.push(...this.childIdsOf(pageId));
      this.overlay.delete(pageId);
      if (this.base.has(pageId)) this.removed.add(pageId);
      this.touchedIds.add(pageId);
    }
  }

  /**
   * Puts a page's attributes and body back as they are in `from` (a revision of the same store),
   * keeping its subpages and its place. A page that is gone comes back with its `from` subtree,
   * under its old parent if that is still here (else at the top level), at its old index or last;
   * a page `from` does not hold is deleted. A restored slug a sibling has taken since gets a
   * suffix, as in a move. Returns the page, or null when it was deleted.
   */
  revertPage(id: string, from: RevisionTree, now: string): PageSummary | null {
    this.assertOpen();
    assertPageId(id);
    assertTimestamp(now);
    const previous = from.node(id);
    const here = this.exists(id);
    if (!previous) {
      if (!here) throw DomainError.notFound(`no page ${id}`);
      this.deletePage(id);
      return null;
    }
    return here ? this.restoreAttributes(id, previous, now) : this.restoreSubtree(id, from, now);
  }

  insertFile(entry: FileEntry): void {
    this.assertOpen();
    assertFileEntry(entry);
    const files = this.fileMap();
    if (files.has(entry.id)) throw DomainError.conflict(`file ${entry.id} already exists`);
    files.set(entry.id, withoutUndefined({ ...entry }));
    this.filesChanged = true;
  }

  /** Renames or replaces a file's content; its id and creation time stay. */
  updateFile(id: string, changes: Partial<Omit<FileEntry, 'id' | 'createdAt'>>): void {
    this.assertOpen();
    const files = this.fileMap();
    const current = files.get(id);
    if (!current) throw DomainError.notFound(`no file ${id}`);
    const next = withoutUndefined({ ...current, ...changes, id, createdAt: current.createdAt });
    assertFileEntry(next);
    files.set(id, next);
    this.filesChanged = true;
  }

  deleteFile(id: string): void {
    this.assertOpen();
    const files = this.fileMap();
    if (!files.delete(id)) throw DomainError.notFound(`no file ${id}`);
    this.filesChanged = true;
  }

  setVariables(variables: Record<string, string>): void {
    this.assertOpen();
    assertStringRecord(variables, 'variables');
    this.variables = { ...variables };
  }

  /** The page as the batch has it now (its path reflects every move and slug change so far). */
  summary(id: string): PageSummary {
    this.assertExists(id);
    const node = this.nodeOf(id);
    return { id, title: node.title, path: this.currentPath(id) };
  }

  has(id: string): boolean {
    return this.exists(id);
  }

  /** Where the page sits as the batch has it now: its type, path and subpages (links between markdown files need them). */
  location(id: string): { type: PageType; path: string; childIds: readonly string[] } {
    this.assertExists(id);
    return { type: this.nodeOf(id).type, path: this.currentPath(id), childIds: this.childIdsOf(id) };
  }

  /** The page at a path of slugs (`a/b`) as the batch has it now, or undefined. */
  pageAt(path: string): string | undefined {
    let found: string | null = null;
    for (const slug of path.split('/')) {
      const child: string | undefined = this.childIdsOf(found).find((childId) => this.nodeOf(childId).slug === slug);
      if (child === undefined) return undefined;
      found = child;
    }
    return found ?? undefined;
  }

  /**
   * The pages the batch created, changed (attributes, body or place) and deleted, compared with the
   * base: a page created then deleted in the batch is in none; subpages deleted with their parent
   * are in `deleted`.
   */
  touched(): TouchedPages {
    const touched: TouchedPages = { created: [], updated: [], deleted: [] };
    for (const id of this.touchedIds) {
      const before = this.base.has(id);
      const after = this.exists(id);
      if (before && after) touched.updated.push(id);
      else if (after) touched.created.push(id);
      else if (before) touched.deleted.push(id);
    }
    return touched;
  }

  /**
   * Stores the changed nodes, their new bodies, the file list if it changed and the root, all at
   * once (docs/content.md, Storage). The editor is closed from then on; calling it again answers
   * the same result.
   */
  commit(): Promise<CommitResult> {
    this.committing ??= this.write().catch((error: unknown) => {
      // Nothing is marked written before the store took it: a retry can pick up where this stopped.
      this.committing = undefined;
      throw error;
    });
    return this.committing;
  }

  // ---------------------------------------------------------------------------------------------

  private async write(): Promise<CommitResult> {
    if (!this.pagesChanged && !this.filesChanged && this.variables === undefined)
      return { rootHash: this.base.rootHash, bytesWritten: 0, nodesWritten: 0, blobsWritten: 0 };
    // Every changed node is encoded first, bottom-up (a node's hash names its children's), and then
    // all the blobs are stored at once (`writeAll`): stored one level after another, a page's write
    // waited for a chain of file operations per level.
    const blobs: EncodedBlob[] = [];
    const hashes = new Map<string, string>();
    const hashOf = (id: string): string => hashes.get(id) ?? this.hashOf(id);
    const encodeEntry = (id: string, entry: Entry): void => {
      for (const childId of entry.childIds) {
        const child = this.overlay.get(childId);
        if (child && child.hash === undefined) encodeEntry(childId, child);
      }
      if (entry.body) blobs.push(entry.body);
      const encoded = this.store.encode({ ...entry.node, children: entry.childIds.map(hashOf) });
      blobs.push(encoded);
      hashes.set(id, encoded.hash);
    };

    const topLevel = this.topLevel ?? this.base.childIds(null);
    for (const id of topLevel) {
      const entry = this.overlay.get(id);
      if (entry && entry.hash === undefined) encodeEntry(id, entry);
    }
    let filesHash = this.base.filesHash;
    if (this.filesChanged) {
      const list: FileList = {
        object: 'file-list',
        files: [...this.fileMap().values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
      };
      const encoded = this.store.encode(list);
      filesHash = encoded.hash;
      blobs.push(encoded);
    }
    const root: TreeRoot = {
      object: 'content-tree',
      pages: topLevel.map(hashOf),
      files: filesHash,
      variables: this.variables ?? { ...this.base.variables },
    };
    const encodedRoot = this.store.encode(root);
    blobs.push(encodedRoot);

    const bytesWritten = await this.store.writeAll(blobs);
    // Only once every blob is stored do the entries take their hashes: a failed commit can be retried.
    for (const [id, hash] of hashes) {
      const entry = this.overlay.get(id)!;
      entry.hash = hash;
      entry.body = undefined;
    }
    return { rootHash: encodedRoot.hash, bytesWritten, blobsWritten: blobs.length, nodesWritten: hashes.size };
  }

  private restoreAttributes(id: string, previous: PageNode, now: string): PageSummary {
    const entry = this.entry(id);
    if (previous.type === 'link' && entry.childIds.length > 0) {
      throw DomainError.conflict(`page ${id} was a link page and has subpages now: move or delete them first`);
    }
    // Everything but the place: attributes, type, body, link target; the creation time is the page's own.
    const { createdAt: _createdAt, updatedAt: _updatedAt, children: _children, ...restored } = previous;
    const node: PageNode = { ...restored, createdAt: entry.node.createdAt, updatedAt: now, children: [] };
    if (node.slug !== undefined) node.slug = uniqueSlug(node.slug, this.slugsUnder(entry.parentId, id));
    entry.node = node;
    // The old body is in the store already: `from` is a revision of it.
    entry.body = undefined;
    this.markChanged(id);
    this.touchedIds.add(id);
    return this.summary(id);
  }

  private restoreSubtree(id: string, from: RevisionTree, now: string): PageSummary {
    const oldParentId = from.parentId(id) ?? null;
    const parentId = oldParentId !== null && this.exists(oldParentId) && this.nodeOf(oldParentId).type !== 'link' ? oldParentId : null;
    const siblings = this.childIdsOf(parentId);
    const at = Math.min(from.index(id) ?? siblings.length, siblings.length);
    const taken = this.slugsUnder(parentId);

    // The `from` subtree, shared by hash, less the pages the tree holds elsewhere now (they stay
    // where they are, with what is under them): only the nodes that lost a child are rewritten.
    const pruned: string[] = [];
    const stack: Array<{ pageId: string; parentId: string | null }> = [{ pageId: id, parentId }];
    while (stack.length > 0) {
      const { pageId, parentId: under } = stack.pop()!;
      const childIds = from.childIds(pageId);
      const kept = childIds.filter((childId) => !this.exists(childId));
      if (kept.length !== childIds.length) pruned.push(pageId);
      this.overlay.set(pageId, { node: from.node(pageId)!, hash: from.nodeHash(pageId), parentId: under, childIds: kept });
      this.removed.delete(pageId);
      this.touchedIds.add(pageId);
      for (let i = kept.length - 1; i >= 0; i--) stack.push({ pageId: kept[i], parentId: pageId });
    }
    const top = this.overlay.get(id)!;
    top.node = { ...top.node, updatedAt: now };
    if (top.node.slug !== undefined) top.node.slug = uniqueSlug(top.node.slug, taken);
    this.mutableChildIds(parentId).splice(at, 0, id);
    for (const pageId of pruned) this.markChanged(pageId);
    this.markChanged(id);
    return this.summary(id);
  }

  private assertOpen(): void {
    if (this.committing) throw new Error('TreeEditor: the batch is committed; start a new editor on the new tree');
  }

  private assertExists(id: string): void {
    if (typeof id !== 'string' || !this.exists(id)) throw DomainError.notFound(`no page ${String(id)}`);
  }

  /** A parent for an insert or a move: the top level (null) or a page that can have subpages. */
  private resolveParent(into: string | null): string | null {
    if (into === null) return null;
    this.assertExists(into);
    if (this.nodeOf(into).type === 'link') throw DomainError.invalid(`page ${into} is a link page, which cannot have subpages`);
    return into;
  }

  private exists(id: string): boolean {
    return this.overlay.has(id) || (this.base.has(id) && !this.removed.has(id));
  }

  // The reads below assume the page exists (callers check first).

  private nodeOf(id: string): PageNode {
    return this.overlay.get(id)?.node ?? this.base.node(id)!;
  }

  private parentOf(id: string): string | null {
    const entry = this.overlay.get(id);
    return entry ? entry.parentId : this.base.parentId(id)!;
  }

  private childIdsOf(parentId: string | null): readonly string[] {
    if (parentId === null) return (this.topLevel ??= this.base.childIds(null));
    return this.overlay.get(parentId)?.childIds ?? this.base.childIds(parentId);
  }

  private mutableChildIds(parentId: string | null): string[] {
    if (parentId === null) return (this.topLevel ??= this.base.childIds(null));
    return this.entry(parentId).childIds;
  }

  /** The node hash of a clean page (an unchanged base page or a page shared from another revision). */
  private hashOf(id: string): string {
    const entry = this.overlay.get(id);
    return entry ? entry.hash! : this.base.nodeHash(id)!;
  }

  /** Copies a page into the overlay, as the base has it. */
  private entry(id: string): Entry {
    let entry = this.overlay.get(id);
    if (!entry) {
      entry = {
        node: this.base.node(id)!,
        hash: this.base.nodeHash(id),
        parentId: this.base.parentId(id)!,
        childIds: this.base.childIds(id),
      };
      this.overlay.set(id, entry);
    }
    return entry;
  }

  /** A page's node changed (attributes or children): it and every ancestor up to the root must be rewritten. */
  private markChanged(id: string | null): void {
    for (let current = id; current !== null;) {
      const entry = this.entry(current);
      entry.hash = undefined;
      current = entry.parentId;
    }
    this.pagesChanged = true;
  }

  private slugsUnder(parentId: string | null, except?: string): Set<string> {
    const slugs = new Set<string>();
    for (const childId of this.childIdsOf(parentId)) {
      const slug = childId === except ? undefined : this.nodeOf(childId).slug;
      if (slug !== undefined) slugs.add(slug);
    }
    return slugs;
  }

  private currentPath(id: string): string {
    const chain: PageNode[] = [];
    for (let current: string | null = id; current !== null; current = this.parentOf(current)) chain.push(this.nodeOf(current));
    let path = '';
    for (let i = chain.length - 1; i >= 0; i--) path = pathOf(chain[i], path);
    return path;
  }

  private fileMap(): Map<string, FileEntry> {
    this.files ??= new Map(this.base.files().map((entry) => [entry.id, entry]));
    return this.files;
  }
}
