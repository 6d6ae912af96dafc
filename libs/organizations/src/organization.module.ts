import { Module } from '@nestjs/common';
import { organizationCommandHandlers } from './organization.commands';
import { OrganizationController } from './organization.controller';
import { memberCommandHandlers } from './member.commands';
import { MemberController, UserInvitationController } from './member.controller';
import { InvitationLocator, LinkInvitePresenter, MemberDirectory, memberQueryHandlers } from './member.queries';
import { VisitorClaimsSigner } from './visitor-claims';
import { OrganizationMembership, OrganizationPresenter, organizationQueryHandlers } from './organization.queries';
import {
  OrganizationsForAudit,
  OrganizationsForChangeRequests,
  OrganizationsForComments,
  OrganizationsForIntegrations,
  OrganizationsForSites,
  OrganizationsForSpaces,
  OrganizationsForTranslations,
  OrganizationsForOpenapi,
  OrganizationsForSso,
  OrganizationsForTeams,
} from './organizations.provides';

/**
 * Organizations and their members. It exports only the classes that implement other contexts'
 * ports (its manifest's `provides`); what it needs of other contexts (users, members' team and space
 * counts) comes through its own ports, bound at the composition root.
 */
@Module({
  controllers: [OrganizationController, MemberController, UserInvitationController],
  providers: [
    OrganizationMembership,
    OrganizationPresenter,
    MemberDirectory,
    InvitationLocator,
    LinkInvitePresenter,
    VisitorClaimsSigner,
    ...organizationCommandHandlers,
    ...organizationQueryHandlers,
    ...memberCommandHandlers,
    ...memberQueryHandlers,
    OrganizationsForSso,
    OrganizationsForChangeRequests,
    OrganizationsForComments,
    OrganizationsForIntegrations,
    OrganizationsForSites,
    OrganizationsForTranslations,
    OrganizationsForOpenapi,
    OrganizationsForTeams,
    OrganizationsForSpaces,
    OrganizationsForAudit,
  ],
  exports: [
    OrganizationsForSso,
    OrganizationsForTeams,
    OrganizationsForSpaces,
    OrganizationsForAudit,
    OrganizationsForChangeRequests,
    OrganizationsForComments,
    OrganizationsForIntegrations,
    OrganizationsForSites,
    OrganizationsForTranslations,
    OrganizationsForOpenapi,
  ],
})
export class OrganizationModule {}
