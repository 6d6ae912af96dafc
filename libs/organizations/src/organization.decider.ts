import { DomainError } from '../../platform/src/errors';
import type { OrganizationRole } from '../../platform/src/permissions';
import type { Decider } from '../../event-store/src/decider';
import type { HostnameEvent, MemberSeenEvent, MemberSource, OrganizationChanges, OrganizationEvent } from './organization.events';

export const organizationStream = (organizationId: string) => `organization-${organizationId}`;
export const hostnameStream = (hostname: string) => `orghostname-${hostname}`;
export const memberSeenStream = (organizationId: string, userId: string) => `memberseen-${organizationId}.${userId}`;

export interface MemberState {
  role: OrganizationRole;
  sso: boolean;
}

export interface OrganizationState {
  exists: boolean;
  fields: Required<OrganizationChanges>;
  members: Record<string, MemberState>;
  linkInvites: Record<string, { role: OrganizationRole }>;
}

export interface NewMember {
  userId: string;
  role: OrganizationRole;
  sso: boolean;
}

export type OrganizationCommand =
  | { kind: 'CreateOrganization'; organizationId: string; title: string; emailDomains: string[]; creatorId: string; now: string }
  | { kind: 'UpdateOrganization'; organizationId: string; changes: OrganizationChanges; byUserId: string; now: string }
  /** Invitations by an admin: users already in the organization are left as they are. */
  | { kind: 'AddMembers'; organizationId: string; members: NewMember[]; byUserId: string; now: string }
  | { kind: 'JoinByLink'; organizationId: string; inviteId: string; userId: string; now: string }
  /** A SAML login: the service itself adds the user (or marks an existing member as SSO). */
  | { kind: 'JoinBySso'; organizationId: string; userId: string; role: OrganizationRole; now: string }
  | { kind: 'ChangeMemberRole'; organizationId: string; userId: string; role: OrganizationRole; byUserId: string }
  | { kind: 'RemoveMember'; organizationId: string; userId: string; byUserId: string }
  | { kind: 'EnableMemberSso'; organizationId: string; userId: string; byUserId: string }
  | { kind: 'CreateLinkInvite'; organizationId: string; inviteId: string; role: OrganizationRole; byUserId: string; now: string }
  | { kind: 'DeleteLinkInvite'; organizationId: string; inviteId: string; byUserId: string };

/** Settings of a new organization (before its title and domains): the decider and the read model start from these. */
export const DEFAULT_ORGANIZATION_SETTINGS: Readonly<Required<Omit<OrganizationChanges, 'title' | 'emailDomains'>>> = {
  hostname: null,
  defaultRole: null,
  defaultContent: null,
  logo: null,
  sso: false,
  ai: false,
  inviteLinks: true,
};

const initialFields = (): Required<OrganizationChanges> => ({ title: '', emailDomains: [], ...DEFAULT_ORGANIZATION_SETTINGS });

const without = <T>(record: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _removed, ...rest } = record;
  return rest;
};

