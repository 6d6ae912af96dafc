/*
 * What the translations context needs of other contexts: every port it consumes (the interfaces,
 * the types they speak in and their `Symbol` tokens), each bound at the composition root to an
 * adapter the provider lists in its manifest's `provides`.
 */
import type { OrganizationRole } from '#platform/permissions';

/* Of organizations (TRANSLATION_ORGANIZATIONS, bound to OrganizationsForTranslations). */

/** What translations need of organizations: the caller's standing (members read translation settings, admins change them). */
export interface TranslationOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const TRANSLATION_ORGANIZATIONS = Symbol('TRANSLATION_ORGANIZATIONS');
