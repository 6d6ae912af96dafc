/**
 * What content needs of OpenAPI specs: the parsed document of a spec's latest version, by slug in
 * an organization (null when there is no such spec or it has no version yet). Content reads it to
 * resolve `openapi-operation` blocks when a page is read with `computed` (content.openapi.ts).
 */
export interface ContentOpenapi {
  latestDocument(organizationId: string, slug: string): Promise<{ versionId: string; document: Record<string, unknown> } | null>;
}

export const CONTENT_OPENAPI = Symbol('CONTENT_OPENAPI');
