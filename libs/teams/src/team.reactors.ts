import type { Reactor } from '../../runtime/src/reactor';
import { TEAM_ORGANIZATIONS, type TeamOrganizations } from './team-organizations.port';
import { TeamCommands } from './team.commands';

/**
 * A member who left the organization (`MemberRemoved`) leaves every team of it, so the team streams
 * agree with the organization. Idempotent: a team without the user appends nothing. Someone who has
 * rejoined since is left alone: the teams they are in now are not the ones the removal ended (a
 * replayed or redelivered removal must not undo what came after it).
 */
export const teamMembershipReactor: Reactor = {
  name: 'team-departed-members',
  handles: ['MemberRemoved'],
  async react(event, { services, caller }) {
    const { organizationId, userId } = event.data as { organizationId: string; userId: string };
    if (await services.get<TeamOrganizations>(TEAM_ORGANIZATIONS).isMember(organizationId, userId)) return;
    await services.get(TeamCommands).removeUserFromAllTeams(organizationId, userId, caller);
  },
};
