import { mergeDocuments, mergeKeySequences, type DocumentMergeResult } from '#document/document-merge';
import type { DocumentNode } from '#document/document.model';
import { jsonEqual } from './canonical-json';
import { emptyDocument } from './page-rules';
import type { RevisionTree } from './revision-tree';
import type { FileEntry, FileList, PageNode, TreeRoot } from './tree.model';
import type { EncodedBlob, TreeStore } from './tree-store';

/**
 * Three-way merge of two revisions of a space's content with their common ancestor (docs/content.md,
 * "Storage"): pages created, deleted, moved, renamed and edited, files and variables merge when
 * the two sides' changes do not overlap; every overlap found is reported, and nothing is written then.
 *
 * Ours and theirs are interchangeable (in production, ours is a change request's line and theirs
 * main): swapping them gives the same tree. No time is stamped: a page changed on one side keeps
 * that side's node, a page whose fields came from both sides takes the later `updatedAt`; so a
 * merge with an unchanged side is the other side exactly.
 *
 * The cost follows what changed, not the size of the space: subtrees whose node hash is the
 * ancestor's on a side are not walked on that side, only the pages changed on either side (and the
 * sibling lists they sit in) are looked at, and only bodies changed on both sides are read.
 */

export type MergeConflictKind = 'content' | 'attributes' | 'deleted-edited' | 'moved' | 'slug' | 'file' | 'variables';

export interface MergeConflict {
  /** The page as ours has it (else as theirs, else as the ancestor); null for file and variables conflicts. */
  page: { id: string; title: string; path: string } | null;
  file?: { id: string; name: string };
  kind: MergeConflictKind;
  /** What our side did, short and JSON-serialisable: block text, `{ title: 'A' }`, 'deleted', `{ parent, index }`, ... */
  ours: unknown;
  theirs: unknown;
}

export type TreeMergeOutcome = { ok: true; rootHash: string } | { ok: false; conflicts: MergeConflict[] };

/** Merges the bodies changed on both sides, in order: the service hands them to the untrusted-work pool (document-merge.work.ts). */
export type BodyMerger = (
  triples: { ancestor: DocumentNode; ours: DocumentNode; theirs: DocumentNode }[],
) => Promise<DocumentMergeResult[]>;

const mergeHere: BodyMerger = async (triples) => triples.map(({ ancestor, ours, theirs }) => mergeDocuments(ancestor, ours, theirs));

export async function mergeTrees(
  store: TreeStore,
  sides: { ancestor: RevisionTree; ours: RevisionTree; theirs: RevisionTree },
  mergeBodies: BodyMerger = mergeHere,
): Promise<TreeMergeOutcome> {
  const { ancestor, ours, theirs } = sides;
  // One side unchanged (or both the same): the other side, exactly.
  if (ours.rootHash === ancestor.rootHash || ours.rootHash === theirs.rootHash) return { ok: true, rootHash: theirs.rootHash };
  if (theirs.rootHash === ancestor.rootHash) return { ok: true, rootHash: ours.rootHash };
  return new TreeMerge(store, ancestor, ours, theirs, mergeBodies).run();
}

/** What a side changed against the ancestor, found without walking its unchanged subtrees. */
interface SideChanges {
  /** Pages of the side that are new, changed in or below them (node hash) or under another parent. */
  touched: Set<string>;
  /** Pages of the ancestor the side does not have. */
  deleted: Set<string>;
}

/** A page node's fields: everything but its `children`, which the merge arranges separately. */
type Fields = Omit<PageNode, 'children'>;

/** A page changed on either side, as the merge has it. */
interface PagePlan {
  id: string;
  /** False when the page is gone (deleted, or conflicting so that the rest of the merge ignores it). */
  kept: boolean;
  parent: string | null;
  fields: Fields;
  /** The fields are exactly this side's node's: its node hash can be reused when the children match too. */
  sameAs: RevisionTree[];
  /** Bodies changed on both sides, to merge. */
  bodies?: { ancestor: string | undefined; ours: string; theirs: string };
  /** The merged body when neither side has it: written before the node. */
  body?: EncodedBlob;
}

