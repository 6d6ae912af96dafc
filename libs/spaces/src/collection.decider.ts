import { DomainError } from '#platform/errors';
import type { Decider } from '#event-store/decider';
import { atLeast, type ContentRole } from './space.permissions';
import type { CollectionChanges, CollectionEvent, DefaultLevel } from './space.events';

export const collectionStream = (collectionId: string) => `collection-${collectionId}`;

export interface CollectionState {
  exists: boolean;
  deleted: boolean;
  organizationId: string;
  title: string;
  description: string | null;
  defaultLevel: DefaultLevel;
  parent: string | null;
  position: string;
}

/** Who asks, with their effective role on the collection (computed by the handler from the read models). */
export interface CollectionActor {
  userId: string;
  role: ContentRole;
}

export type CollectionCommand =
  /** `by.role`: the role on the parent collection, else in the organization. */
  | {
      kind: 'CreateCollection';
      collectionId: string;
      organizationId: string;
      title: string;
      parent: string | null;
      position: string;
      by: CollectionActor;
      now: string;
    }
  | { kind: 'UpdateCollection'; collectionId: string; changes: CollectionChanges; by: CollectionActor; now: string }
  /**
   * `ancestorsOfParent`: the destination collection's ancestors, nearest first (the handler reads
   * them); moving a collection under itself or one of its descendants is refused (400).
   */
  | {
      kind: 'MoveCollection';
      collectionId: string;
      parent: string | null;
      ancestorsOfParent: readonly string[];
      position: string;
      by: CollectionActor;
      targetRole: ContentRole;
      now: string;
    }
  /** Its parent collection was deleted: it moves to `parent` if it is still in `from`. */
  | { kind: 'ReparentCollection'; collectionId: string; from: string; parent: string | null; position: string; now: string }
  /** Part of a sibling's move (already decided there): a new key, if it is still in `parent` at `from`. */
  | { kind: 'RepositionCollection'; collectionId: string; parent: string | null; from: string; position: string; now: string }
  /**
   * To another organization, at its top level: the caller must belong to it (`targetMember`, false
   * too when there is no such organization) as an admin (`targetOrganizationRole`).
   */
  | {
      kind: 'TransferCollection';
      collectionId: string;
      organizationId: string;
      position: string;
      by: CollectionActor;
      targetMember: boolean;
      targetOrganizationRole: ContentRole;
      now: string;
    }
  /** A descendant of a transferred collection follows it, keeping its parent. */
  | { kind: 'TransferCollectionWithParent'; collectionId: string; organizationId: string; now: string }
  | { kind: 'DeleteCollection'; collectionId: string; by: CollectionActor; now: string };

function requireLive(state: CollectionState, collectionId: string): DomainError | null {
  return state.exists && !state.deleted ? null : DomainError.notFound(`no collection ${collectionId}`);
}

function requireAdmin(by: CollectionActor, collectionId: string, what: string): DomainError | null {
  return by.role === 'admin' ? null : DomainError.forbidden(`only members with role admin on collection ${collectionId} may ${what}`);
}

