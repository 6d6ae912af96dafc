import { Module } from '@nestjs/common';
import { IdentityModule } from '../../identity/src/identity.module';
import { OrganizationCommands } from './organization.commands';
import { OrganizationController } from './organization.controller';
import { MemberCommands } from './member.commands';
import { MemberController, UserInvitationController } from './member.controller';
import { InvitationLocator, LinkInvitePresenter, MemberDirectory, MemberQueries } from './member.queries';
import { VisitorClaimsSigner } from './visitor-claims';
import { OrganizationMembership, OrganizationPresenter, OrganizationQueries } from './organization.queries';

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
  ],
  exports: [OrganizationMembership, OrganizationPresenter, MemberDirectory, MemberCommands],
})
export class OrganizationModule {}
