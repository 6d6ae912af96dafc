import type { ContextManifest } from '../../runtime/src/context';
import { teamSchemas } from './teams.schemas';
import { teamAuditCatalog } from './team.audit';
import { TeamModule } from './team.module';
import { teamProjection } from './team.projections';
import { TeamDirectory } from './team.queries';
import { teamMembershipReactor } from './team.reactors';
import { TeamsForSso } from './team.sso';
import { TEAM_ORGANIZATIONS } from './team-organizations.port';

/** Teams and team membership; a member leaving the organization leaves its teams (reactor). */
export const teamsContext: ContextManifest = {
  name: 'teams',
  module: TeamModule,
  projections: [teamProjection],
  reactors: [teamMembershipReactor],
  audit: teamAuditCatalog,
  needs: [TEAM_ORGANIZATIONS],
  provides: [TeamDirectory, TeamsForSso],
  schemas: teamSchemas,
};
