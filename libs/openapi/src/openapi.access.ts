import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { organizationPermissions, type OrganizationRole } from '#platform/permissions';
import { OPENAPI_ORGANIZATIONS, type OpenapiOrganizations } from './openapi.needs';

/**
 * Who may do what with an organization's OpenAPI specs, decided in one place: people outside the
 * organization get 404 (its existence is not revealed); every member (guests included) reads its
 * specs; members with `createOpenAPISpec` (role create and above) write them.
 */
@Injectable()
export class OpenapiAccess {
  constructor(@Inject(OPENAPI_ORGANIZATIONS) private readonly organizations: OpenapiOrganizations) {}

  /** The caller's organization role; 404 for people outside the organization. */
  async role(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    const standing = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return standing.role;
  }

  /** Whether the caller may write specs; 404 for people outside the organization. */
  async mayWrite(organizationId: string, caller: Caller): Promise<boolean> {
    return organizationPermissions(await this.role(organizationId, caller)).createOpenAPISpec;
  }
}
