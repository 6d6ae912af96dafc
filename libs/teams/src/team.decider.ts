import { DomainError } from '#platform/errors';
import { mayCreateTeam, teamPermissions, type OrganizationRole, type TeamRole } from '#platform/permissions';
import type { Decider } from '#event-store/decider';
import type { TeamEvent } from './team.events';

export const teamStream = (teamId: string) => `team-${teamId}`;

export interface TeamState {
  exists: boolean;
  deleted: boolean;
  organizationId: string;
  title: string;
  /** userId → team role (a Map: user ids come from requests and must never meet Object.prototype). */
  members: ReadonlyMap<string, TeamRole>;
}

/**
 * Who asks, with their role in the team's organization as the organizations context reports it
 * when the command is made (the handler has already answered people outside with 404).
 */
export interface TeamActor {
  userId: string;
  organizationRole: OrganizationRole;
}

/**
 * One member change of a bulk update:
 * - `add`: joins as `member`; someone already in the team keeps their role;
 * - `set`: joins with that role, or takes it;
 * - `remove`: leaves; someone not in the team is no change.
 */
export type MemberChange = { op: 'add'; userId: string } | { op: 'set'; userId: string; role: TeamRole } | { op: 'remove'; userId: string };

export type TeamCommand =
  /** The creator becomes the team's owner; `members` join as members. */
  | { kind: 'CreateTeam'; teamId: string; organizationId: string; title: string; members: string[]; by: TeamActor; now: string }
  | { kind: 'RenameTeam'; teamId: string; organizationId: string; title: string; by: TeamActor }
  | { kind: 'DeleteTeam'; teamId: string; organizationId: string; by: TeamActor; now: string }
  /** Bulk and single additions, role changes and removals: one user at most once. */
  | { kind: 'ChangeTeamMembers'; teamId: string; organizationId: string; changes: MemberChange[]; by: TeamActor; now: string }
  /** `DELETE /teams/{teamId}/members/{userId}`: 404 for someone not in the team; anyone may leave. */
  | { kind: 'RemoveTeamMember'; teamId: string; organizationId: string; userId: string; by: TeamActor }
  /** A SAML login adds the user to its provider's default team as `member`; someone already in keeps their role. */
  | { kind: 'JoinTeamBySso'; teamId: string; organizationId: string; userId: string; now: string }
  /** The user left the organization (already decided there): they leave the team too, if they are in it. */
  | { kind: 'RemoveDepartedMember'; teamId: string; organizationId: string; userId: string };

const without = <T>(map: ReadonlyMap<string, T>, key: string): Map<string, T> => {
  const rest = new Map(map);
  rest.delete(key);
  return rest;
};

/** 404 unless the team exists, is not deleted and belongs to that organization (nothing leaks across organizations). */
export function requireTeam(state: TeamState, organizationId: string, teamId: string): DomainError | null {
  return state.exists && !state.deleted && state.organizationId === organizationId ? null : DomainError.notFound(`no team ${teamId}`);
}

/** 404 as `requireTeam`, then 403 unless the actor may manage the team (organization admin or team owner). */
export function requireTeamAdmin(state: TeamState, organizationId: string, teamId: string, by: TeamActor): DomainError | null {
  const missing = requireTeam(state, organizationId, teamId);
  if (missing) return missing;
  if (!teamPermissions(by.organizationRole, state.members.get(by.userId) ?? null).admin) {
    return DomainError.forbidden(`only organization admins and owners of team ${teamId} may change it`);
  }
  return null;
}

/** 403 unless the actor's organization role lets them create teams (create and above). */
export function requireMayCreateTeam(organizationId: string, by: TeamActor): DomainError | null {
  return mayCreateTeam(by.organizationRole)
    ? null
    : DomainError.forbidden(`only members with role create or admin may create teams in organization ${organizationId}`);
}

