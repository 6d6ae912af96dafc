import { DomainError } from '#platform/errors';
import type { OrganizationRole } from '#platform/permissions';
import type { Decider } from '#event-store/decider';
import { normalizeEmail } from '#platform/email';
import { NO_MERGE_RULES, requiresApprovedReview, withApprovalRule } from '#platform/merge-rules';
import type { HostnameEvent, MemberSeenEvent, MemberSource, OrganizationChanges, OrganizationEvent } from './organization.events';

export const organizationStream = (organizationId: string) => `organization-${organizationId}`;
export const hostnameStream = (hostname: string) => `orghostname-${hostname}`;
export const memberSeenStream = (organizationId: string, userId: string) => `memberseen-${organizationId}.${userId}`;

export interface MemberState {
  role: OrganizationRole;
  sso: boolean;
  /**
   * The member agreed to single sign-on: they joined by accepting an invitation that asked for it,
   * or through an SSO login. An admin marking them as SSO (`MemberSsoEnabled`) is not consent.
   */
  ssoConsent: boolean;
}

/** A pending invitation by e-mail (the address normalized). */
export interface InvitationState {
  email: string;
  role: OrganizationRole;
  sso: boolean;
}

/**
 * Maps, not plain objects: their keys come from requests (user ids, invite ids), and a plain
 * object answers `in` and `[]` for `__proto__`, `constructor` or `toString` as if they were there.
 */
export interface OrganizationState {
  exists: boolean;
  fields: Required<OrganizationChanges>;
  members: ReadonlyMap<string, MemberState>;
  linkInvites: ReadonlyMap<string, { role: OrganizationRole }>;
  /** Pending invitations by e-mail, by invitation id. */
  invitations: ReadonlyMap<string, InvitationState>;
}

export type OrganizationCommand =
  | { kind: 'CreateOrganization'; organizationId: string; title: string; emailDomains: string[]; creatorId: string; now: string }
  | { kind: 'UpdateOrganization'; organizationId: string; changes: OrganizationChanges; byUserId: string; now: string }
  /**
   * An admin invites people by e-mail. Each address gets a pending invitation: a new one under the
   * proposed id, or its pending one refreshed under its own id. Nobody joins until they accept.
   */
  | { kind: 'InviteByEmail'; organizationId: string; invitations: ProposedInvitation[]; sso: boolean; byUserId: string; now: string }
  /** The invitee (the caller whose e-mail the invitation names) accepts or declines it. */
  | { kind: 'AcceptInvitation'; organizationId: string; invitationId: string; userId: string; email: string; now: string }
  | { kind: 'DeclineInvitation'; organizationId: string; invitationId: string; userId: string; email: string; now: string }
  | { kind: 'RevokeInvitation'; organizationId: string; invitationId: string; byUserId: string; now: string }
  | { kind: 'JoinByLink'; organizationId: string; inviteId: string; userId: string; now: string }
  /** A SAML login: the service itself adds the user (or marks an existing member as SSO). */
  | { kind: 'JoinBySso'; organizationId: string; userId: string; role: OrganizationRole; now: string }
  | { kind: 'ChangeMemberRole'; organizationId: string; userId: string; role: OrganizationRole; byUserId: string }
  | { kind: 'RemoveMember'; organizationId: string; userId: string; byUserId: string }
  | { kind: 'EnableMemberSso'; organizationId: string; userId: string; byUserId: string }
  | { kind: 'CreateLinkInvite'; organizationId: string; inviteId: string; role: OrganizationRole; byUserId: string; now: string }
  | { kind: 'DeleteLinkInvite'; organizationId: string; inviteId: string; byUserId: string };

export interface ProposedInvitation {
  invitationId: string;
  email: string;
  role: OrganizationRole;
}

/** Settings of a new organization (before its title and domains): the decider and the read model start from these. */
export const DEFAULT_ORGANIZATION_SETTINGS: Readonly<Required<Omit<OrganizationChanges, 'title' | 'emailDomains'>>> = {
  hostname: null,
  defaultRole: null,
  defaultContent: null,
  logo: null,
  sso: false,
  ai: false,
  inviteLinks: true,
  changeRequestsRequireApproval: false,
  mergeRules: NO_MERGE_RULES,
};

