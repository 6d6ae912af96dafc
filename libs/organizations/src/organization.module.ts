import { Module } from '@nestjs/common';
import { IdentityModule } from '../../identity/src';
import { OrganizationCommands } from './organization.commands';
import { OrganizationController } from './organization.controller';
import { MemberCommands } from './member.commands';
import { MemberController, UserInvitationController } from './member.controller';
import { InvitationLocator, LinkInvitePresenter, MemberDirectory, MemberQueries } from './member.queries';
import { VisitorClaimsSigner } from './visitor-claims';
import { OrganizationMembership, OrganizationPresenter, OrganizationQueries } from './organization.queries';
import { OrganizationsForSso, OrganizationsForTeams } from './organization.ports';

/**
 * Organizations and their members. Exports the membership facts and Member objects other contexts
 * read, and MemberCommands for the SAML login, which joins people as SSO members.
 */
@Module({
  imports: [IdentityModule],
  controllers: [OrganizationController, MemberController, UserInvitationController],
  providers: [
    OrganizationCommands,
    OrganizationQueries,
    OrganizationMembership,
    OrganizationPresenter,
    MemberCommands,
    MemberQueries,
    MemberDirectory,
    InvitationLocator,
    LinkInvitePresenter,
    VisitorClaimsSigner,
    OrganizationsForSso,
    OrganizationsForTeams,
  ],
  exports: [OrganizationMembership, OrganizationPresenter, MemberDirectory, MemberCommands, OrganizationsForSso, OrganizationsForTeams],
})
export class OrganizationModule {}
