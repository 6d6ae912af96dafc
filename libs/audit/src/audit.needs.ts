/*
 * What the audit context needs of others: every port it consumes, the types they speak in, and
 * their tokens. Each is bound at the composition root (libs/composition/src/contexts.ts) to an
 * adapter another context provides.
 */

/**
 * What the audit context needs to know about organizations: whether a user belongs to one and with
 * which role. The organizations context implements it (OrganizationsForAudit, bound at the
 * composition root); the audit context depends only on this port.
 */
export interface OrganizationAccess {
  /**
   * The user's standing in the organization: null when there is no such organization,
   * `member: false` when it exists but the user does not belong to it (or is disabled).
   */
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: string | null } | null>;
}

export const ORGANIZATION_ACCESS = Symbol('ORGANIZATION_ACCESS');
