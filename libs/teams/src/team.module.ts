import { Module } from '@nestjs/common';
import { TeamAccess, TeamDirectory } from './team.access';
import { teamCommandHandlers } from './team.commands';
import { TeamController } from './team.controller';
import { TeamMemberResolver } from './team.member-resolver';
import { teamQueryHandlers } from './team.queries';
import { TeamsForOrganizations, TeamsForSpaces, TeamsForSso } from './teams.provides';

/**
 * The teams context. What it needs of organizations and identity comes through its ports
 * (TEAM_ORGANIZATIONS, TEAM_USERS), bound at the composition root; it exports only the classes that
 * implement other contexts' ports (its manifest's `provides`).
 */
@Module({
  controllers: [TeamController],
  providers: [
    TeamMemberResolver,
    TeamDirectory,
    TeamAccess,
    ...teamCommandHandlers,
    ...teamQueryHandlers,
    TeamsForSso,
    TeamsForOrganizations,
    TeamsForSpaces,
  ],
  exports: [TeamsForSso, TeamsForOrganizations, TeamsForSpaces],
})
export class TeamModule {}