class TreeMerge {
  private readonly conflicts: MergeConflict[] = [];
  /** Pages (by id) that have a conflict: a slug clash is not reported on top of it. */
  private readonly conflicted = new Set<string>();
  private readonly plans = new Map<string, PagePlan>();
  /** Final ordered subpages of every changed page that stays (null: the top level). */
  private readonly children = new Map<string | null, string[]>();
  /** Pages the two sides moved to different parents: where they end up is the conflict. */
  private readonly misplaced = new Set<string>();

  constructor(
    private readonly store: TreeStore,
    private readonly ancestor: RevisionTree,
    private readonly ours: RevisionTree,
    private readonly theirs: RevisionTree,
    private readonly mergeBodiesOf: BodyMerger,
  ) {}

  async run(): Promise<TreeMergeOutcome> {
    const mine = sideChanges(this.ancestor, this.ours);
    const other = sideChanges(this.ancestor, this.theirs);
    const changed = new Set([...mine.touched, ...other.touched, ...mine.deleted, ...other.deleted]);
    for (const id of changed) this.plan(id);
    await this.mergeBodies();
    this.arrangeChildren();
    this.checkCycles();
    this.checkSlugs();
    const files = this.mergeFiles();
    const variables = this.mergeVariables();
    if (this.conflicts.length > 0) return { ok: false, conflicts: this.conflicts };
    return { ok: true, rootHash: await this.write(files!, variables!) };
  }

  // --- Pages ---------------------------------------------------------------------------------

  private plan(id: string): void {
    const { ancestor, ours, theirs } = this;
    const base = ancestor.node(id);
    const mine = ours.node(id);
    const other = theirs.node(id);
    if (!mine && !other) return this.gone(id);
    if (!mine || !other) {
      if (!base) return this.take(id, mine ? ours : theirs); // created on one side
      // Deleted on one side: gone, unless the other side changed it.
      const keeper = mine ? ours : theirs;
      const edits = this.editsOf(id, keeper);
      if (edits) this.conflict(id, 'deleted-edited', mine ? edits : 'deleted', other ? edits : 'deleted');
      return this.gone(id);
    }

    const parent = merge3(
      ancestor.has(id) ? ancestor.parentId(id)! : undefined,
      ours.parentId(id)!,
      theirs.parentId(id)!,
      (a, b) => a === b,
    );
    if (!parent.ok) {
      this.misplaced.add(id);
      this.conflict(id, 'moved', this.placeIn(ours, id), this.placeIn(theirs, id));
    }
    const fields = mergeFields(base, mine, other);
    if (fields.conflicts) this.conflict(id, 'attributes', fields.conflicts.ours, fields.conflicts.theirs);
    const sameAs = [ours, theirs].filter((tree) => sameFields(fields.fields, tree.node(id)!));
    const plan: PagePlan = {
      id,
      kept: true,
      parent: parent.ok ? (parent.value as string | null) : ours.parentId(id)!,
      fields: fields.fields,
      sameAs,
    };
    if (fields.mergeBodies) plan.bodies = { ancestor: base?.document, ours: mine.document!, theirs: other.document! };
    this.plans.set(id, plan);
  }

  private take(id: string, side: RevisionTree): void {
    this.plans.set(id, { id, kept: true, parent: side.parentId(id)!, fields: side.node(id)!, sameAs: [side] });
  }

  private gone(id: string): void {
    this.plans.set(id, {
      id,
      kept: false,
      parent: null,
      fields: (this.ours.node(id) ?? this.theirs.node(id) ?? this.ancestor.node(id))!,
      sameAs: [],
    });
  }

  /**
   * What the side that kept a page the other deleted did to it, or undefined when nothing: changed
   * its fields (a move stamps `updatedAt`, so reordering it counts), moved it to another parent, or
   * added or moved a page under it.
   */
  private editsOf(id: string, keeper: RevisionTree): Record<string, unknown> | undefined {
    const base = this.ancestor.node(id)!;
    const edits: Record<string, unknown> = {};
    const edited = changedFields(base, keeper.node(id)!);
    if (
      keeper.parentId(id) !== this.ancestor.parentId(id) ||
      (edited.length === 1 && edited[0] === 'updatedAt' && keeper.index(id) !== this.ancestor.index(id))
    ) {
      edits.moved = this.placeIn(keeper, id);
    } else if (edited.length > 0) {
      edits.edited = edited;
    }
    if (keeper.nodeHash(id) !== this.ancestor.nodeHash(id)) {
      const added = keeper.childIds(id).filter((child) => this.ancestor.parentId(child) !== id);
      if (added.length > 0) edits.pagesAdded = added.slice(0, 10);
    }
    return Object.keys(edits).length > 0 ? edits : undefined;
  }