/**
 * The settings a change asks for, with the approval setting and the merge rules made one: merge
 * rules decide `changeRequestsRequireApproval` (400 when the request says otherwise); the setting
 * alone adds or takes out the approval rule of the current rules.
 */
export function withMergeRules(current: Required<OrganizationChanges>, changes: OrganizationChanges): OrganizationChanges | DomainError {
  if (changes.mergeRules !== undefined) {
    const required = requiresApprovedReview(changes.mergeRules);
    if (changes.changeRequestsRequireApproval !== undefined && changes.changeRequestsRequireApproval !== required) {
      return DomainError.invalid(
        `changeRequestsRequireApproval must be ${required} with these mergeRules: it is their require_at_least_one_approved_review rule`,
      );
    }
    return { ...changes, changeRequestsRequireApproval: required };
  }
  if (changes.changeRequestsRequireApproval !== undefined)
    return { ...changes, mergeRules: withApprovalRule(current.mergeRules, changes.changeRequestsRequireApproval) };
  return changes;
}

const initialFields = (): Required<OrganizationChanges> => ({ title: '', emailDomains: [], ...DEFAULT_ORGANIZATION_SETTINGS });

const withEntry = <T>(map: ReadonlyMap<string, T>, key: string, value: T): Map<string, T> => new Map(map).set(key, value);
const withoutEntry = <T>(map: ReadonlyMap<string, T>, key: string): Map<string, T> => {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
};
/** Applies `change` to the entry if there is one; an event about a missing entry changes nothing. */
const updated = <T>(map: ReadonlyMap<string, T>, key: string, change: (value: T) => T): ReadonlyMap<string, T> => {
  const current = map.get(key);
  return current === undefined ? map : withEntry(map, key, change(current));
};

