import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import type { OrganizationMembership } from '../../organizations/src/organization.queries';

/**
 * SAML providers are organization settings: only its admins read and manage them. 404 for people
 * outside the organization (it must not leak that it exists), 403 for members below admin.
 */
export async function requireSsoAdmin(membership: OrganizationMembership, organizationId: string, caller: Caller): Promise<void> {
  const role = await membership.requireMember(organizationId, caller);
  if (role !== 'admin') throw DomainError.forbidden(`only admins of organization ${organizationId} may manage its SAML providers`);
}