/** The organization aggregate: its settings, who belongs with which role, and its link invites. */
export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ exists: false, fields: initialFields(), members: {}, linkInvites: {} }),

  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return { ...state, exists: true, fields: { ...state.fields, title: event.data.title, emailDomains: event.data.emailDomains } };
      case 'OrganizationUpdated':
        return { ...state, fields: { ...state.fields, ...event.data.changes } };
      case 'MemberAdded':
        return { ...state, members: { ...state.members, [event.data.userId]: { role: event.data.role, sso: event.data.sso } } };
      case 'MemberRoleChanged':
        return { ...state, members: { ...state.members, [event.data.userId]: { ...state.members[event.data.userId], role: event.data.role } } };
      case 'MemberRemoved':
        return { ...state, members: without(state.members, event.data.userId) };
      case 'MemberSsoEnabled':
        return { ...state, members: { ...state.members, [event.data.userId]: { ...state.members[event.data.userId], sso: true } } };
      case 'LinkInviteCreated':
        return { ...state, linkInvites: { ...state.linkInvites, [event.data.inviteId]: { role: event.data.role } } };
      case 'LinkInviteDeleted':
        return { ...state, linkInvites: without(state.linkInvites, event.data.inviteId) };
    }
  },

  decide(command, state): OrganizationEvent[] | DomainError {
    const { organizationId } = command;
    if (command.kind === 'CreateOrganization') {
      if (state.exists) return DomainError.conflict(`organization ${organizationId} already exists`);
      return [
        {
          type: 'OrganizationCreated',
          data: { organizationId, title: command.title, emailDomains: unique(command.emailDomains), createdBy: command.creatorId, createdAt: command.now },
        },
        memberAdded(organizationId, { userId: command.creatorId, role: 'admin', sso: false }, command.now, 'creation'),
      ];
    }
    if (command.kind === 'JoinByLink') {
      if (!state.exists) return DomainError.notFound(`no organization ${organizationId}`);
      const invite = state.linkInvites[command.inviteId];
      if (!invite) return DomainError.notFound(`no invite ${command.inviteId}`);
      if (!state.fields.inviteLinks) return DomainError.forbidden('this organization does not accept joining by link');
      if (command.userId in state.members) return [];
      return [memberAdded(organizationId, { userId: command.userId, role: invite.role, sso: false }, command.now, 'link')];
    }
    if (command.kind === 'JoinBySso') {
      if (!state.exists) return DomainError.notFound(`no organization ${organizationId}`);
      const member = state.members[command.userId];
      if (!member) return [memberAdded(organizationId, { userId: command.userId, role: command.role, sso: true }, command.now, 'sso')];
      return member.sso ? [] : [{ type: 'MemberSsoEnabled', data: { organizationId, userId: command.userId } }];
    }
    if (command.kind === 'RemoveMember' && command.userId === command.byUserId) {
      // Anyone may leave, except the last admin.
      const leaving = requireMember(state, organizationId, command.byUserId);
      if (leaving) return leaving;
      return removeMember(state, organizationId, command.userId);
    }
    const denied = requireAdmin(state, organizationId, command.byUserId);
    if (denied) return denied;
    switch (command.kind) {
      case 'UpdateOrganization': {
        const requested = { ...command.changes, ...(command.changes.emailDomains ? { emailDomains: unique(command.changes.emailDomains) } : {}) };
        const changes = changedFields(state.fields, requested);
        return Object.keys(changes).length === 0 ? [] : [{ type: 'OrganizationUpdated', data: { organizationId, changes, updatedAt: command.now } }];
      }
      case 'AddMembers':
        return uniqueBy(command.members, (m) => m.userId)
          .filter((m) => !(m.userId in state.members))
          .map((m) => memberAdded(organizationId, m, command.now, 'invite'));
      case 'ChangeMemberRole': {
        const member = state.members[command.userId];
        if (!member) return DomainError.notFound(`no member ${command.userId} in organization ${organizationId}`);
        if (member.role === command.role) return [];
        if (member.role === 'admin' && adminCount(state) === 1) return DomainError.conflict('the last admin of an organization cannot be demoted');
        return [{ type: 'MemberRoleChanged', data: { organizationId, userId: command.userId, role: command.role } }];
      }
      case 'RemoveMember':
        if (!(command.userId in state.members)) return DomainError.notFound(`no member ${command.userId} in organization ${organizationId}`);
        return removeMember(state, organizationId, command.userId);
      case 'EnableMemberSso': {
        const member = state.members[command.userId];
        if (!member) return DomainError.notFound(`no member ${command.userId} in organization ${organizationId}`);
        return member.sso ? [] : [{ type: 'MemberSsoEnabled', data: { organizationId, userId: command.userId } }];
      }
      case 'CreateLinkInvite':
        if (command.inviteId in state.linkInvites) return DomainError.conflict(`invite ${command.inviteId} already exists`);
        return [{ type: 'LinkInviteCreated', data: { organizationId, inviteId: command.inviteId, role: command.role, createdBy: command.byUserId, createdAt: command.now } }];
      case 'DeleteLinkInvite':
        if (!(command.inviteId in state.linkInvites)) return DomainError.notFound(`no invite ${command.inviteId}`);
        return [{ type: 'LinkInviteDeleted', data: { organizationId, inviteId: command.inviteId } }];
    }
  },
};

