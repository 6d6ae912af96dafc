import type { OrganizationEvent } from '#organizations';
import type { Reactor } from '#runtime/reactor';
import { TEAM_ORGANIZATIONS, type TeamOrganizations } from './teams.needs';
import { RemoveDepartedMemberFromTeams } from './team.commands';

/**
 * A member who left the organization (`MemberRemoved`) leaves every team of it, so the team streams
 * agree with the organization. Idempotent: a team without the user appends nothing. Someone who has
 * rejoined since is left alone: the teams they are in now are not the ones the removal ended (a
 * replayed or redelivered removal must not undo what came after it).
 */
export const teamMembershipReactor: Reactor<OrganizationEvent> = {
  name: 'team-departed-members',
  handles: ['MemberRemoved'],
  async react(event, { services, commandBus, caller }) {
    switch (event.type) {
      case 'MemberRemoved': {
        const { organizationId, userId } = event.data;
        if (await services.get<TeamOrganizations>(TEAM_ORGANIZATIONS).isMember(organizationId, userId)) return;
        await commandBus.execute(new RemoveDepartedMemberFromTeams(organizationId, userId, caller));
        return;
      }
    }
  },
};
