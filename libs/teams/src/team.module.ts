import { Module } from '@nestjs/common';
import { IdentityModule } from '../../identity/src/identity.module';
import { OrganizationModule } from '../../organizations/src/organization.module';
import {
  CreateTeamHandler,
  DeleteTeamHandler,
  RemoveTeamMemberHandler,
  RemoveUserFromAllTeamsHandler,
  RenameTeamHandler,
  SetTeamMemberHandler,
  UpdateTeamMembersHandler,
} from './team.commands';
import { TeamController } from './team.controller';
import { TeamMemberResolver } from './team.member-resolver';
import { TeamsForSso } from './team.sso';
import { GetTeamHandler, ListMemberTeamsHandler, ListTeamMembersHandler, ListTeamsHandler, TeamAccess, TeamDirectory, TeamPresenter } from './team.queries';

/** The teams context: needs OrganizationMembership and MemberDirectory (organizations) and UserQueries (identity). */
@Module({
  imports: [IdentityModule, OrganizationModule],
  controllers: [TeamController],
  providers: [
    CreateTeamHandler,
    RenameTeamHandler,
    DeleteTeamHandler,
    UpdateTeamMembersHandler,
    SetTeamMemberHandler,
    RemoveTeamMemberHandler,
    RemoveUserFromAllTeamsHandler,
    ListTeamsHandler,
    GetTeamHandler,
    ListTeamMembersHandler,
    ListMemberTeamsHandler,
    TeamMemberResolver,
    TeamDirectory,
    TeamPresenter,
    TeamAccess,
    TeamsForSso,
  ],
  exports: [TeamDirectory, TeamsForSso],
})
export class TeamModule {}
