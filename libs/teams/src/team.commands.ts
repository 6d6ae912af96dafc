import { Inject, Injectable } from '@nestjs/common';
import { newId } from '../../platform/src/ids';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { isOrganizationRole, type TeamRole } from '../../platform/src/permissions';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { planMemberChanges, requireMayCreateTeam, requireTeamAdmin, teamDecider, teamStream, type MemberChange, type TeamActor, type TeamCommand } from './team.decider';
import { TeamMemberResolver } from './team.member-resolver';
import { TEAM_ORGANIZATIONS, type TeamOrganizations } from './team-organizations.port';
import { LIVE_TEAM, TEAMS, type TeamDoc } from './team.projections';

/** `PUT /teams/{teamId}/members`: entries are user ids or e-mail addresses. */
export interface TeamMembersUpdate {
  add?: readonly string[];
  remove?: readonly string[];
  memberships?: Readonly<Record<string, { role: TeamRole }>>;
}

/** Teams whose streams are decided at once. */
const SWEEP_CONCURRENCY = 50;

/**
 * The team commands: each reads what the rule needs (the caller's organization role, the users
 * named and whether they belong to the organization), then lets the team stream decide.
 */
@Injectable()
export class TeamCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(TEAM_ORGANIZATIONS) private readonly membership: TeamOrganizations,
    private readonly resolver: TeamMemberResolver,
  ) {}

  private now(): string {
    return this.commands.now().toISOString();
  }

  private run(teamId: string, command: TeamCommand, caller: Caller, ifMatch?: number) {
    return this.commands.run(teamStream(teamId), teamDecider, command, { caller }, { ifMatch });
  }

  /** The caller with their organization role (anything that is not a role counts as none); 404 for people outside the organization. */
  private async actor(organizationId: string, caller: Caller): Promise<TeamActor> {
    const userId = userOf(caller).userId;
    const organizationRole = await this.membership.requireMember(organizationId, caller);
    return { userId, organizationRole: isOrganizationRole(organizationRole) ? organizationRole : null };
  }

  /** `PUT /teams`: `members` (ids or e-mail addresses) join as `member`; the creator joins as `owner`. */
  async create(organizationId: string, title: string, members: readonly string[], caller: Caller): Promise<string> {
    const by = await this.actor(organizationId, caller);
    // Refused callers learn nothing about the users they name.
    const denied = requireMayCreateTeam(organizationId, by);
    if (denied) throw denied;
    const ids = await this.resolver.requireJoining(organizationId, members);
    const teamId = newId();
    const memberIds = members.map((entry) => ids.get(entry)!);
    await this.run(teamId, { kind: 'CreateTeam', teamId, organizationId, title, members: memberIds, by, now: this.now() }, caller);
    return teamId;
  }

  async rename(organizationId: string, teamId: string, title: string, caller: Caller, ifMatch?: number): Promise<void> {
    const by = await this.actor(organizationId, caller);
    await this.run(teamId, { kind: 'RenameTeam', teamId, organizationId, title, by }, caller, ifMatch);
  }

  async delete(organizationId: string, teamId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const by = await this.actor(organizationId, caller);
    await this.run(teamId, { kind: 'DeleteTeam', teamId, organizationId, by, now: this.now() }, caller, ifMatch);
  }

  /**
   * The bulk update: every entry must name a user (else 400 naming it), everyone who ends up in
   * the team must belong to the organization (else 400 naming them), and then one command appends
   * all resulting events to the team stream in one batch; when anything is refused, nothing changes.
   */
  async updateMembers(organizationId: string, teamId: string, update: TeamMembersUpdate, caller: Caller, ifMatch?: number): Promise<void> {
    const by = await this.actor(organizationId, caller);
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
    await this.run(teamId, { kind: 'ChangeTeamMembers', teamId, organizationId, changes, by, now: this.now() }, caller, ifMatch);
  }

  /** `PUT /teams/{teamId}/members/{userId}`: adds the member (as `member` when `role` is absent), or changes their role. */
  async setMember(organizationId: string, teamId: string, userId: string, role: TeamRole | undefined, caller: Caller, ifMatch?: number): Promise<void> {
    const by = await this.actor(organizationId, caller);
    const { state } = await this.commands.load(teamStream(teamId), teamDecider);
    const denied = requireTeamAdmin(state, organizationId, teamId, by);
    if (denied) throw denied;
    await this.resolver.requireJoining(organizationId, [userId]);
    const change: MemberChange = role === undefined ? { op: 'add', userId } : { op: 'set', userId, role };
    await this.run(teamId, { kind: 'ChangeTeamMembers', teamId, organizationId, changes: [change], by, now: this.now() }, caller, ifMatch);
  }

  /** `DELETE /teams/{teamId}/members/{userId}`: admins and owners remove anyone; anyone leaves. */
  async removeMember(organizationId: string, teamId: string, userId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const by = await this.actor(organizationId, caller);
    await this.run(teamId, { kind: 'RemoveTeamMember', teamId, organizationId, userId, by }, caller, ifMatch);
  }

  /**
   * Once a member has left the organization (their `MemberRemoved` is in the organization stream),
   * they leave every team of it, so the team streams agree with the organization. No permission
   * check: the organization decided. Every live team's stream decides (the read models may already
   * have dropped the user's memberships on `MemberRemoved`, so the streams, not `team_memberships`,
   * say where the user still is); teams without the user append nothing.
   */
  async removeUserFromAllTeams(organizationId: string, userId: string, caller: Caller): Promise<void> {
    let last: bigint | undefined;
    let after: string | undefined;
    do {
      const page = await this.reads.collection<TeamDoc>(TEAMS).find({ organizationId, ...LIVE_TEAM }, { limit: 1000, after, count: false });
      for (let i = 0; i < page.items.length; i += SWEEP_CONCURRENCY) {
        const outcomes = await Promise.all(
          page.items
            .slice(i, i + SWEEP_CONCURRENCY)
            .map((team) => this.commands.run(teamStream(team._id), teamDecider, { kind: 'RemoveDepartedMember', teamId: team._id, organizationId, userId }, { caller }, { wait: false })),
        );
        for (const outcome of outcomes) {
          if (outcome.events.length === 0 || outcome.position === undefined) continue;
          if (last === undefined || outcome.position > last) last = outcome.position;
        }
      }
      after = page.next;
    } while (after !== undefined);
    await this.commands.waitFor(last, caller.requestId);
  }
}
