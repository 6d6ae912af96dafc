/*
 * What the OpenAPI context needs of other contexts: every port it consumes (the interfaces, the
 * types they speak in and their `Symbol` tokens), each bound at the composition root to an adapter
 * the provider lists in its manifest's `provides`.
 */
import type { OrganizationRole } from '#platform/permissions';

/* Of organizations (OPENAPI_ORGANIZATIONS, bound to OrganizationsForOpenapi). */

/** What OpenAPI specs need of organizations: the caller's role (members read specs; `createOpenAPISpec` writes them). */
export interface OpenapiOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const OPENAPI_ORGANIZATIONS = Symbol('OPENAPI_ORGANIZATIONS');