/** The organization aggregate: its settings, who belongs with which role, its invitations and link invites. */
export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ exists: false, fields: initialFields(), members: new Map(), linkInvites: new Map(), invitations: new Map() }),

  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return { ...state, exists: true, fields: { ...state.fields, title: event.data.title, emailDomains: event.data.emailDomains } };
      case 'OrganizationUpdated': {
        // Events from before merge rules carry the approval setting alone.
        const changes =
          event.data.changes.mergeRules === undefined && event.data.changes.changeRequestsRequireApproval !== undefined
            ? {
                ...event.data.changes,
                mergeRules: withApprovalRule(state.fields.mergeRules, event.data.changes.changeRequestsRequireApproval),
              }
            : event.data.changes;
        return { ...state, fields: { ...state.fields, ...changes } };
      }
      case 'MemberAdded': {
        const { userId, role, sso, via, ssoConsent } = event.data;
        return { ...state, members: withEntry(state.members, userId, { role, sso, ssoConsent: ssoConsent ?? via === 'sso' }) };
      }
      case 'MemberRoleChanged':
        return { ...state, members: updated(state.members, event.data.userId, (m) => ({ ...m, role: event.data.role })) };
      case 'MemberRemoved':
        return { ...state, members: withoutEntry(state.members, event.data.userId) };
      case 'MemberSsoEnabled':
        return { ...state, members: updated(state.members, event.data.userId, (m) => ({ ...m, sso: true })) };
      case 'LinkInviteCreated':
        return { ...state, linkInvites: withEntry(state.linkInvites, event.data.inviteId, { role: event.data.role }) };
      case 'LinkInviteDeleted':
        return { ...state, linkInvites: withoutEntry(state.linkInvites, event.data.inviteId) };
      case 'MemberInvited': {
        const { invitationId, email, role, sso } = event.data;
        return { ...state, invitations: withEntry(state.invitations, invitationId, { email, role, sso }) };
      }
      case 'InvitationAccepted':
      case 'InvitationDeclined':
      case 'InvitationRevoked':
        return { ...state, invitations: withoutEntry(state.invitations, event.data.invitationId) };
      default:
        return state;
    }
  },

  decide(command, state): OrganizationEvent[] | DomainError {
    const { organizationId } = command;
    if (command.kind === 'CreateOrganization') {
      if (state.exists) return DomainError.conflict(`organization ${organizationId} already exists`);
      return [
        {
          type: 'OrganizationCreated',
          data: {
            organizationId,
            title: command.title,
            emailDomains: unique(command.emailDomains),
            createdBy: command.creatorId,
            createdAt: command.now,
          },
        },
        memberAdded(organizationId, command.creatorId, 'admin', false, command.now, 'creation'),
      ];
    }
    if (command.kind === 'JoinByLink') {
      if (!state.exists) return DomainError.notFound(`no organization ${organizationId}`);
      const invite = state.linkInvites.get(command.inviteId);
      if (!invite) return DomainError.notFound(`no invite ${command.inviteId}`);
      if (!state.fields.inviteLinks) return DomainError.forbidden('this organization does not accept joining by link');
      if (state.members.has(command.userId)) return [];
      return [memberAdded(organizationId, command.userId, invite.role, false, command.now, 'link')];
    }
    if (command.kind === 'JoinBySso') {
      if (!state.exists) return DomainError.notFound(`no organization ${organizationId}`);
      const member = state.members.get(command.userId);
      if (!member) return [memberAdded(organizationId, command.userId, command.role, true, command.now, 'sso')];
      return member.sso ? [] : [{ type: 'MemberSsoEnabled', data: { organizationId, userId: command.userId } }];
    }
    if (command.kind === 'AcceptInvitation' || command.kind === 'DeclineInvitation') {
      // Only the person invited may answer; to anyone else the invitation does not exist.
      const invitation = state.exists ? state.invitations.get(command.invitationId) : undefined;
      if (!invitation || invitation.email !== normalizeEmail(command.email))
        return DomainError.notFound(`no invitation ${command.invitationId}`);
      const { invitationId, userId, now } = command;
      if (command.kind === 'DeclineInvitation')
        return [{ type: 'InvitationDeclined', data: { organizationId, invitationId, userId, declinedAt: now } }];
      const accepted: OrganizationEvent = { type: 'InvitationAccepted', data: { organizationId, invitationId, userId, acceptedAt: now } };
      // Someone already in the organization keeps their membership as it is.
      if (state.members.has(userId)) return [accepted];
      const joined = memberAdded(organizationId, userId, invitation.role, invitation.sso, now, 'invite', {
        invitationId,
        ssoConsent: invitation.sso,
      });
      return [accepted, joined];
    }
    const denied = accessRefusal(command, state);
    if (denied) return denied;
    // Anyone may leave, except the last admin.
    if (command.kind === 'RemoveMember' && command.userId === command.byUserId) return removeMember(state, organizationId, command.userId);
    switch (command.kind) {
      case 'UpdateOrganization': {
        const withRules = withMergeRules(state.fields, command.changes);
        if (withRules instanceof DomainError) return withRules;
        const requested = { ...withRules, ...(withRules.emailDomains ? { emailDomains: unique(withRules.emailDomains) } : {}) };
        const changes = changedFields(state.fields, requested);
        return Object.keys(changes).length === 0
          ? []
          : [{ type: 'OrganizationUpdated', data: { organizationId, changes, updatedAt: command.now } }];
      }
      case 'InviteByEmail': {
        const pendingByEmail = new Map([...state.invitations].map(([id, invitation]) => [invitation.email, id]));
        return uniqueBy(command.invitations, (i) => normalizeEmail(i.email)).map((proposed): OrganizationEvent => {
          const email = normalizeEmail(proposed.email);
          const invitationId = pendingByEmail.get(email) ?? proposed.invitationId;
          return {
            type: 'MemberInvited',
            data: {
              organizationId,
              invitationId,
              email,
              role: proposed.role,
              sso: command.sso,
              invitedBy: command.byUserId,
              invitedAt: command.now,
            },
          };
        });
      }
      case 'RevokeInvitation':
        if (!state.invitations.has(command.invitationId)) return DomainError.notFound(`no invitation ${command.invitationId}`);
        return [
          {
            type: 'InvitationRevoked',
            data: { organizationId, invitationId: command.invitationId, revokedBy: command.byUserId, revokedAt: command.now },
          },
        ];
      case 'ChangeMemberRole': {
        const member = state.members.get(command.userId);
        if (!member) return DomainError.notFound(`no member ${command.userId} in organization ${organizationId}`);
        if (member.role === command.role) return [];
        if (member.role === 'admin' && adminCount(state) === 1)
          return DomainError.conflict('the last admin of an organization cannot be demoted');
        return [{ type: 'MemberRoleChanged', data: { organizationId, userId: command.userId, role: command.role } }];
      }
      case 'RemoveMember':
        if (!state.members.has(command.userId))
          return DomainError.notFound(`no member ${command.userId} in organization ${organizationId}`);
        return removeMember(state, organizationId, command.userId);
      case 'EnableMemberSso': {
        const member = state.members.get(command.userId);
        if (!member) return DomainError.notFound(`no member ${command.userId} in organization ${organizationId}`);
        return member.sso ? [] : [{ type: 'MemberSsoEnabled', data: { organizationId, userId: command.userId } }];
      }
      case 'CreateLinkInvite':
        if (state.linkInvites.has(command.inviteId)) return DomainError.conflict(`invite ${command.inviteId} already exists`);
        return [
          {
            type: 'LinkInviteCreated',
            data: { organizationId, inviteId: command.inviteId, role: command.role, createdBy: command.byUserId, createdAt: command.now },
          },
        ];
      case 'DeleteLinkInvite':
        if (!state.linkInvites.has(command.inviteId)) return DomainError.notFound(`no invite ${command.inviteId}`);
        return [{ type: 'LinkInviteDeleted', data: { organizationId, inviteId: command.inviteId } }];
    }
  },
};

