import { isDeepStrictEqual } from 'node:util';
import { DomainError } from '#platform/errors';
import { INHERITED_MERGE_RULES } from '#platform/merge-rules';
import type { OrganizationRole } from '#platform/permissions';
import type { Decider } from '#event-store/decider';
import { atLeast, type ContentRole } from './space.permissions';
import type { SpaceChanges, SpaceEvent, SpaceSettings, SpaceVisibility } from './space.events';

export const spaceStream = (spaceId: string) => `space-${spaceId}`;

/** Deleted spaces are restorable for 7 days, then permanently removed. */
export const SPACE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface SpaceState extends Required<SpaceSettings> {
  exists: boolean;
  purged: boolean;
  organizationId: string;
  deletedAt: string | null;
  shareKeys: string[];
  /** Roles granted to teams, by team id (a Map: request-supplied ids never meet Object.prototype). */
  teamRoles: ReadonlyMap<string, Exclude<OrganizationRole, null>>;
}

/** Who asks, with their effective role on the space as the handler computed it from the read models. */
export interface SpaceActor {
  userId: string;
  role: ContentRole;
}

export type SpaceCommand =
  /** `by.role` is the role on the destination (the parent collection, else the organization). */
  | (SpaceSettings & {
      kind: 'CreateSpace';
      spaceId: string;
      organizationId: string;
      duplicatedFrom?: string;
      by: SpaceActor;
      now: string;
    })
  | { kind: 'UpdateSpace'; spaceId: string; changes: SpaceChanges; by: SpaceActor; now: string }
  | { kind: 'DeleteSpace'; spaceId: string; by: SpaceActor; now: string }
  | { kind: 'RestoreSpace'; spaceId: string; by: SpaceActor; now: string }
  /** The retention job: removes the space for good once it has been deleted for more than 7 days. */
  | { kind: 'PurgeSpace'; spaceId: string; now: string }
  /** `targetRole`: the caller's role on the destination collection (ignored for the top level). */
  | { kind: 'MoveSpace'; spaceId: string; parent: string | null; position: string; by: SpaceActor; targetRole: ContentRole; now: string }
  /** Its collection was deleted: the space moves to `parent` if it is still in `from`. */
  | { kind: 'ReparentSpace'; spaceId: string; from: string; parent: string | null; position: string; now: string }
  /**
   * Part of a sibling's move (already decided there): the space shares its key with the siblings
   * the move lands between and takes a new one, if it is still in `parent` at `from`.
   */
  | { kind: 'RepositionSpace'; spaceId: string; parent: string | null; from: string; position: string; now: string }
  /**
   * `targetMember`: whether the caller belongs to the target organization (false too when there is
   * no such organization); `targetOrganizationRole`: their role there (admin needed). Leaves its collection.
   */
  | {
      kind: 'TransferSpace';
      spaceId: string;
      organizationId: string;
      position: string;
      by: SpaceActor;
      targetMember: boolean;
      targetOrganizationRole: ContentRole;
      now: string;
    }
  /** Part of a collection's transfer (already decided there): the space follows, staying in `parent`. */
  | { kind: 'TransferSpaceWithCollection'; spaceId: string; organizationId: string; parent: string; now: string }
  | { kind: 'CreateShareLink'; spaceId: string; shareKey: string; by: SpaceActor; now: string }
  | { kind: 'RevokeShareLink'; spaceId: string; shareKey: string; by: SpaceActor; now: string }
  /**
   * `teamOrganizationId`: the organization of the team as the teams read model has it, null when
   * there is no live team `teamId`; the team must belong to the space's organization.
   */
  | {
      kind: 'SetSpaceTeamAccess';
      spaceId: string;
      teamId: string;
      role: Exclude<OrganizationRole, null>;
      teamOrganizationId: string | null;
      by: SpaceActor;
    }
  | { kind: 'RemoveSpaceTeamAccess'; spaceId: string; teamId: string; by: SpaceActor };

/** Whether a space deleted at `deletedAt` is still restorable at `now` (deleted within the last 7 days). */
export function withinRetention(deletedAt: string, now: string): boolean {
  return Date.parse(now) - Date.parse(deletedAt) <= SPACE_RETENTION_MS;
}

