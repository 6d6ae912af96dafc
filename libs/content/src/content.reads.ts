import type { MarkdownRefs } from '#document';
import { DomainError } from '#platform/errors';

/*
 * What every content read shares. The reads (revision.queries.ts, file.queries.ts, link.queries.ts,
 * search.queries.ts) resolve the space (404 when the caller may not see it), then the revision asked
 * for (default: the head), then answer from the revision's tree (loaded once per root hash) and, for
 * bodies, the blob store's cache (ContentAccess, ContentBodies). The reads of the published site
 * (SITE_CONTENT) check no caller: the site's visibility rules decide who reads.
 */

/** Query flags of the content reads (docs/content.md, Reads). */
export interface ContentReadOptions {
  /** A revision of the space; default its primary content. */
  revision?: string;
  shareKey?: string;
  /** The bodies of pages as `markdown` or as a JSON `document` (default). */
  format?: 'markdown' | 'document';
  /** With `markdown`: links to pages as relative paths between markdown files, or as `/pages/<id>` (default relative). */
  markdownRefs?: MarkdownRefs;
  /** Substitute the space's and the page's variables in the body's expressions. */
  evaluated?: boolean;
  /** Resolve computed content from the specs' latest versions: computed pages and OpenAPI operation blocks (default true). */
  computed?: boolean;
}

/**
 * One object of a space's content (or of a change request's) and the revision it was read in: its
 * ETag. Every part of the content lives in one revision, so that revision is what a write of any
 * of them names in If-Match; body and tag come from the same read.
 */
export interface Versioned<T> {
  object: T;
  revisionId: string;
}

/** The cursor and size of a page of a list, as the routes take them. */
export type Paging = { page?: string; limit?: number };

/** What a space's content shows to the published site: everything can be read, nothing written. */
export const SITE_PERMISSIONS = { view: true, edit: false, comment: false, admin: false };

/**
 * A page of an in-memory list in its own order: the cursor is the last item's key, which must have
 * the shape `keyShape` (a cursor that is not one of ours is 400, as the read store answers).
 */
export function pageOf<T>(
  all: readonly T[],
  paging: { page?: string; limit?: number },
  keyOf: (item: T) => string,
  keyShape: RegExp,
  sorted = true,
): { items: T[]; next?: string } {
  const limit = paging.limit ?? 50;
  let start = 0;
  if (paging.page !== undefined) {
    const after = /^[A-Za-z0-9_-]{1,128}$/.test(paging.page) ? Buffer.from(paging.page, 'base64url').toString('utf8') : '';
    if (!keyShape.test(after) || Buffer.from(after).toString('base64url') !== paging.page)
      throw DomainError.invalid('page is not a cursor of this list');
    const index = sorted ? all.findIndex((item) => keyOf(item) > after) : all.findIndex((item) => keyOf(item) === after) + 1;
    start = index < 0 ? all.length : index;
  }
  const items = all.slice(start, start + limit);
  const more = start + limit < all.length;
  return { items, ...(more && items.length > 0 ? { next: Buffer.from(keyOf(items[items.length - 1])).toString('base64url') } : {}) };
}
