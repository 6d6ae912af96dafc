import type { ContextManifest } from '#runtime/context';
import { teamSchemas } from './teams.schemas';
import { teamAuditCatalog } from './team.audit';
import { TeamModule } from './team.module';
import { teamProjection } from './team.projections';
import { teamMembershipReactor } from './team.reactors';
import { TEAM_ORGANIZATIONS, TEAM_USERS } from './teams.needs';
import { TeamsForOrganizations, TeamsForSpaces, TeamsForSso } from './teams.provides';

/** Teams and team membership; a member leaving the organization leaves its teams (reactor). */
export const teamsContext: ContextManifest = {
  name: 'teams',
  module: TeamModule,
  projections: [teamProjection],
  reactors: [teamMembershipReactor],
  audit: teamAuditCatalog,
  needs: [TEAM_ORGANIZATIONS, TEAM_USERS],
  provides: [TeamsForOrganizations, TeamsForSpaces, TeamsForSso],
  schemas: teamSchemas,
};