/** The collection aggregate: title, description, default level and its place in the tree. */
export const collectionDecider: Decider<CollectionCommand, CollectionEvent, CollectionState> = {
  initialState: () => ({
    exists: false,
    deleted: false,
    organizationId: '',
    title: '',
    description: null,
    defaultLevel: null,
    parent: null,
    position: '',
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'CollectionCreated': {
        const { organizationId, title, description, defaultLevel, parent, position } = event.data;
        return { ...state, exists: true, organizationId, title, description, defaultLevel, parent, position };
      }
      case 'CollectionUpdated':
        return { ...state, ...event.data.changes };
      case 'CollectionMoved':
        return { ...state, parent: event.data.parent, position: event.data.position };
      case 'CollectionTransferred':
        return { ...state, organizationId: event.data.organizationId, parent: event.data.parent, position: event.data.position };
      case 'CollectionDeleted':
        return { ...state, deleted: true };
    }
  },

  decide(command, state): CollectionEvent[] | DomainError {
    const { collectionId } = command;
    const organizationId = state.organizationId;
    switch (command.kind) {
      case 'CreateCollection': {
        if (state.exists) return DomainError.conflict(`collection ${collectionId} already exists`);
        if (!atLeast(command.by.role, 'create')) {
          const where = command.parent ? `collection ${command.parent}` : `organization ${command.organizationId}`;
          return DomainError.forbidden(`only members with role create or higher in ${where} may create collections there`);
        }
        const { title, parent, position, now } = command;
        return [
          {
            type: 'CollectionCreated',
            data: {
              collectionId,
              organizationId: command.organizationId,
              title,
              description: null,
              defaultLevel: null,
              parent,
              position,
              createdBy: command.by.userId,
              createdAt: now,
            },
          },
        ];
      }
      case 'UpdateCollection': {
        const denied = requireLive(state, collectionId) ?? requireAdmin(command.by, collectionId, 'change it');
        if (denied) return denied;
        const changes: CollectionChanges = {};
        for (const key of Object.keys(command.changes) as Array<keyof CollectionChanges>) {
          if (command.changes[key] !== undefined && command.changes[key] !== state[key])
            Object.assign(changes, { [key]: command.changes[key] });
        }
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'CollectionUpdated', data: { collectionId, organizationId, changes, updatedAt: command.now } }];
      }
      case 'MoveCollection': {
        const denied = requireLive(state, collectionId) ?? requireAdmin(command.by, collectionId, 'move it');
        if (denied) return denied;
        if (command.parent === collectionId || command.ancestorsOfParent.includes(collectionId)) {
          return DomainError.invalid(`collection ${collectionId} cannot move into itself or one of its descendants`);
        }
        if (command.parent !== null && !atLeast(command.targetRole, 'create')) {
          return DomainError.forbidden(
            `only members with role create or higher in collection ${command.parent} may move collections into it`,
          );
        }
        return [
          {
            type: 'CollectionMoved',
            data: { collectionId, organizationId, parent: command.parent, position: command.position, movedAt: command.now },
          },
        ];
      }
      case 'ReparentCollection':
        if (!state.exists || state.deleted || state.parent !== command.from) return [];
        return [
          {
            type: 'CollectionMoved',
            data: {
              collectionId,
              organizationId,
              parent: command.parent,
              position: command.position,
              movedAt: command.now,
              reason: 'collection-deleted',
            },
          },
        ];
      case 'RepositionCollection':
        if (!state.exists || state.deleted || state.parent !== command.parent || state.position !== command.from) return [];
        return [
          {
            type: 'CollectionMoved',
            data: {
              collectionId,
              organizationId,
              parent: state.parent,
              position: command.position,
              movedAt: command.now,
              reason: 'reordered',
            },
          },
        ];
      case 'TransferCollection': {
        const denied = requireLive(state, collectionId) ?? requireAdmin(command.by, collectionId, 'transfer it');
        if (denied) return denied;
        // People outside the target learn nothing about it: an existing organization answers as a missing one.
        if (!command.targetMember) return DomainError.notFound(`no organization ${command.organizationId}`);
        if (command.targetOrganizationRole !== 'admin')
          return DomainError.forbidden(`only admins of organization ${command.organizationId} may transfer collections into it`);
        if (command.organizationId === organizationId)
          return DomainError.invalid(`collection ${collectionId} already belongs to organization ${organizationId}`);
        return [
          {
            type: 'CollectionTransferred',
            data: {
              collectionId,
              fromOrganizationId: organizationId,
              organizationId: command.organizationId,
              parent: null,
              position: command.position,
              transferredAt: command.now,
            },
          },
        ];
      }
      case 'TransferCollectionWithParent':
        if (!state.exists || state.deleted || state.organizationId === command.organizationId) return [];
        return [
          {
            type: 'CollectionTransferred',
            data: {
              collectionId,
              fromOrganizationId: organizationId,
              organizationId: command.organizationId,
              parent: state.parent,
              position: state.position,
              transferredAt: command.now,
            },
          },
        ];
      case 'DeleteCollection': {
        const denied = requireLive(state, collectionId) ?? requireAdmin(command.by, collectionId, 'delete it');
        if (denied) return denied;
        return [{ type: 'CollectionDeleted', data: { collectionId, organizationId, title: state.title, deletedAt: command.now } }];
      }
    }
  },
};
