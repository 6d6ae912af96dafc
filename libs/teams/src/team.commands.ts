import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newId } from '../../platform/src/ids';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { isOrganizationRole, type TeamRole } from '../../platform/src/permissions';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { OrganizationMembership } from '../../organizations/src/organization.queries';
import { planMemberChanges, requireMayCreateTeam, requireTeamAdmin, teamDecider, teamStream, type MemberChange, type TeamActor } from './team.decider';
import { TeamMemberResolver } from './team.member-resolver';
import { LIVE_TEAM, TEAMS, type TeamDoc } from './team.projections';

/** The caller with their organization role (anything that is not a role counts as none); 404 for people outside the organization. */
async function actorIn(membership: OrganizationMembership, organizationId: string, caller: Caller): Promise<TeamActor> {
  const userId = userOf(caller).userId;
  const organizationRole = await membership.requireMember(organizationId, caller);
  return { userId, organizationRole: isOrganizationRole(organizationRole) ? organizationRole : null };
}

export class CreateTeam {
  constructor(
    readonly organizationId: string,
    readonly title: string,
    /** Member ids joining as `member`; the creator joins as `owner`. */
    readonly members: readonly string[],
    readonly caller: Caller,
  ) {}
}

@CommandHandler(CreateTeam)
export class CreateTeamHandler implements ICommandHandler<CreateTeam, { teamId: string }> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
    private readonly resolver: TeamMemberResolver,
  ) {}

  async execute({ organizationId, title, members, caller }: CreateTeam) {
    const by = await actorIn(this.membership, organizationId, caller);
    // Refused callers learn nothing about the users they name.
    const denied = requireMayCreateTeam(organizationId, by);
    if (denied) throw denied;
    const ids = await this.resolver.requireJoining(organizationId, members);
    const teamId = newId();
    const now = this.commands.now().toISOString();
    const memberIds = members.map((entry) => ids.get(entry)!);
    await this.commands.run(teamStream(teamId), teamDecider, { kind: 'CreateTeam', teamId, organizationId, title, members: memberIds, by, now }, { caller });
    return { teamId };
  }
}

export class RenameTeam {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly title: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {}
}

@CommandHandler(RenameTeam)
export class RenameTeamHandler implements ICommandHandler<RenameTeam, void> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, teamId, title, caller, ifMatch }: RenameTeam): Promise<void> {
    const by = await actorIn(this.membership, organizationId, caller);
    await this.commands.run(teamStream(teamId), teamDecider, { kind: 'RenameTeam', teamId, organizationId, title, by }, { caller }, { ifMatch });
  }
}

export class DeleteTeam {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {}
}

@CommandHandler(DeleteTeam)
export class DeleteTeamHandler implements ICommandHandler<DeleteTeam, void> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, teamId, caller, ifMatch }: DeleteTeam): Promise<void> {
    const by = await actorIn(this.membership, organizationId, caller);
    const now = this.commands.now().toISOString();
    await this.commands.run(teamStream(teamId), teamDecider, { kind: 'DeleteTeam', teamId, organizationId, by, now }, { caller }, { ifMatch });
  }
}

/** `PUT /teams/{teamId}/members`: entries are user ids or e-mail addresses. */
export interface TeamMembersUpdate {
  add?: readonly string[];
  remove?: readonly string[];
  memberships?: Readonly<Record<string, { role: TeamRole }>>;
}

export class UpdateTeamMembers {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly update: TeamMembersUpdate,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {}
}

/**
 * The bulk update: every entry must name a user (else 400 naming it), everyone who ends up in
 * the team must belong to the organization (else 400 naming them), and then one command appends
 * all resulting events to the team stream in one batch; when anything is refused, nothing changes.
 */
@CommandHandler(UpdateTeamMembers)
export class UpdateTeamMembersHandler implements ICommandHandler<UpdateTeamMembers, void> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
    private readonly resolver: TeamMemberResolver,
  ) {}

  async execute({ organizationId, teamId, update, caller, ifMatch }: UpdateTeamMembers): Promise<void> {
    const by = await actorIn(this.membership, organizationId, caller);
    // Only those who may manage the team learn which entries name users.
    const { state } = await this.commands.load(teamStream(teamId), teamDecider);
    const denied = requireTeamAdmin(state, organizationId, teamId, by);
    if (denied) throw denied;
    const add = update.add ?? [];
    const remove = update.remove ?? [];
    const memberships = Object.entries(update.memberships ?? {});
    const { ids, unknown } = await this.resolver.resolve([...add, ...remove, ...memberships.map(([entry]) => entry)]);
    const known = (entry: string) => ids.has(entry);
    const id = (entry: string) => ids.get(entry)!;
    const changes = planMemberChanges({
      add: add.filter(known).map(id),
      remove: remove.filter(known).map(id),
      memberships: memberships.filter(([entry]) => known(entry)).map(([entry, { role }]) => [id(entry), role] as const),
    });
    // Whoever ends up in the team must belong to the organization (an e-mail in `remove` wins over the same user's id in `add`).
    const joining = new Set(changes.filter((change) => change.op !== 'remove').map((change) => change.userId));
    const outside = new Set(await this.resolver.outsiders(organizationId, [...joining]));
    const outsideEntries = [...add, ...memberships.map(([entry]) => entry)].filter((entry) => known(entry) && outside.has(id(entry)));
    const invalid = this.resolver.invalid(organizationId, unknown, [...new Set(outsideEntries)]);
    if (invalid) throw invalid;
    // Even with no change, If-Match is checked.
    const now = this.commands.now().toISOString();
    await this.commands.run(teamStream(teamId), teamDecider, { kind: 'ChangeTeamMembers', teamId, organizationId, changes, by, now }, { caller }, { ifMatch });
  }
}

