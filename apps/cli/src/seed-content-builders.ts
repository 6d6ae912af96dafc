import type { BlobStore } from '#blob-store/blob-store.port';
import { EMPTY_TREE_ROOT, loadedTreesOf, touchedPages, TreeEditor, type TouchedPages } from '#content';
import { markdownToDocument } from '#document';
import type { DocumentNode } from '#document/document.model';

/** A page to write in a seeded revision: a document page and its body (`SeedBodies`). */
export interface SeedPage {
  id: string;
  title: string;
  document: DocumentNode;
  /** Parent page id; the top level when null. */
  into: string | null;
}

/** What one seeded revision changes in the tree it builds on. */
export interface SeedEdits {
  insert?: readonly SeedPage[];
  /** New bodies (and optionally titles) for pages already in the tree. */
  update?: ReadonlyArray<{ id: string; document: DocumentNode; title?: string }>;
}

/** A tree built and written to the blob store, with the pages it touched as `CommitRevision` wants them. */
export interface SeedTree {
  tree: string;
  pages: TouchedPages;
}

/**
 * Builds revision trees for the CLI's `seed` the way the content writes do (ContentBuilder:
 * markdown through `markdownToDocument`, pages through the `TreeEditor`, every blob written to
 * the blob store), so a seeded log names real trees that the projections and the reads load.
 */
export class ContentSeedTrees {
  private readonly trees;

  constructor(readonly blobs: BlobStore) {
    this.trees = loadedTreesOf(blobs);
  }

  /** The tree `base` (the empty tree when null) with `edits` applied, written to the blob store. */
  async build(base: string | null, edits: SeedEdits, now: string): Promise<SeedTree> {
    const editor = new TreeEditor(this.trees.store, await this.trees.tree(base ?? EMPTY_TREE_ROOT));
    for (const page of edits.insert ?? []) {
      editor.insertPage({
        id: page.id,
        type: 'document',
        attributes: { title: page.title },
        document: page.document,
        into: page.into,
        now,
      });
    }
    for (const page of edits.update ?? []) {
      editor.updatePage(page.id, {
        ...(page.title !== undefined ? { attributes: { title: page.title } } : {}),
        document: page.document,
        now,
      });
    }
    const { rootHash } = await editor.commit();
    return { tree: rootHash, pages: touchedPages(editor.touched()) };
  }
}

/**
 * Page bodies for a seed: converting markdown costs milliseconds a page (micromark), too slow for
 * 100,000 pages, so each template is converted once by `markdownToDocument` and every page gets a
 * copy of its document with its own words in every text leaf: the shapes the converter makes,
 * with text that differs from page to page (so bodies are distinct blobs, as real ones are).
 */
export class SeedBodies {
  private readonly converted = new Map<string, DocumentNode>();

  /** A page body, or a comment's (a comment body is the same document shape, ContentForComments.document). */
  body(template: string, reword: (text: string) => string): DocumentNode & { [member: string]: unknown } {
    let document = this.converted.get(template);
    if (!document) this.converted.set(template, (document = markdownToDocument(template).document));
    return rewordLeaves(document, reword) as DocumentNode & { [member: string]: unknown };
  }
}

/** A copy of a document node with every leaf's text passed through `reword`. */
function rewordLeaves(node: unknown, reword: (text: string) => string): unknown {
  if (Array.isArray(node)) return node.map((child) => rewordLeaves(child, reword));
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node))
    copy[key] = value !== null && typeof value === 'object' ? rewordLeaves(value, reword) : value;
  if (copy.object === 'leaf' && typeof copy.text === 'string') copy.text = reword(copy.text);
  return copy;
}
