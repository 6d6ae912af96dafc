import { DomainError } from '../../platform/src/errors';
import type { OrganizationRole } from '../../platform/src/permissions';
import type { Decider } from '../../event-store/src/decider';
import type { HostnameEvent, OrganizationChanges, OrganizationEvent } from './organization.events';

export const organizationStream = (organizationId: string) => `organization-${organizationId}`;
export const hostnameStream = (hostname: string) => `orghostname-${hostname}`;

export interface OrganizationState {
  exists: boolean;
  fields: Required<OrganizationChanges>;
  members: Record<string, OrganizationRole>;
}

export type OrganizationCommand =
  | { kind: 'CreateOrganization'; organizationId: string; title: string; emailDomains: string[]; creatorId: string; now: string }
  | { kind: 'UpdateOrganization'; organizationId: string; changes: OrganizationChanges; byUserId: string; now: string };

const initialFields = (): Required<OrganizationChanges> => ({
  title: '',
  emailDomains: [],
  hostname: null,
  defaultRole: null,
  defaultContent: null,
  logo: null,
  sso: false,
  ai: false,
  inviteLinks: true,
});

/** The organization aggregate: its settings and who belongs with which role. */
export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ exists: false, fields: initialFields(), members: {} }),

  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return { ...state, exists: true, fields: { ...state.fields, title: event.data.title, emailDomains: event.data.emailDomains } };
      case 'OrganizationUpdated':
        return { ...state, fields: { ...state.fields, ...event.data.changes } };
      case 'MemberAdded':
        return { ...state, members: { ...state.members, [event.data.userId]: event.data.role } };
    }
  },

  decide(command, state) {
    if (command.kind === 'CreateOrganization') {
      if (state.exists) return DomainError.conflict(`organization ${command.organizationId} already exists`);
      return [
        {
          type: 'OrganizationCreated',
          data: { organizationId: command.organizationId, title: command.title, emailDomains: unique(command.emailDomains), createdBy: command.creatorId, createdAt: command.now },
        },
        { type: 'MemberAdded', data: { organizationId: command.organizationId, userId: command.creatorId, role: 'admin', sso: false, joinedAt: command.now } },
      ];
    }
    const denied = requireAdmin(state, command.organizationId, command.byUserId);
    if (denied) return denied;
    const changes = changedFields(state.fields, { ...command.changes, ...(command.changes.emailDomains ? { emailDomains: unique(command.changes.emailDomains) } : {}) });
    if (Object.keys(changes).length === 0) return [];
    return [{ type: 'OrganizationUpdated', data: { organizationId: command.organizationId, changes, updatedAt: command.now } }];
  },
};

/** 404 for non-members (they may not learn the organization exists), 403 for members below admin. */
export function requireAdmin(state: OrganizationState, organizationId: string, userId: string): DomainError | null {
  if (!state.exists || !(userId in state.members)) return DomainError.notFound(`no organization ${organizationId}`);
  if (state.members[userId] !== 'admin') return DomainError.forbidden(`only admins of organization ${organizationId} may change it`);
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
