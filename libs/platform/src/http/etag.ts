import { ApiError } from './error-envelope';

/** A resource's ETag is its stream revision (DESIGN section 6). */
export function etagOf(revision: number): string {
  return `"${revision}"`;
}

/**
 * Reads `If-Match`: absent → undefined (no precondition); `"<revision>"` → that revision;
 * `*` → undefined (any current version matches an existing resource); anything else → 412.
 */
export function parseIfMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  const trimmed = value.trim();
  if (trimmed === '*') return undefined;
  const match = /^(?:W\/)?"(\d{1,15})"$/.exec(trimmed);
  if (!match) throw new ApiError(412, `If-Match must be an ETag such as "3", got ${JSON.stringify(trimmed.slice(0, 40))}`);
  return Number(match[1]);
}
