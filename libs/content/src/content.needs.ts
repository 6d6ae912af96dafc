import { createHmac } from 'node:crypto';
import type { Caller } from '#platform/http/auth';

/**
 * What the content context needs of other contexts: the ports it declares (the consumer owns them),
 * bound at the composition root (docs/cross-context.md).
 */
/**
 * What content needs of the spaces context (a port content owns, bound at the composition root to
 * spaces' adapter): the space a request names, as the caller may see it, and the spaces of an
 * organization the caller may read (organization search).
 */
export interface ContentSpace {
  id: string;
  organizationId: string;
  title: string;
  editMode: 'live' | 'locked';
  /** Public spaces serve their files without signed URLs. */
  visibility: string;
  deleted: boolean;
  createdAt: string;
  /** What the caller may do, from the spaces context's role rules. */
  permissions: { view: boolean; edit: boolean; comment: boolean; admin: boolean };
}

export interface ContentSpaces {
  /** The space, or 404 when the caller may not see it (exactly as `GET /spaces/{spaceId}` answers). */
  spaceFor(spaceId: string, caller: Caller, shareKey?: string): Promise<ContentSpace>;
  /** The space as the service itself sees it (reactors): null when it does not exist or was purged. */
  spaceById(spaceId: string): Promise<Omit<ContentSpace, 'permissions'> | null>;
  /** Live spaces of the organization the caller may read; 404 for people outside the organization. */
  readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>>;
}

export const CONTENT_SPACES = Symbol('CONTENT_SPACES');

/**
 * What content needs of the change-requests context (a port content owns, bound at the
 * composition root to ChangeRequestsForContent): the request a merge revision came from, as the
 * change-request reads present it (a revision's `mergedFrom`).
 */
export interface ContentChangeRequests {
  /** The request as the change-request reads present it, or 404 when the caller may not see it. */
  presented(spaceId: string, changeRequestId: string, caller: Caller): Promise<Record<string, unknown>>;
}

export const CONTENT_CHANGE_REQUESTS = Symbol('CONTENT_CHANGE_REQUESTS');

/**
 * What content needs of OpenAPI specs: the parsed document of a spec's latest version, by slug in
 * an organization (null when there is no such spec or it has no version yet). Content reads it to
 * resolve `openapi-operation` blocks and to generate computed pages when a page is read with
 * `computed` (content.openapi.ts).
 */
export interface ContentOpenapi {
  latestDocument(organizationId: string, slug: string): Promise<{ versionId: string; document: Record<string, unknown> } | null>;
  /**
   * A version of a spec, by ids (the reactor `content-dependencies` gets them from the version's
   * event): the spec's organization and slug, and whether the version is the spec's newest. Null
   * when the spec is deleted or has no such version.
   */
  specVersion(specId: string, versionId: string): Promise<{ organizationId: string; slug: string; newest: boolean } | null>;
}

export const CONTENT_OPENAPI = Symbol('CONTENT_OPENAPI');

/** The key that signs download URLs: a port bound at the composition root, derived from the service's secret. */
export const CONTENT_URL_KEY = Symbol('CONTENT_URL_KEY');

/** The download-URL key, derived from the service's admin secret so that every replica signs alike. */
export function contentUrlKey(adminToken: string): Buffer {
  return createHmac('sha256', adminToken).update('content-download-urls').digest();
}