  /** Bodies changed on both sides: read (in parallel) and merged block by block. */
  private async mergeBodies(): Promise<void> {
    const pending = [...this.plans.values()].filter((plan) => plan.bodies);
    const read = (hash: string | undefined): Promise<DocumentNode> =>
      hash === undefined ? Promise.resolve(emptyDocument()) : this.store.readDocument(hash);
    const documents = await Promise.all(
      pending.map((plan) => Promise.all([read(plan.bodies!.ancestor), read(plan.bodies!.ours), read(plan.bodies!.theirs)])),
    );
    const results =
      pending.length === 0 ? [] : await this.mergeBodiesOf(documents.map(([ancestor, ours, theirs]) => ({ ancestor, ours, theirs })));
    pending.forEach((plan, index) => {
      const merged = results[index];
      if (!merged.ok) {
        for (const conflict of merged.conflicts) this.conflict(plan.id, 'content', conflict.ours, conflict.theirs);
        return;
      }
      const encoded = this.store.encode(merged.document);
      plan.fields = { ...plan.fields, document: encoded.hash };
      plan.sameAs = [this.ours, this.theirs].filter((tree) => sameFields(plan.fields, tree.node(plan.id)!));
      // A merged body that is one side's is stored already.
      if (encoded.hash !== this.ours.node(plan.id)!.document && encoded.hash !== this.theirs.node(plan.id)!.document) plan.body = encoded;
    });
  }

  private isKept(id: string): boolean {
    return this.plans.get(id)?.kept ?? true;
  }

  /** Where the page ends up; a page no side changed stays where the ancestor has it. */
  private parentOf(id: string): string | null {
    const plan = this.plans.get(id);
    return plan ? plan.parent : this.ancestor.parentId(id)!;
  }

  /**
   * The subpages of every changed page that stays, and of the top level: the three sides' lists
   * restricted to the pages that end up there, merged (`mergeKeySequences`). Pages no side changed
   * keep the ancestor's list, which both sides have too.
   */
  private arrangeChildren(): void {
    const parents: Array<string | null> = [null];
    for (const plan of this.plans.values()) if (plan.kept) parents.push(plan.id);
    for (const parent of parents) {
      const belongs = (id: string) => this.isKept(id) && this.parentOf(id) === parent;
      const [base, mine, other] = [this.ancestor, this.ours, this.theirs].map((tree) =>
        parent === null || tree.has(parent) ? tree.childIds(parent) : [],
      );
      // Usually one side left the list alone (its pages' hashes changed, not which pages are there):
      // the other side's list is then the merge, less the pages that end up elsewhere.
      if (sameList(mine, base) || sameList(mine, other)) {
        this.children.set(parent, other.filter(belongs));
      } else if (sameList(other, base)) {
        this.children.set(parent, mine.filter(belongs));
      } else {
        const merged = mergeKeySequences(base.filter(belongs), mine.filter(belongs), other.filter(belongs));
        for (const id of merged.conflicts) this.conflict(id, 'moved', this.placeIn(this.ours, id), this.placeIn(this.theirs, id));
        this.children.set(parent, merged.order);
      }
    }
  }

  /**
   * A page moved under one of its own subpages by the two sides together (A into B on one, B into A
   * on the other). The walk up stops at a page moved to different parents: its place is undecided,
   * so a cycle through it is left to the merge after that conflict is resolved, whichever side is ours.
   */
  private checkCycles(): void {
    for (const plan of this.plans.values()) {
      // Only a page that moved can close a cycle (a new page sits where its side put it).
      if (!plan.kept || !this.ancestor.has(plan.id) || plan.parent === this.ancestor.parentId(plan.id) || this.misplaced.has(plan.id))
        continue;
      const seen = new Set<string>();
      for (
        let current = plan.parent;
        current !== null && !seen.has(current) && !this.misplaced.has(current);
        current = this.parentOf(current)
      ) {
        if (current === plan.id) {
          this.conflict(plan.id, 'moved', this.placeIn(this.ours, plan.id), this.placeIn(this.theirs, plan.id));
          break;
        }
        seen.add(current);
      }
    }
  }