function memberAdded(
  organizationId: string,
  userId: string,
  role: OrganizationRole,
  sso: boolean,
  joinedAt: string,
  via: MemberSource,
  invitation?: { invitationId: string; ssoConsent: boolean },
): OrganizationEvent {
  return { type: 'MemberAdded', data: { organizationId, userId, role, sso, joinedAt, via, ...invitation } };
}

function removeMember(state: OrganizationState, organizationId: string, userId: string): OrganizationEvent[] | DomainError {
  const member = state.members.get(userId);
  if (!member) return DomainError.notFound(`no member ${userId} in organization ${organizationId}`);
  if (member.role === 'admin' && adminCount(state) === 1)
    return DomainError.conflict('the last admin of an organization cannot be removed');
  return [{ type: 'MemberRemoved', data: { organizationId, userId } }];
}

const adminCount = (state: OrganizationState) => [...state.members.values()].filter((m) => m.role === 'admin').length;

/**
 * Who may not ask this of the organization, refused as `decide` refuses them: 404 for people
 * outside it, 403 for members below admin. Anyone may leave; every other change a member asks for
 * is for admins. Commands not asked for by a member (creation, joining, answering an invitation)
 * are refused by `decide` alone. Checked before `If-Match` is compared, so that a 412 never tells
 * someone who may not make the change that the organization exists or what its revision is.
 */
export function accessRefusal(command: OrganizationCommand, state: OrganizationState): DomainError | null {
  if (!('byUserId' in command)) return null;
  if (command.kind === 'RemoveMember' && command.userId === command.byUserId)
    return requireMember(state, command.organizationId, command.byUserId);
  return requireAdmin(state, command.organizationId, command.byUserId);
}

/** 404 for non-members (they may not learn the organization exists). */
export function requireMember(state: OrganizationState, organizationId: string, userId: string): DomainError | null {
  return state.exists && state.members.has(userId) ? null : DomainError.notFound(`no organization ${organizationId}`);
}

/** 404 for non-members, 403 for members below admin. */
export function requireAdmin(state: OrganizationState, organizationId: string, userId: string): DomainError | null {
  const member = state.exists ? state.members.get(userId) : undefined;
  if (!member) return DomainError.notFound(`no organization ${organizationId}`);
  if (member.role !== 'admin') return DomainError.forbidden(`only admins of organization ${organizationId} may do this`);
  return null;
}

/** Only known settings, compared with the current ones: a request's other keys never reach an event. */
function changedFields(current: Required<OrganizationChanges>, requested: OrganizationChanges): OrganizationChanges {
  const changes: Partial<Record<keyof OrganizationChanges, unknown>> = {};
  for (const key of Object.keys(current) as Array<keyof OrganizationChanges>) {
    const value = Object.hasOwn(requested, key) ? requested[key] : undefined;
    if (value === undefined) continue;
    if (JSON.stringify(current[key]) !== JSON.stringify(value)) changes[key] = value;
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