/** The team aggregate: its title, whether it is deleted, who belongs with which role. */
export const teamDecider: Decider<TeamCommand, TeamEvent, TeamState> = {
  initialState: () => ({ exists: false, deleted: false, organizationId: '', title: '', members: new Map() }),

  evolve(state, event) {
    switch (event.type) {
      case 'TeamCreated':
        return { ...state, exists: true, organizationId: event.data.organizationId, title: event.data.title };
      case 'TeamRenamed':
        return { ...state, title: event.data.title };
      case 'TeamDeleted':
        return { ...state, deleted: true, members: new Map() };
      case 'TeamMemberAdded':
      case 'TeamMemberRoleChanged':
        return { ...state, members: new Map(state.members).set(event.data.userId, event.data.role) };
      case 'TeamMemberRemoved':
        return { ...state, members: without(state.members, event.data.userId) };
    }
  },

  decide(command, state): TeamEvent[] | DomainError {
    const { teamId, organizationId } = command;
    switch (command.kind) {
      case 'CreateTeam': {
        if (state.exists) return DomainError.conflict(`team ${teamId} already exists`);
        const denied = requireMayCreateTeam(organizationId, command.by);
        if (denied) return denied;
        const creator = command.by.userId;
        const others = [...new Set(command.members)].filter((userId) => userId !== creator);
        return [
          { type: 'TeamCreated', data: { teamId, organizationId, title: command.title, createdBy: creator, createdAt: command.now } },
          memberAdded(teamId, organizationId, creator, 'owner', command.now),
          ...others.map((userId) => memberAdded(teamId, organizationId, userId, 'member', command.now)),
        ];
      }
      case 'RenameTeam': {
        const denied = requireTeamAdmin(state, organizationId, teamId, command.by);
        if (denied) return denied;
        return state.title === command.title ? [] : [{ type: 'TeamRenamed', data: { teamId, organizationId, title: command.title } }];
      }
      case 'DeleteTeam': {
        const denied = requireTeamAdmin(state, organizationId, teamId, command.by);
        if (denied) return denied;
        return [{ type: 'TeamDeleted', data: { teamId, organizationId, deletedAt: command.now } }];
      }
      case 'ChangeTeamMembers': {
        const denied = requireTeamAdmin(state, organizationId, teamId, command.by);
        if (denied) return denied;
        const seen = new Set<string>();
        for (const change of command.changes) {
          if (seen.has(change.userId))
            return DomainError.invalid(`user ${change.userId} appears more than once in one change of team ${teamId}`);
          seen.add(change.userId);
        }
        return command.changes.flatMap((change) => memberChangeEvents(state, teamId, organizationId, change, command.now));
      }
      case 'RemoveTeamMember': {
        const missing = requireTeam(state, organizationId, teamId);
        if (missing) return missing;
        // Anyone may leave a team; removing someone else needs the right to manage it.
        if (command.userId !== command.by.userId) {
          const denied = requireTeamAdmin(state, organizationId, teamId, command.by);
          if (denied) return denied;
        }
        if (!state.members.has(command.userId)) return DomainError.notFound(`no member ${command.userId} in team ${teamId}`);
        return [{ type: 'TeamMemberRemoved', data: { teamId, organizationId, userId: command.userId } }];
      }
      case 'JoinTeamBySso': {
        const missing = requireTeam(state, organizationId, teamId);
        if (missing) return missing;
        return state.members.has(command.userId) ? [] : [memberAdded(teamId, organizationId, command.userId, 'member', command.now)];
      }
      case 'RemoveDepartedMember':
        if (requireTeam(state, organizationId, teamId) || !state.members.has(command.userId)) return [];
        return [{ type: 'TeamMemberRemoved', data: { teamId, organizationId, userId: command.userId } }];
    }
  },
};

function memberAdded(teamId: string, organizationId: string, userId: string, role: TeamRole, addedAt: string): TeamEvent {
  return { type: 'TeamMemberAdded', data: { teamId, organizationId, userId, role, addedAt } };
}

function memberChangeEvents(state: TeamState, teamId: string, organizationId: string, change: MemberChange, now: string): TeamEvent[] {
  const current = state.members.get(change.userId);
  const { userId } = change;
  switch (change.op) {
    case 'add':
      return current ? [] : [memberAdded(teamId, organizationId, userId, 'member', now)];
    case 'set':
      if (!current) return [memberAdded(teamId, organizationId, userId, change.role, now)];
      return current === change.role
        ? []
        : [{ type: 'TeamMemberRoleChanged', data: { teamId, organizationId, userId, role: change.role } }];
    case 'remove':
      return current ? [{ type: 'TeamMemberRemoved', data: { teamId, organizationId, userId } }] : [];
  }
}

/**
 * A bulk update (`PUT /teams/{teamId}/members`) as one change per user, users already resolved
 * to ids: `memberships` set roles (joining with that role when needed), `add` joins as member
 * unless `memberships` names the user too, and `remove` wins over both (a user in both `add` and
 * `remove` is removed).
 */
export function planMemberChanges(request: {
  add: readonly string[];
  remove: readonly string[];
  memberships: ReadonlyArray<readonly [string, TeamRole]>;
}): MemberChange[] {
  const changes = new Map<string, MemberChange>();
  for (const [userId, role] of request.memberships) changes.set(userId, { op: 'set', userId, role });
  for (const userId of request.add) if (!changes.has(userId)) changes.set(userId, { op: 'add', userId });
  for (const userId of request.remove) changes.set(userId, { op: 'remove', userId });
  return [...changes.values()];
}