  /**
   * Two subpages of one parent with the same slug, which neither side had. Only a parent that
   * received a page or a new slug can have one, so only those parents are looked at.
   */
  private checkSlugs(): void {
    const parents = new Set<string | null>();
    for (const plan of this.plans.values()) {
      const before = this.ancestor.node(plan.id);
      const placed = !before || before.slug !== plan.fields.slug || this.ancestor.parentId(plan.id) !== plan.parent;
      if (plan.kept && plan.fields.slug !== undefined && placed) parents.add(plan.parent);
    }
    for (const parent of parents) {
      const bySlug = new Map<string, string[]>();
      for (const id of this.children.get(parent) ?? []) {
        const fields = this.plans.get(id)?.fields ?? this.ancestor.node(id)!;
        if (fields.type === 'link' || fields.slug === undefined) continue;
        const same = bySlug.get(fields.slug);
        if (same) same.push(id);
        else bySlug.set(fields.slug, [id]);
      }
      for (const [slug, same] of bySlug) {
        if (same.length < 2 || same.some((id) => this.conflicted.has(id))) continue;
        const hasIt = (tree: RevisionTree) => (id: string) => tree.has(id) && tree.parentId(id) === parent && tree.node(id)!.slug === slug;
        if (same.every(hasIt(this.ours)) || same.every(hasIt(this.theirs))) continue; // a side had it already
        const mine = same.find(hasIt(this.ours)) ?? same[0];
        const other = same.find((id) => id !== mine && hasIt(this.theirs)(id)) ?? same.find((id) => id !== mine)!;
        const describe = (tree: RevisionTree, id: string) => ({ id, title: (tree.node(id) ?? this.ancestor.node(id))!.title, slug });
        this.conflict(mine, 'slug', describe(this.ours, mine), describe(this.theirs, other));
      }
    }
  }

  // --- Files and variables --------------------------------------------------------------------

  /** The merged file list's hash and, when it is new, its encoding; undefined on a conflict. */
  private mergeFiles(): { hash: string; encoded?: EncodedBlob } | undefined {
    const { ancestor, ours, theirs } = this;
    if (ours.filesHash === ancestor.filesHash || ours.filesHash === theirs.filesHash) return { hash: theirs.filesHash };
    if (theirs.filesHash === ancestor.filesHash) return { hash: ours.filesHash };
    const byId = (tree: RevisionTree) => new Map(tree.files().map((file) => [file.id, file]));
    const [base, mine, other] = [byId(ancestor), byId(ours), byId(theirs)];
    const files: FileEntry[] = [];
    let conflicting = false;
    for (const id of new Set([...base.keys(), ...mine.keys(), ...other.keys()])) {
      const merged = merge3(base.get(id), mine.get(id), other.get(id), jsonEqual);
      if (merged.ok) {
        if (merged.value) files.push(merged.value);
        continue;
      }
      conflicting = true;
      const name = (mine.get(id) ?? other.get(id) ?? base.get(id))!.name;
      this.conflicts.push({
        page: null,
        file: { id, name },
        kind: 'file',
        ours: mine.get(id) ?? 'deleted',
        theirs: other.get(id) ?? 'deleted',
      });
    }
    if (conflicting) return undefined;
    files.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const encoded = this.store.encode({ object: 'file-list', files } satisfies FileList);
    return encoded.hash === ours.filesHash || encoded.hash === theirs.filesHash ? { hash: encoded.hash } : { hash: encoded.hash, encoded };
  }

  /** The space's variables, key by key; undefined on a conflict. */
  private mergeVariables(): Record<string, string> | undefined {
    const [base, mine, other] = [this.ancestor.variables, this.ours.variables, this.theirs.variables];
    const variables: Record<string, string> = {};
    let conflicting = false;
    for (const name of new Set([...Object.keys(base), ...Object.keys(mine), ...Object.keys(other)])) {
      const merged = merge3(base[name], mine[name], other[name], (a, b) => a === b);
      if (!merged.ok) {
        conflicting = true;
        this.conflicts.push({
          page: null,
          kind: 'variables',
          ours: { [name]: mine[name] ?? null },
          theirs: { [name]: other[name] ?? null },
        });
      } else if (merged.value !== undefined) {
        variables[name] = merged.value;
      }
    }
    return conflicting ? undefined : variables;
  }

