import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import { newId } from '#platform/ids';
import type { Caller } from '#platform/http/auth';
import type { TeamRole } from '#platform/permissions';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import { TeamAccess } from './team.access';
import { planMemberChanges, requireMayCreateTeam, requireTeamAdmin, teamDecider, teamStream, type MemberChange } from './team.decider';
import { TeamMemberResolver } from './team.member-resolver';
import { TEAM_ORGANIZATIONS, type TeamOrganizations } from './teams.needs';
import { LIVE_TEAM, TEAMS, type TeamDoc } from './team.projections';

/*
 * The team commands: each reads what the rule needs (the caller's organization role through
 * TeamAccess, 404 for people outside the organization; the users named and whether they belong to
 * the organization), then lets the team stream decide.
 */

/** `PUT /teams/{teamId}/members`: entries are user ids or e-mail addresses. */
export interface TeamMembersUpdate {
  add?: readonly string[];
  remove?: readonly string[];
  memberships?: Readonly<Record<string, { role: TeamRole }>>;
}

/** Teams whose streams are decided at once. */
const SWEEP_CONCURRENCY = 50;

/** `PUT /teams`: `members` (ids or e-mail addresses) join as `member`; the creator joins as `owner`. Answers the new team's id. */
export class CreateTeam extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly body: { title: string; members: readonly string[] },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateTeam)
export class CreateTeamHandler extends DecidingHandler {
  constructor(
    private readonly access: TeamAccess,
    private readonly resolver: TeamMemberResolver,
  ) {
    super();
  }

  async execute({ organizationId, body, caller }: CreateTeam): Promise<string> {
    const by = await this.access.viewer(organizationId, caller);
    // Refused callers learn nothing about the users they name.
    const denied = requireMayCreateTeam(organizationId, by);
    if (denied) throw denied;
    const ids = await this.resolver.requireJoining(organizationId, body.members);
    const teamId = newId();
    const memberIds = body.members.map((entry) => ids.get(entry)!);
    await this.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'CreateTeam', teamId, organizationId, title: body.title, members: memberIds, by, now: this.now() },
      { caller },
    );
    return teamId;
  }
}

/** `PATCH /teams/{teamId}` */
export class RenameTeam extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly title: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RenameTeam)
export class RenameTeamHandler extends DecidingHandler {
  constructor(private readonly access: TeamAccess) {
    super();
  }

  async execute({ organizationId, teamId, title, caller, ifMatch }: RenameTeam): Promise<void> {
    const by = await this.access.viewer(organizationId, caller);
    await this.decide(teamStream(teamId), teamDecider, { kind: 'RenameTeam', teamId, organizationId, title, by }, { caller, ifMatch });
  }
}

/** `DELETE /teams/{teamId}` */
export class DeleteTeam extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteTeam)
export class DeleteTeamHandler extends DecidingHandler {
  constructor(private readonly access: TeamAccess) {
    super();
  }

  async execute({ organizationId, teamId, caller, ifMatch }: DeleteTeam): Promise<void> {
    const by = await this.access.viewer(organizationId, caller);
    await this.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'DeleteTeam', teamId, organizationId, by, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/**
 * `PUT /teams/{teamId}/members`, the bulk update: every entry must name a user (else 400 naming
 * it), everyone who ends up in the team must belong to the organization (else 400 naming them),
 * and then one command appends all resulting events to the team stream in one batch; when
 * anything is refused, nothing changes.
 */
export class UpdateTeamMembers extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly update: TeamMembersUpdate,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateTeamMembers)
export class UpdateTeamMembersHandler extends DecidingHandler {
  constructor(
    private readonly access: TeamAccess,
    private readonly resolver: TeamMemberResolver,
  ) {
    super();
  }

