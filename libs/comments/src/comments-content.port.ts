import type { CommentBody } from './comment.events';

/** A page as a comment's target shows it. */
export interface CommentPage {
  id: string;
  title: string;
  emoji?: string;
  icon?: string;
  createdAt: string;
  updatedAt: string;
  path: string;
}

/**
 * What comments need of the content context (bound to content's ContentForComments): bodies
 * converted with content's converter, and the pages and blocks comments point at.
 */
export interface CommentContent {
  /**
   * A body as a document (markdown through content's converter, or a JSON document validated: 400
   * when invalid) and as markdown rendered from that document, both off the request thread.
   */
  document(body: { markdown: string } | { document: unknown }): Promise<{ document: CommentBody; markdown: string }>;
  /** A stored body's markdown, rendered when read: only for bodies stored without their markdown. */
  markdown(document: CommentBody): string;
  /** The page (and the block with that key) in a revision of the space; null when the page is not there, `node` null when the block is not. */
  target(spaceId: string, revisionId: string, pageId: string, nodeKey?: string): Promise<{ page: CommentPage; node: { preview: string; fingerprint: string } | null } | null>;
  /** For each target, the fingerprint of the block in that revision (null when the page or the block is gone), and the page as it is there. */
  current(spaceId: string, revisionId: string, targets: ReadonlyArray<{ pageId: string; nodeKey?: string }>): Promise<Array<{ page: CommentPage | null; fingerprint: string | null }>>;
  /** The head revision of the space's main line. */
  head(spaceId: string): Promise<string>;
}

export const COMMENT_CONTENT = Symbol('COMMENT_CONTENT');