export class SetTeamMember {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly userId: string,
    /** Absent: joins as `member`, or keeps the role they have. */
    readonly role: TeamRole | undefined,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {}
}

/** `PUT /teams/{teamId}/members/{userId}`: adds the member, or changes their role. */
@CommandHandler(SetTeamMember)
export class SetTeamMemberHandler implements ICommandHandler<SetTeamMember, void> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
    private readonly resolver: TeamMemberResolver,
  ) {}

  async execute({ organizationId, teamId, userId, role, caller, ifMatch }: SetTeamMember): Promise<void> {
    const by = await actorIn(this.membership, organizationId, caller);
    const { state } = await this.commands.load(teamStream(teamId), teamDecider);
    const denied = requireTeamAdmin(state, organizationId, teamId, by);
    if (denied) throw denied;
    await this.resolver.requireJoining(organizationId, [userId]);
    const change: MemberChange = role === undefined ? { op: 'add', userId } : { op: 'set', userId, role };
    const now = this.commands.now().toISOString();
    await this.commands.run(teamStream(teamId), teamDecider, { kind: 'ChangeTeamMembers', teamId, organizationId, changes: [change], by, now }, { caller }, { ifMatch });
  }
}

export class RemoveTeamMember {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly userId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {}
}

/** `DELETE /teams/{teamId}/members/{userId}`: admins and owners remove anyone; anyone leaves. */
@CommandHandler(RemoveTeamMember)
export class RemoveTeamMemberHandler implements ICommandHandler<RemoveTeamMember, void> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, teamId, userId, caller, ifMatch }: RemoveTeamMember): Promise<void> {
    const by = await actorIn(this.membership, organizationId, caller);
    await this.commands.run(teamStream(teamId), teamDecider, { kind: 'RemoveTeamMember', teamId, organizationId, userId, by }, { caller }, { ifMatch });
  }
}

/**
 * Dispatched by the organizations context once a member has left the organization (their
 * `MemberRemoved` is in the organization stream): they leave every team of it, so the team
 * streams agree with the organization. No permission check: the organization decided.
 */
export class RemoveUserFromAllTeams {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly caller: Caller,
  ) {}
}

/** Teams whose streams are decided at once. */
const SWEEP_CONCURRENCY = 50;

/**
 * Goes through every live team of the organization and lets each team stream decide (the read
 * models may already have dropped the user's memberships on `MemberRemoved`, so the streams, not
 * `team_memberships`, say where the user still is). Teams without the user append nothing.
 */
@CommandHandler(RemoveUserFromAllTeams)
export class RemoveUserFromAllTeamsHandler implements ICommandHandler<RemoveUserFromAllTeams, { teams: number }> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async execute({ organizationId, userId, caller }: RemoveUserFromAllTeams) {
    let last: bigint | undefined;
    let removed = 0;
    let after: string | undefined;
    do {
      const page = await this.reads.collection<TeamDoc>(TEAMS).find({ organizationId, ...LIVE_TEAM }, { limit: 1000, after, count: false });
      for (let i = 0; i < page.items.length; i += SWEEP_CONCURRENCY) {
        const outcomes = await Promise.all(
          page.items
            .slice(i, i + SWEEP_CONCURRENCY)
            .map((team) =>
              this.commands.run(teamStream(team._id), teamDecider, { kind: 'RemoveDepartedMember', teamId: team._id, organizationId, userId }, { caller }, { wait: false }),
            ),
        );
        for (const outcome of outcomes) {
          if (outcome.events.length === 0 || outcome.position === undefined) continue;
          removed++;
          if (last === undefined || outcome.position > last) last = outcome.position;
        }
      }
      after = page.next;
    } while (after !== undefined);
    await this.commands.waitFor(last, caller.requestId);
    return { teams: removed };
  }
}
