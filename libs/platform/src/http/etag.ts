import { ApiError } from './error-envelope';

/** A resource's ETag is its stream revision, as a strong entity tag. */
export function etagOf(revision: number): string {
  return `"${revision}"`;
}

/**
 * One resource and the revision of the stream it lives in, from one read: the body and its ETag
 * describe the same version, so a write naming that ETag is based on that body.
 */
export interface Versioned<T> {
  object: T;
  streamRevision: number;
}

/** Answers a versioned resource: its ETag as the header, the object as the body. */
export function tagged<T>(reply: { header(name: string, value: string): unknown }, { object, streamRevision }: Versioned<T>): T {
  void reply.header('etag', etagOf(streamRevision));
  return object;
}

/** `*`, or a comma-separated list of entity tags (`"x"` or `W/"x"`, the opaque part of visible ASCII but `"`, or obs-text). */
const IF_MATCH = /^\s*(?:\*|(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"(?:\s*,\s*(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")*)\s*$/;
const ENTITY_TAG = /(W\/)?"([^"]*)"/g;
/** How etagOf writes a revision: no sign, no leading zero (`"007"` is another tag than `"7"`). */
const REVISION = /^(?:0|[1-9]\d{0,14})$/;

/**
 * Reads `If-Match` into the revision a write requires:
 * - absent or `*` → undefined (no precondition; any current version of an existing resource matches);
 * - a list of entity tags → the revision its strong tags name. If-Match uses the strong comparison,
 *   so a weak tag (`W/"2"`) never matches, and neither does a tag that is not one of our ETags:
 *   when no tag can match, 412. Tags naming two different revisions are refused (400), since a
 *   write is checked against one revision;
 * - anything that is not `*` or a list of entity tags → 400.
 */
export function parseIfMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  // Repeated If-Match fields form one list.
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!IF_MATCH.test(value)) {
    throw new ApiError(400, `If-Match must be * or a list of entity tags such as "3", got ${JSON.stringify(value.trim().slice(0, 40))}`);
  }
  if (value.trim() === '*') return undefined;
  const revisions = new Set<number>();
  for (const [, weak, opaque] of value.matchAll(ENTITY_TAG)) {
    if (weak === undefined && REVISION.test(opaque)) revisions.add(Number(opaque));
  }
  if (revisions.size === 0) {
    throw new ApiError(
      412,
      'If-Match names no current ETag of the resource (If-Match uses the strong comparison: weak tags such as W/"3" never match)',
    );
  }
  if (revisions.size > 1) throw new ApiError(400, 'If-Match may name only one revision of the resource');
  return [...revisions][0];
}

/** A resource whose version is an id (a content revision) rather than a stream revision. */
export function etagOfId(id: string): string {
  return `"${id}"`;
}

/**
 * `If-Match` for resources versioned by an id (content revisions): absent or `*` → undefined;
 * otherwise the one id its strong tags name (400 for two ids or a malformed header, 412 when only
 * weak tags are given: they never match).
 */
export function parseIfMatchId(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!IF_MATCH.test(value))
    throw new ApiError(
      400,
      `If-Match must be * or a list of entity tags such as "revisionId", got ${JSON.stringify(value.trim().slice(0, 40))}`,
    );
  if (value.trim() === '*') return undefined;
  const ids = new Set<string>();
  for (const [, weak, opaque] of value.matchAll(ENTITY_TAG)) if (weak === undefined) ids.add(opaque);
  if (ids.size === 0) throw new ApiError(412, 'If-Match names no current ETag of the resource (weak tags never match)');
  if (ids.size > 1) throw new ApiError(400, 'If-Match may name only one revision of the resource');
  return [...ids][0];
}