  // --- Writing --------------------------------------------------------------------------------

  /**
   * Hashes the changed pages bottom-up (a node whose fields and children are a side's takes that
   * side's hash, unwritten), then stores every new blob at once (`TreeStore.writeAll`).
   */
  private async write(files: { hash: string; encoded?: EncodedBlob }, variables: Record<string, string>): Promise<string> {
    const hashes = new Map<string, string>();
    const hashOf = (id: string) => hashes.get(id) ?? this.ancestor.nodeHash(id)!;
    const fresh = new Map<string, { node: EncodedBlob; body?: EncodedBlob }>();

    const stack: Array<{ id: string; ready: boolean }> = this.changedUnder(null).map((id) => ({ id, ready: false }));
    while (stack.length > 0) {
      const entry = stack.pop()!;
      if (!entry.ready) {
        stack.push({ id: entry.id, ready: true });
        for (const child of this.changedUnder(entry.id)) stack.push({ id: child, ready: false });
        continue;
      }
      const plan = this.plans.get(entry.id)!;
      const childHashes = this.children.get(entry.id)!.map(hashOf);
      const reused = plan.sameAs.find((tree) => sameList(tree.node(entry.id)!.children, childHashes));
      if (reused) {
        hashes.set(entry.id, reused.nodeHash(entry.id)!);
        continue;
      }
      const node = this.store.encode({ ...plan.fields, children: childHashes } as PageNode);
      hashes.set(entry.id, node.hash);
      fresh.set(entry.id, { node, ...(plan.body ? { body: plan.body } : {}) });
    }

    const root = this.store.encode({
      object: 'content-tree',
      pages: this.children.get(null)!.map(hashOf),
      files: files.hash,
      variables,
    } satisfies TreeRoot);
    // The merge is one side exactly: every blob it names is stored already.
    if (root.hash === this.ours.rootHash || root.hash === this.theirs.rootHash) return root.hash;

    const blobs = [...fresh.values()].flatMap(({ node, body }) => (body ? [body, node] : [node]));
    await this.store.writeAll([...blobs, ...(files.encoded ? [files.encoded] : []), root]);
    return root.hash;
  }

  /** The changed pages among a page's final subpages: only those need a new hash. */
  private changedUnder(parent: string | null): string[] {
    return this.children.get(parent)!.filter((id) => this.plans.has(id));
  }

  // --- Reports --------------------------------------------------------------------------------

  private conflict(id: string, kind: MergeConflictKind, ours: unknown, theirs: unknown): void {
    if (kind !== 'content' && this.conflicts.some((conflict) => conflict.kind === kind && conflict.page?.id === id)) return;
    this.conflicted.add(id);
    this.conflicts.push({ page: this.pageRef(id), kind, ours, theirs });
  }

  private pageRef(id: string): { id: string; title: string; path: string } {
    const tree = [this.ours, this.theirs, this.ancestor].find((candidate) => candidate.has(id))!;
    return { id, title: tree.node(id)!.title, path: tree.path(id)! };
  }

  /** Where a side has a page: `{ parent, index }`, or 'deleted'. */
  private placeIn(tree: RevisionTree, id: string): { parent: string | null; index: number } | 'deleted' {
    return tree.has(id) ? { parent: tree.parentId(id)!, index: tree.index(id)! } : 'deleted';
  }
}

/** The pages a side changed, walking only the subtrees whose node hash differs from the ancestor's. */
function sideChanges(ancestor: RevisionTree, side: RevisionTree): SideChanges {
  const touched = new Set<string>();
  const stack = changedChildren(side, ancestor, null);
  while (stack.length > 0) {
    const id = stack.pop()!;
    const before = ancestor.nodeHash(id);
    if (before === side.nodeHash(id)) {
      // The same subtree; it may sit under another parent.
      if (ancestor.parentId(id) !== side.parentId(id)) touched.add(id);
      continue;
    }
    touched.add(id);
    for (const child of changedChildren(side, ancestor, id)) stack.push(child);
  }
  const deleted = new Set<string>();
  const gone = changedChildren(ancestor, side, null);
  while (gone.length > 0) {
    const id = gone.pop()!;
    if (!side.has(id)) deleted.add(id);
    else if (ancestor.nodeHash(id) === side.nodeHash(id)) continue;
    for (const child of changedChildren(ancestor, side, id)) gone.push(child);
  }
  return { touched, deleted };
}

