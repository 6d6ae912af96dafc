import { Module } from '@nestjs/common';
import { IdentityModule } from '../../identity/src/identity.module';
import { CreateOrganizationHandler, UpdateOrganizationHandler } from './organization.commands';
import { OrganizationController } from './organization.controller';
import {
  AnswerInvitationHandler,
  ChangeMemberRoleHandler,
  CreateLinkInviteHandler,
  DeleteLinkInviteHandler,
  EnableMemberSsoHandler,
  InviteMembersHandler,
  JoinByLinkHandler,
  JoinBySsoHandler,
  RecordMemberSeenHandler,
  RemoveMemberHandler,
  RevokeInvitationHandler,
} from './member.commands';
import { MemberController, UserInvitationController } from './member.controller';
import {
  GetLinkInviteHandler,
  GetMemberHandler,
  InvitationLocator,
  LinkInvitePresenter,
  ListPendingInvitesHandler,
  ListUserInvitesHandler,
  ListLinkInvitesHandler,
  ListMemberSpacesHandler,
  ListMembersHandler,
  MemberDirectory,
} from './member.queries';
import { VisitorClaimsSigner } from './visitor-claims';
import {
  GetOrganizationHandler,
  GetUserProfileHandler,
  ListOrganizationsHandler,
  OrganizationMembership,
  OrganizationPresenter,
  OrganizationsByEmailDomainHandler,
} from './organization.queries';

@Module({
  imports: [IdentityModule],
  controllers: [OrganizationController, MemberController, UserInvitationController],
  providers: [
    InviteMembersHandler,
    AnswerInvitationHandler,
    RevokeInvitationHandler,
    ListPendingInvitesHandler,
    ListUserInvitesHandler,
    InvitationLocator,
    JoinByLinkHandler,
    JoinBySsoHandler,
    ChangeMemberRoleHandler,
    RemoveMemberHandler,
    EnableMemberSsoHandler,
    CreateLinkInviteHandler,
    DeleteLinkInviteHandler,
    RecordMemberSeenHandler,
    ListMembersHandler,
    GetMemberHandler,
    ListMemberSpacesHandler,
    ListLinkInvitesHandler,
    GetLinkInviteHandler,
    MemberDirectory,
    LinkInvitePresenter,
    VisitorClaimsSigner,
    CreateOrganizationHandler,
    UpdateOrganizationHandler,
    GetOrganizationHandler,
    ListOrganizationsHandler,
    OrganizationsByEmailDomainHandler,
    GetUserProfileHandler,
    OrganizationMembership,
    OrganizationPresenter,
  ],
  exports: [OrganizationMembership, OrganizationPresenter, MemberDirectory],
})
export class OrganizationModule {}
