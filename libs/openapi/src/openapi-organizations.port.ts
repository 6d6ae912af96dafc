import type { OrganizationRole } from '../../platform/src/permissions';

/** What OpenAPI specs need of organizations: the caller's role (members read specs; `createOpenAPISpec` writes them). */
export interface OpenapiOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const OPENAPI_ORGANIZATIONS = Symbol('OPENAPI_ORGANIZATIONS');
