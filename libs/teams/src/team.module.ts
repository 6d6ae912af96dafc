import { Module } from '@nestjs/common';
import { IdentityModule } from '../../identity/src';
import { OrganizationModule } from '../../organizations/src';
import { TeamCommands } from './team.commands';
import { TeamController } from './team.controller';
import { TeamMemberResolver } from './team.member-resolver';
import { TeamsForSso } from './team.sso';
import { TeamAccess, TeamDirectory, TeamPresenter, TeamQueries } from './team.queries';

/**
 * The teams context: needs OrganizationMembership and MemberDirectory (organizations) and UserQueries
 * (identity). TeamCommands is exported so that what other contexts decide (a member leaving the
 * organization) can reach the team streams.
 */
@Module({
  imports: [IdentityModule, OrganizationModule],
  controllers: [TeamController],
  providers: [TeamCommands, TeamQueries, TeamMemberResolver, TeamDirectory, TeamPresenter, TeamAccess, TeamsForSso],
  exports: [TeamCommands, TeamDirectory, TeamsForSso],
})
export class TeamModule {}