/** Visibility once the space is (or is not) in a collection: `in-collection` only exists inside one. */
export function visibilityFor(visibility: SpaceVisibility, parent: string | null): SpaceVisibility {
  return visibility === 'in-collection' && parent === null ? 'private' : visibility;
}

const gone = (spaceId: string) => DomainError.notFound(`no space ${spaceId}`);

function requireLive(state: SpaceState, spaceId: string): DomainError | null {
  if (!state.exists || state.purged) return gone(spaceId);
  if (state.deletedAt !== null) return DomainError.conflict(`space ${spaceId} is deleted; restore it first`);
  return null;
}

function requireRole(by: SpaceActor, required: Exclude<ContentRole, null>, spaceId: string, what: string): DomainError | null {
  return atLeast(by.role, required)
    ? null
    : DomainError.forbidden(`only members with role ${required} or higher on space ${spaceId} may ${what}`);
}

/** The commands that decide who else gets in (share links, team access): for admins of the space. */
export type AccessManagementCommand = Extract<
  SpaceCommand,
  { kind: 'CreateShareLink' | 'RevokeShareLink' | 'SetSpaceTeamAccess' | 'RemoveSpaceTeamAccess' }
>;

/**
 * Who may not manage the space's share links or team access, refused as `decide` refuses them: 404
 * when there is no such space (any more), 403 below admin on it. Checked before `If-Match` is
 * compared too, so that a 412 never answers someone who may not make the change.
 */
export function accessManagementRefusal(command: AccessManagementCommand, state: SpaceState): DomainError | null {
  if (!state.exists || state.purged) return gone(command.spaceId);
  const what =
    command.kind === 'CreateShareLink' || command.kind === 'RevokeShareLink' ? 'manage its share links' : 'manage its team access';
  return requireRole(command.by, 'admin', command.spaceId, what);
}

const ADMIN_CHANGES: ReadonlyArray<keyof SpaceChanges> = ['editMode', 'defaultLevel', 'visibility', 'language', 'mergeRules'];

/**
 * The changes a request asks for, as the space takes them: a space shows an emoji or an icon, not
 * both, so setting one clears the other (400 when a request sets both).
 */
export function requestedChanges(changes: SpaceChanges): SpaceChanges | DomainError {
  const emoji = changes.emoji ?? null;
  const icon = changes.icon ?? null;
  if (emoji !== null && icon !== null) return DomainError.invalid('emoji and icon cannot both be set: a space shows one or the other');
  if (emoji !== null) return { ...changes, icon: null };
  if (icon !== null) return { ...changes, emoji: null };
  return changes;
}

