import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { translationSettingsPermissions, type OrganizationRole, type TranslationSettingsPermissions } from '#platform/permissions';
import { TRANSLATION_ORGANIZATIONS, type TranslationOrganizations } from './translations.needs';

/**
 * Who may do what with an organization's translation settings, decided in one place: people
 * outside the organization get 404 (its existence is not revealed), members without `view`
 * (guests) 403, and `edit` is passed to the decider, which refuses with 403.
 */
@Injectable()
export class TranslationAccess {
  constructor(@Inject(TRANSLATION_ORGANIZATIONS) private readonly organizations: TranslationOrganizations) {}

  /** The caller's permissions in the organization; 404 for people outside it. */
  async permissions(
    organizationId: string,
    caller: Caller,
  ): Promise<TranslationSettingsPermissions & { role: OrganizationRole; userId: string }> {
    const standing = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (caller.kind !== 'user' || !standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return { ...translationSettingsPermissions(standing.role), role: standing.role, userId: caller.userId };
  }

  /** The caller's permissions, when they may read the organization's translation settings; 403 for guests. */
  async viewer(organizationId: string, caller: Caller): Promise<TranslationSettingsPermissions> {
    const { view, edit } = await this.permissions(organizationId, caller);
    if (!view)
      throw DomainError.forbidden(
        `translation settings of organization ${organizationId} are for its members with a role; guests do not see them`,
      );
    return { view, edit };
  }
}
