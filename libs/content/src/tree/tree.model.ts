import type { ContentRef } from '#document/document.model';

/**
 * A revision's content as a Merkle tree in the blob store (docs/content.md, "Storage"): every page
 * is a node blob naming its children by hash, so an edit rewrites the changed page and the path to
 * the root, and revisions share every unchanged subtree. Blobs are canonical JSON (sorted keys).
 */
export type PageType = 'document' | 'group' | 'link';

/** The kinds of computed page the service can generate (docs/content.md, "Computed pages"). */
export const COMPUTED_PAGE_TYPES = ['builtin:openapi'] as const;
export type ComputedPageType = (typeof COMPUTED_PAGE_TYPES)[number];

/**
 * A document page's computed source: its body is generated, when read with `computed`, from what
 * it depends on (an OpenAPI spec of the space's organization, by slug); `props` narrow it.
 */
export interface ComputedSource {
  type: ComputedPageType;
  dependencies: { spec: { ref: { kind: 'openapi'; spec: string } } };
  props: Record<string, unknown>;
}

/** Page attributes a write may set, shared by the node, the batch changes and the wire Page. */
export interface PageAttributes {
  title: string;
  slug?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  linkTitle?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** Adaptive content: an expression over visitor attributes. */
  condition?: string;
  layout?: Record<string, unknown>;
  cover?: Record<string, unknown>;
  variables?: Record<string, string>;
  /** Document pages: the source of a generated body. */
  computed?: ComputedSource;
}

export interface PageNode extends PageAttributes {
  object: 'page-node';
  id: string;
  type: PageType;
  /** Hash of the page body (a `DocumentNode` blob): document pages only. */
  document?: string;
  /** Link pages. */
  target?: ContentRef;
  href?: string;
  createdAt: string;
  updatedAt: string;
  /** Hashes of the child page nodes, in order. */
  children: string[];
}

export interface FileEntry {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** Hash of the bytes in the blob store. */
  hash: string;
  dimensions?: { width: number; height: number };
  createdAt: string;
}

/** The root of a revision's tree. */
export interface TreeRoot {
  object: 'content-tree';
  /** Hashes of the top-level page nodes, in order. */
  pages: string[];
  /** Hash of a `FileList` blob. */
  files: string;
  variables: Record<string, string>;
}

export interface FileList {
  object: 'file-list';
  /** Sorted by id. */
  files: FileEntry[];
}

/** A page as a loaded tree shows it: the node's attributes plus where it sits. */
export interface PageView extends Omit<PageNode, 'children' | 'object'> {
  /** Hash of this page's node blob: unchanged means nothing in the page or below it changed. */
  nodeHash: string;
  parentId: string | null;
  /** Slugs from the root joined by '/'; link pages have none. */
  path: string;
  /** Index among its siblings. */
  index: number;
  depth: number;
  childIds: string[];
}
