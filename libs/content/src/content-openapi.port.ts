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
