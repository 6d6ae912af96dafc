import type { Readable } from 'node:stream';

/**
 * What the published HTML site needs of content (a port sites owns, bound at the composition root to
 * content's `ContentForSites`): a space's primary content (its revision and page tree), a page's body,
 * a file's bytes and the space's search. The types are as narrow as the renderer reads them; bodies
 * are untrusted JSON, which the renderer checks member by member.
 */

/** A reference a link, an image or a content-ref block points at (the content model's references). */
export interface SiteContentRef {
  kind: string;
  page?: string;
  space?: string;
  file?: string;
  anchor?: string;
  url?: string;
  [member: string]: unknown;
}

/** A node of a page body: a block, an inline, a text (with leaves) or the document itself. */
export interface SiteDocumentNode {
  object: string;
  type?: string;
  key?: string;
  data?: Record<string, unknown>;
  nodes?: SiteDocumentNode[];
  leaves?: Array<{ text: string; marks?: Array<{ type: string; data?: Record<string, unknown> }> }>;
}

export interface SitePage {
  id: string;
  type: 'document' | 'group' | 'link';
  title: string;
  /** Slugs from the root joined by '/'; link pages have none. */
  path: string;
  parentId: string | null;
  depth: number;
  emoji?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** Adaptive content: an expression over visitor claims. */
  condition?: string;
  /** Link pages. */
  target?: SiteContentRef;
  href?: string;
}

export interface SiteFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
}

/** A space's primary content: its head revision and its pages in tree order (pre-order). */
export interface SiteSpaceContent {
  spaceId: string;
  revisionId: string;
  pages: SitePage[];
  files: SiteFile[];
}

export interface SiteSearchHit {
  id: string;
  title: string;
  path: string;
  description?: string;
  sections: Array<{ id: string; title: string; path: string; body: string }>;
}

export interface SiteContent {
  /** The space's primary content; null when the space does not exist or is deleted. */
  content(spaceId: string): Promise<SiteSpaceContent | null>;
  /** A document page's body in a revision, with the space's and the page's variables substituted; null when absent. */
  document(spaceId: string, revisionId: string, pageId: string): Promise<SiteDocumentNode | null>;
  /** A file of a revision and its bytes; null when absent. */
  file(spaceId: string, revisionId: string, fileId: string): Promise<{ file: SiteFile; body: Readable } | null>;
  /** Pages of a revision matching the query, best first (pages hidden from search are not indexed). */
  search(spaceId: string, revisionId: string, query: string): Promise<SiteSearchHit[]>;
}

export const SITE_CONTENT = Symbol('SITE_CONTENT');