/** The space aggregate. The 7-day rule lives here, with `now` on the command. */
export const spaceDecider: Decider<SpaceCommand, SpaceEvent, SpaceState> = {
  initialState: () => ({
    exists: false,
    purged: false,
    organizationId: '',
    title: '',
    emoji: null,
    icon: null,
    language: null,
    mergeRules: INHERITED_MERGE_RULES,
    visibility: 'private',
    editMode: 'live',
    defaultLevel: null,
    parent: null,
    position: '',
    deletedAt: null,
    shareKeys: [],
    teamRoles: new Map(),
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'SpaceCreated': {
        const { organizationId, title, emoji, visibility, editMode, defaultLevel, parent, position, icon, language, mergeRules } =
          event.data;
        return {
          ...state,
          exists: true,
          organizationId,
          title,
          emoji,
          icon: icon ?? null,
          language: language ?? null,
          mergeRules: mergeRules ?? INHERITED_MERGE_RULES,
          visibility,
          editMode,
          defaultLevel,
          parent,
          position,
        };
      }
      case 'SpaceUpdated':
        return { ...state, ...event.data.changes };
      case 'SpaceDeleted':
        return { ...state, deletedAt: event.data.deletedAt };
      case 'SpaceRestored':
        return { ...state, deletedAt: null };
      case 'SpacePurged':
        return { ...state, purged: true, shareKeys: [] };
      case 'SpaceMoved':
        return { ...state, parent: event.data.parent, position: event.data.position, visibility: event.data.visibility };
      case 'SpaceTransferred':
        return {
          ...state,
          organizationId: event.data.organizationId,
          parent: event.data.parent,
          position: event.data.position,
          visibility: event.data.visibility,
        };
      case 'ShareLinkCreated':
        return { ...state, shareKeys: [...state.shareKeys, event.data.shareKey] };
      case 'ShareLinkRevoked':
        return { ...state, shareKeys: state.shareKeys.filter((key) => key !== event.data.shareKey) };
      case 'SpaceTeamAccessSet':
        return { ...state, teamRoles: new Map(state.teamRoles).set(event.data.teamId, event.data.role) };
      case 'SpaceTeamAccessRemoved': {
        const teamRoles = new Map(state.teamRoles);
        teamRoles.delete(event.data.teamId);
        return { ...state, teamRoles };
      }
    }
  },

  decide(command, state): SpaceEvent[] | DomainError {
    const { spaceId } = command;
    const organizationId = state.organizationId;
    switch (command.kind) {
      case 'CreateSpace': {
        if (state.exists) return DomainError.conflict(`space ${spaceId} already exists`);
        if (!atLeast(command.by.role, 'create')) {
          const where = command.parent ? `collection ${command.parent}` : `organization ${command.organizationId}`;
          return DomainError.forbidden(`only members with role create or higher in ${where} may create spaces there`);
        }
        if (command.visibility === 'in-collection' && command.parent === null)
          return DomainError.invalid('visibility in-collection is only for spaces inside a collection');
        const { kind: _kind, by, now, ...data } = command;
        return [{ type: 'SpaceCreated', data: { ...data, createdBy: by.userId, createdAt: now } }];
      }
      case 'UpdateSpace': {
        const live = requireLive(state, spaceId);
        if (live) return live;
        const requested = requestedChanges(command.changes);
        if (requested instanceof DomainError) return requested;
        const keys = Object.keys(requested) as Array<keyof SpaceChanges>;
        const denied = keys.some((key) => ADMIN_CHANGES.includes(key))
          ? requireRole(command.by, 'admin', spaceId, 'change its editMode, defaultLevel, visibility, language or mergeRules')
          : requireRole(command.by, 'edit', spaceId, 'change its title, emoji or icon');
        if (denied) return denied;
        if (requested.visibility === 'in-collection' && state.parent === null)
          return DomainError.invalid('visibility in-collection is only for spaces inside a collection');
        const changes: SpaceChanges = {};
        // Deep comparison: merge rules are objects, and the same rules again change nothing.
        for (const key of keys)
          if (requested[key] !== undefined && !isDeepStrictEqual(requested[key], state[key]))
            Object.assign(changes, { [key]: requested[key] });
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'SpaceUpdated', data: { spaceId, organizationId, changes, updatedAt: command.now } }];
      }
      case 'DeleteSpace': {
        if (!state.exists || state.purged) return gone(spaceId);
        const denied = requireRole(command.by, 'admin', spaceId, 'delete it');
        if (denied) return denied;
        if (state.deletedAt !== null) return [];
        return [{ type: 'SpaceDeleted', data: { spaceId, organizationId, title: state.title, deletedAt: command.now } }];
      }
      case 'RestoreSpace': {
        if (!state.exists || state.purged) return gone(spaceId);
        if (state.deletedAt !== null && !withinRetention(state.deletedAt, command.now))
          return DomainError.notFound(`no space ${spaceId}: it was deleted more than 7 days ago`);
        const denied = requireRole(command.by, 'admin', spaceId, 'restore it');
        if (denied) return denied;
        if (state.deletedAt === null) return [];
        return [{ type: 'SpaceRestored', data: { spaceId, organizationId, title: state.title, restoredAt: command.now } }];
      }
      case 'PurgeSpace':
        if (!state.exists || state.purged || state.deletedAt === null || withinRetention(state.deletedAt, command.now)) return [];
        return [{ type: 'SpacePurged', data: { spaceId, organizationId, title: state.title, purgedAt: command.now } }];
      case 'MoveSpace': {
        const live = requireLive(state, spaceId);
        if (live) return live;
        const denied = requireRole(command.by, 'admin', spaceId, 'move it');
        if (denied) return denied;
        if (command.parent !== null && !atLeast(command.targetRole, 'create')) {
          return DomainError.forbidden(`only members with role create or higher in collection ${command.parent} may move spaces into it`);
        }
        return [moved(spaceId, organizationId, state.visibility, command.parent, command.position, command.now)];
      }
      case 'ReparentSpace': {
        if (!state.exists || state.purged || state.parent !== command.from) return [];
        const event = moved(spaceId, organizationId, state.visibility, command.parent, command.position, command.now);
        return [{ ...event, data: { ...event.data, reason: 'collection-deleted' } }];
      }
      case 'RepositionSpace': {
        if (!state.exists || state.purged || state.parent !== command.parent || state.position !== command.from) return [];
        const event = moved(spaceId, organizationId, state.visibility, state.parent, command.position, command.now);
        return [{ ...event, data: { ...event.data, reason: 'reordered' } }];
      }
      case 'TransferSpace': {
        const live = requireLive(state, spaceId);
        if (live) return live;
        const denied = requireRole(command.by, 'admin', spaceId, 'transfer it');
        if (denied) return denied;
        // People outside the target learn nothing about it: an existing organization answers as a missing one.
        if (!command.targetMember) return DomainError.notFound(`no organization ${command.organizationId}`);
        if (command.targetOrganizationRole !== 'admin')
          return DomainError.forbidden(`only admins of organization ${command.organizationId} may transfer spaces into it`);
        if (command.organizationId === organizationId)
          return DomainError.invalid(`space ${spaceId} already belongs to organization ${organizationId}`);
        return [
          transferred(
            spaceId,
            organizationId,
            command.organizationId,
            null,
            command.position,
            visibilityFor(state.visibility, null),
            command.now,
          ),
        ];
      }
      case 'TransferSpaceWithCollection':
        if (!state.exists || state.purged || state.organizationId === command.organizationId) return [];
        return [
          transferred(spaceId, organizationId, command.organizationId, command.parent, state.position, state.visibility, command.now),
        ];
      case 'CreateShareLink': {
        const live = requireLive(state, spaceId);
        if (live) return live;
        const denied = accessManagementRefusal(command, state);
        if (denied) return denied;
        if (state.shareKeys.includes(command.shareKey)) return DomainError.conflict(`share link ${command.shareKey} already exists`);
        return [
          {
            type: 'ShareLinkCreated',
            data: { spaceId, organizationId, shareKey: command.shareKey, createdBy: command.by.userId, createdAt: command.now },
          },
        ];
      }
      case 'RevokeShareLink': {
        const denied = accessManagementRefusal(command, state);
        if (denied) return denied;
        if (!state.shareKeys.includes(command.shareKey))
          return DomainError.notFound(`no share link ${command.shareKey} on space ${spaceId}`);
        return [{ type: 'ShareLinkRevoked', data: { spaceId, organizationId, shareKey: command.shareKey, revokedAt: command.now } }];
      }
      case 'SetSpaceTeamAccess': {
        const live = requireLive(state, spaceId);
        if (live) return live;
        const denied = accessManagementRefusal(command, state);
        if (denied) return denied;
        if (command.teamOrganizationId !== organizationId)
          return DomainError.invalid(`teamId must be a team of organization ${organizationId}; ${command.teamId} is not`);
        if (state.teamRoles.get(command.teamId) === command.role) return [];
        return [{ type: 'SpaceTeamAccessSet', data: { spaceId, organizationId, teamId: command.teamId, role: command.role } }];
      }
      case 'RemoveSpaceTeamAccess': {
        const live = requireLive(state, spaceId);
        if (live) return live;
        const denied = accessManagementRefusal(command, state);
        if (denied) return denied;
        if (!state.teamRoles.has(command.teamId)) return DomainError.notFound(`team ${command.teamId} has no access to space ${spaceId}`);
        return [{ type: 'SpaceTeamAccessRemoved', data: { spaceId, organizationId, teamId: command.teamId } }];
      }
    }
  },
};

function moved(
  spaceId: string,
  organizationId: string,
  visibility: SpaceVisibility,
  parent: string | null,
  position: string,
  now: string,
): Extract<SpaceEvent, { type: 'SpaceMoved' }> {
  return {
    type: 'SpaceMoved',
    data: { spaceId, organizationId, parent, position, visibility: visibilityFor(visibility, parent), movedAt: now },
  };
}

function transferred(
  spaceId: string,
  fromOrganizationId: string,
  organizationId: string,
  parent: string | null,
  position: string,
  visibility: SpaceVisibility,
  now: string,
): SpaceEvent {
  return {
    type: 'SpaceTransferred',
    data: { spaceId, fromOrganizationId, organizationId, parent, position, visibility, transferredAt: now },
  };
}