  async execute({ organizationId, teamId, update, caller, ifMatch }: UpdateTeamMembers): Promise<void> {
    const by = await this.access.viewer(organizationId, caller);
    // Only those who may manage the team learn which entries name users.
    const { state } = await this.load(teamStream(teamId), teamDecider);
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
    await this.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'ChangeTeamMembers', teamId, organizationId, changes, by, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/** `PUT /teams/{teamId}/members/{userId}`: adds the member (as `member` when `role` is absent), or changes their role. */
export class SetTeamMember extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly userId: string,
    readonly role: TeamRole | undefined,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(SetTeamMember)
export class SetTeamMemberHandler extends DecidingHandler {
  constructor(
    private readonly access: TeamAccess,
    private readonly resolver: TeamMemberResolver,
  ) {
    super();
  }

  async execute({ organizationId, teamId, userId, role, caller, ifMatch }: SetTeamMember): Promise<void> {
    const by = await this.access.viewer(organizationId, caller);
    const { state } = await this.load(teamStream(teamId), teamDecider);
    const denied = requireTeamAdmin(state, organizationId, teamId, by);
    if (denied) throw denied;
    await this.resolver.requireJoining(organizationId, [userId]);
    const change: MemberChange = role === undefined ? { op: 'add', userId } : { op: 'set', userId, role };
    await this.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'ChangeTeamMembers', teamId, organizationId, changes: [change], by, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/** `DELETE /teams/{teamId}/members/{userId}`: admins and owners remove anyone; anyone leaves. */
export class RemoveTeamMember extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly userId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveTeamMember)
export class RemoveTeamMemberHandler extends DecidingHandler {
  constructor(private readonly access: TeamAccess) {
    super();
  }

  async execute({ organizationId, teamId, userId, caller, ifMatch }: RemoveTeamMember): Promise<void> {
    const by = await this.access.viewer(organizationId, caller);
    await this.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'RemoveTeamMember', teamId, organizationId, userId, by },
      { caller, ifMatch },
    );
  }
}

/**
 * A system command (the team reactor's, on `MemberRemoved`): once a member has left the
 * organization (their `MemberRemoved` is in the organization stream), they leave every team of it,
 * so the team streams agree with the organization. No permission check: the organization decided.
 * Every live team's stream decides (the read models may already have dropped the user's
 * memberships on `MemberRemoved`, so the streams, not `team_memberships`, say where the user still
 * is); teams without the user append nothing.
 */
export class RemoveDepartedMemberFromTeams extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RemoveDepartedMemberFromTeams)
export class RemoveDepartedMemberFromTeamsHandler extends DecidingHandler {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {
    super();
  }

  async execute({ organizationId, userId, caller }: RemoveDepartedMemberFromTeams): Promise<void> {
    let last: bigint | undefined;
    let after: string | undefined;
    do {
      const page = await this.reads.collection<TeamDoc>(TEAMS).find({ organizationId, ...LIVE_TEAM }, { limit: 1000, after, count: false });
      for (let i = 0; i < page.items.length; i += SWEEP_CONCURRENCY) {
        const outcomes = await Promise.all(
          page.items
            .slice(i, i + SWEEP_CONCURRENCY)
            .map((team) =>
              this.decide(
                teamStream(team._id),
                teamDecider,
                { kind: 'RemoveDepartedMember', teamId: team._id, organizationId, userId },
                { caller, wait: false },
              ),
            ),
        );
        for (const outcome of outcomes) {
          if (outcome.events.length === 0 || outcome.position === undefined) continue;
          if (last === undefined || outcome.position > last) last = outcome.position;
        }
      }
      after = page.next;
    } while (after !== undefined);
    await this.runner.waitFor(last, caller.requestId);
  }
}

/**
 * A system command (the SSO_TEAMS port's `addMember`, for a SAML login): adds a member of the
 * organization to one of its teams as `member`, with no user permission check (the login acts as
 * the service); someone already in the team is left as they are. 404 for a team that is gone, 400
 * for a user outside the organization.
 */
export class JoinTeamBySso extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly teamId: string,
    readonly userId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(JoinTeamBySso)
export class JoinTeamBySsoHandler extends DecidingHandler {
  constructor(@Inject(TEAM_ORGANIZATIONS) private readonly membership: TeamOrganizations) {
    super();
  }

  async execute({ organizationId, teamId, userId, caller }: JoinTeamBySso): Promise<void> {
    if (!(await this.membership.roleOf(organizationId, userId))?.member)
      throw DomainError.invalid(`not members of organization ${organizationId}: ${JSON.stringify(userId)}`);
    await this.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'JoinTeamBySso', teamId, organizationId, userId, now: this.now() },
      { caller, source: 'system' },
    );
  }
}

export const teamCommandHandlers = [
  CreateTeamHandler,
  RenameTeamHandler,
  DeleteTeamHandler,
  UpdateTeamMembersHandler,
  SetTeamMemberHandler,
  RemoveTeamMemberHandler,
  RemoveDepartedMemberFromTeamsHandler,
  JoinTeamBySsoHandler,
];
