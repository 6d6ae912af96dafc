import { Test } from '@nestjs/testing';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import { teamsContext } from './teams.context';
import { TEAM_ORGANIZATIONS } from './teams.needs';
import type { ReactionContext, RecordedOf } from '#runtime/reactor';
import { organizationStream, type OrganizationEvent } from '#organizations';
import { RemoveDepartedMemberFromTeams } from './team.commands';
import { teamMembershipReactor } from './team.reactors';

const memberRemoved = (organizationId: string, userId: string): RecordedOf<OrganizationEvent> => ({
  id: 'e1',
  streamId: organizationStream(organizationId),
  revision: 3,
  position: 10n,
  type: 'MemberRemoved',
  data: { organizationId, userId },
  metadata: { correlationId: 'req-1' },
  recordedAt: '2026-01-01T00:00:00.000Z',
});

let commandBus: CommandBus;

beforeAll(async () => {
  const module = await Test.createTestingModule({ imports: [CqrsModule.forRoot()] }).compile();
  commandBus = module.get(CommandBus);
});

afterEach(() => jest.restoreAllMocks());

/** A reaction context whose organization stream has `members`, and whose CommandBus records the commands dispatched on it. */
function contextWith(members: string[]) {
  const calls: Array<[string, string, Caller]> = [];
  jest.spyOn(commandBus, 'execute').mockImplementation(async (command) => {
    expect(command).toBeInstanceOf(RemoveDepartedMemberFromTeams);
    const { organizationId, userId, caller } = command as RemoveDepartedMemberFromTeams;
    calls.push([organizationId, userId, caller]);
  });
  const loaded: string[] = [];
  // The port as organizations binds it: membership read from the organization's stream.
  const organizations = {
    isMember: async (organizationId: string, userId: string) => {
      loaded.push(organizationStream(organizationId));
      return members.includes(userId);
    },
  };
  const caller: Caller = { kind: 'system', id: 'reactor-team-departed-members', label: 'Reactor', requestId: 'req-1' };
  const context = {
    caller,
    correlationId: 'req-1',
    causationId: 'e1',
    commandBus,
    commands: {},
    reads: {},
    services: {
      get: (token: unknown) => {
        expect(token).toBe(TEAM_ORGANIZATIONS);
        return organizations;
      },
    },
  } as unknown as ReactionContext;
  return { context, calls, loaded, caller };
}

describe('teamMembershipReactor', () => {
  it('is registered, and reacts to MemberRemoved only', () => {
    expect(teamsContext.reactors).toContain(teamMembershipReactor);
    expect(teamMembershipReactor.handles).toEqual(['MemberRemoved']);
  });

  it('takes a member who left the organization out of every team of it, as its system actor', async () => {
    const { context, calls, loaded, caller } = contextWith(['ada']);
    await teamMembershipReactor.react(memberRemoved('o1', 'bob'), context);
    expect(loaded).toEqual([organizationStream('o1')]);
    expect(calls).toEqual([['o1', 'bob', caller]]);
  });

  it('leaves alone someone who has rejoined since: a redelivered or replayed removal undoes nothing that came after', async () => {
    const { context, calls } = contextWith(['ada', 'bob']);
    await teamMembershipReactor.react(memberRemoved('o1', 'bob'), context);
    expect(calls).toEqual([]);
  });
});