function memberAdded(organizationId: string, member: NewMember, joinedAt: string, via: MemberSource): OrganizationEvent {
  return { type: 'MemberAdded', data: { organizationId, userId: member.userId, role: member.role, sso: member.sso, joinedAt, via } };
}

function removeMember(state: OrganizationState, organizationId: string, userId: string): OrganizationEvent[] | DomainError {
  if (state.members[userId]?.role === 'admin' && adminCount(state) === 1) {
    return DomainError.conflict('the last admin of an organization cannot be removed');
  }
  return [{ type: 'MemberRemoved', data: { organizationId, userId } }];
}

const adminCount = (state: OrganizationState) => Object.values(state.members).filter((m) => m.role === 'admin').length;

/** 404 for non-members (they may not learn the organization exists). */
export function requireMember(state: OrganizationState, organizationId: string, userId: string): DomainError | null {
  return state.exists && userId in state.members ? null : DomainError.notFound(`no organization ${organizationId}`);
}

/** 404 for non-members, 403 for members below admin. */
export function requireAdmin(state: OrganizationState, organizationId: string, userId: string): DomainError | null {
  const notMember = requireMember(state, organizationId, userId);
  if (notMember) return notMember;
  if (state.members[userId].role !== 'admin') return DomainError.forbidden(`only admins of organization ${organizationId} may do this`);
  return null;
}

function changedFields(current: Required<OrganizationChanges>, requested: OrganizationChanges): OrganizationChanges {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(requested)) {
    if (value === undefined) continue;
    if (JSON.stringify(current[key as keyof OrganizationChanges]) !== JSON.stringify(value)) changes[key] = value;
  }
  return changes as OrganizationChanges;
}

const unique = (values: string[]) => [...new Set(values.map((v) => v.toLowerCase()))];
const uniqueBy = <T>(values: T[], key: (value: T) => string) => [...new Map(values.map((v) => [key(v), v])).values()];

// ---- member seen ------------------------------------------------------------------------------

/**
 * Pings are frequent (a client may ping every few seconds); the log records a member as seen at
 * most once a minute, which keeps `lastSeenAt` accurate to the minute at a bounded cost of one
 * small event per active member per minute.
 */
export const SEEN_INTERVAL_MS = 60_000;

export interface MemberSeenState {
  lastSeenAt: string | null;
}
export type MemberSeenCommand = { kind: 'RecordSeen'; organizationId: string; userId: string; now: string };

export const memberSeenDecider: Decider<MemberSeenCommand, MemberSeenEvent, MemberSeenState> = {
  initialState: () => ({ lastSeenAt: null }),
  evolve: (_state, event) => ({ lastSeenAt: event.data.seenAt }),
  decide(command, state) {
    if (state.lastSeenAt !== null && Date.parse(command.now) - Date.parse(state.lastSeenAt) < SEEN_INTERVAL_MS) return [];
    return [{ type: 'MemberSeen', data: { organizationId: command.organizationId, userId: command.userId, seenAt: command.now } }];
  },
};

// ---- hostname claim ---------------------------------------------------------------------------

export interface HostnameState {
  holder: string | null;
}
export type HostnameCommand =
  | { kind: 'ClaimHostname'; hostname: string; organizationId: string }
  | { kind: 'ReleaseHostname'; hostname: string; organizationId: string };

export const hostnameDecider: Decider<HostnameCommand, HostnameEvent, HostnameState> = {
  initialState: () => ({ holder: null }),
  evolve: (_state, event) => ({ holder: event.type === 'HostnameClaimed' ? event.data.organizationId : null }),
  decide(command, state) {
    if (command.kind === 'ClaimHostname') {
      if (state.holder === command.organizationId) return [];
      if (state.holder !== null) return DomainError.conflict(`hostname '${command.hostname}' is taken by another organization`);
      return [{ type: 'HostnameClaimed', data: { hostname: command.hostname, organizationId: command.organizationId } }];
    }
    if (state.holder !== command.organizationId) return [];
    return [{ type: 'HostnameReleased', data: { hostname: command.hostname, organizationId: command.organizationId } }];
  },
};