/**
 * A page's subpages in `tree` less those with the same node hash at the same place of `other`'s
 * list (the common prefix and suffix of the two lists of hashes): those are the same subtrees
 * under the same parent, unchanged. Saves a look-up per sibling of every changed page.
 */
function changedChildren(tree: RevisionTree, other: RevisionTree, parent: string | null): string[] {
  const hashes = parent === null ? tree.topLevelHashes() : tree.node(parent)!.children;
  const before = parent === null ? other.topLevelHashes() : (other.node(parent)?.children ?? []);
  let start = 0;
  while (start < hashes.length && start < before.length && hashes[start] === before[start]) start++;
  let end = hashes.length;
  let beforeEnd = before.length;
  while (end > start && beforeEnd > start && hashes[end - 1] === before[beforeEnd - 1]) {
    end--;
    beforeEnd--;
  }
  return start === end ? [] : tree.childIds(parent).slice(start, end);
}

type Merged<T> = { ok: true; value: T } | { ok: false };

/** One value, three-way: the side that changed it, or both when they agree. `undefined` is "absent". */
function merge3<T>(
  ancestor: T | undefined,
  ours: T | undefined,
  theirs: T | undefined,
  equal: (a: T, b: T) => boolean,
): Merged<T | undefined> {
  const same = (a: T | undefined, b: T | undefined) => (a === undefined || b === undefined ? a === b : equal(a, b));
  if (same(ours, ancestor) || same(ours, theirs)) return { ok: true, value: theirs };
  if (same(theirs, ancestor)) return { ok: true, value: ours };
  return { ok: false };
}

/**
 * A page's fields, three-way one by one (`children` aside: the structure is merged separately).
 * `document` changed differently on both sides asks for a body merge; `updatedAt` changed on both
 * takes the later of the two, so that the result does not depend on which side is ours.
 */
function mergeFields(
  ancestor: PageNode | undefined,
  ours: PageNode,
  theirs: PageNode,
): { fields: Fields; conflicts?: { ours: Record<string, unknown>; theirs: Record<string, unknown> }; mergeBodies: boolean } {
  const fields: Record<string, unknown> = {};
  const conflicts = { ours: {} as Record<string, unknown>, theirs: {} as Record<string, unknown> };
  let conflicting = false;
  let mergeBodies = false;
  for (const name of fieldNames(ancestor, ours, theirs)) {
    const [base, mine, other] = [ancestor?.[name], ours[name], theirs[name]];
    if (name === 'updatedAt') {
      fields[name] = mine === base ? other : other === base ? mine : [mine, other].sort().pop();
      continue;
    }
    const merged = merge3(base, mine, other, jsonEqual);
    if (merged.ok) {
      if (merged.value !== undefined) fields[name] = merged.value;
    } else if (name === 'document' && ancestor !== undefined && mine !== undefined && other !== undefined) {
      fields[name] = mine; // replaced by the merged body's hash
      mergeBodies = true;
    } else {
      conflicting = true;
      conflicts.ours[name] = mine ?? null;
      conflicts.theirs[name] = other ?? null;
    }
  }
  return { fields: fields as unknown as Fields, ...(conflicting ? { conflicts } : {}), mergeBodies };
}

function fieldNames(...nodes: Array<PageNode | Fields | undefined>): Array<keyof Fields> {
  const names = new Set<string>();
  for (const node of nodes) if (node) for (const name of Object.keys(node)) if (name !== 'children') names.add(name);
  return [...names] as Array<keyof Fields>;
}

function changedFields(before: PageNode, after: PageNode): string[] {
  return fieldNames(before, after).filter((name) => !jsonEqual(before[name], after[name]));
}

function sameFields(fields: Fields, node: PageNode): boolean {
  return fieldNames(fields, node).every((name) => jsonEqual(fields[name], node[name]));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
