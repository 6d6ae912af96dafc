import { Module } from '@nestjs/common';
import { OrganizationCommands } from './organization.commands';
import { OrganizationController } from './organization.controller';
import { MemberCommands } from './member.commands';
import { MemberController, UserInvitationController } from './member.controller';
import { InvitationLocator, LinkInvitePresenter, MemberDirectory, MemberQueries } from './member.queries';
import { VisitorClaimsSigner } from './visitor-claims';
import { OrganizationMembership, OrganizationPresenter, OrganizationQueries } from './organization.queries';
import { OrganizationsForAudit, OrganizationsForChangeRequests, OrganizationsForComments, OrganizationsForIntegrations, OrganizationsForSites, OrganizationsForSpaces, OrganizationsForTranslations, OrganizationsForOpenapi, OrganizationsForSso, OrganizationsForTeams } from './organization.ports';

/**
 * Organizations and their members. It exports only the classes that implement other contexts'
 * ports (its manifest's `provides`); what it needs of other contexts (users, members' team and space
 * counts) comes through its own ports, bound at the composition root.
 */
@Module({
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
  exports: [OrganizationsForSso, OrganizationsForTeams, OrganizationsForSpaces, OrganizationsForAudit, OrganizationsForChangeRequests, OrganizationsForComments, OrganizationsForIntegrations, OrganizationsForSites, OrganizationsForTranslations, OrganizationsForOpenapi],
})
export class OrganizationModule {}
