import type { OrganizationRole } from '../../platform/src/permissions';

/** What translations need of organizations: the caller's standing (members read translation settings, admins change them). */
export interface TranslationOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const TRANSLATION_ORGANIZATIONS = Symbol('TRANSLATION_ORGANIZATIONS');
