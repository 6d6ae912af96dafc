import type { OrganizationRole } from '../../platform/src/permissions';

/** A role a space or collection hands to organization members by default; null inherits. */
export type DefaultLevel = Exclude<OrganizationRole, null> | null;

export const SPACE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
export type SpaceVisibility = (typeof SPACE_VISIBILITIES)[number];

export const EDIT_MODES = ['live', 'locked'] as const;
export type EditMode = (typeof EDIT_MODES)[number];

/** A space's own settings and place: what creation sets, and what the state and read model hold. */
export interface SpaceSettings {
  title: string;
  emoji: string | null;
  visibility: SpaceVisibility;
  editMode: EditMode;
  defaultLevel: DefaultLevel;
  /** Parent collection; null at the top level. */
  parent: string | null;
  /** Fractional sort key among its siblings. */
  position: string;
}

export interface SpaceChanges {
  title?: string;
  emoji?: string | null;
  editMode?: EditMode;
  defaultLevel?: DefaultLevel;
  visibility?: SpaceVisibility;
}

export interface CollectionChanges {
  title?: string;
  description?: string | null;
  defaultLevel?: DefaultLevel;
}

/**
 * Spaces. One stream per space, `space-<spaceId>`: the space, its place among its siblings
 * (`parent` collection and `position`, a fractional sort key), its deletion state, its share links
 * and the roles it grants to teams.
 */
export type SpaceEvent =
  | {
      type: 'SpaceCreated';
      data: SpaceSettings & {
        spaceId: string;
        organizationId: string;
        createdBy: string;
        createdAt: string;
        /** Set when the space is a copy of another (`POST /spaces/{spaceId}/duplicate`). */
        duplicatedFrom?: string;
      };
    }
  | { type: 'SpaceUpdated'; data: { spaceId: string; organizationId: string; changes: SpaceChanges; updatedAt: string } }
  | { type: 'SpaceDeleted'; data: { spaceId: string; organizationId: string; title: string; deletedAt: string } }
  | { type: 'SpaceRestored'; data: { spaceId: string; organizationId: string; title: string; restoredAt: string } }
  | { type: 'SpacePurged'; data: { spaceId: string; organizationId: string; title: string; purgedAt: string } }
  | {
      type: 'SpaceMoved';
      data: {
        spaceId: string;
        organizationId: string;
        parent: string | null;
        position: string;
        /** The visibility after the move: `in-collection` becomes `private` outside collections. */
        visibility: SpaceVisibility;
        movedAt: string;
        /**
         * `collection-deleted`: moved up because its collection was deleted; `reordered`: given a new
         * key, in the same place, so that a sibling could move next to it.
         */
        reason?: 'collection-deleted' | 'reordered';
      };
    }
  | {
      type: 'SpaceTransferred';
      data: {
        spaceId: string;
        fromOrganizationId: string;
        organizationId: string;
        parent: string | null;
        position: string;
        visibility: SpaceVisibility;
        transferredAt: string;
      };
    }
  | { type: 'ShareLinkCreated'; data: { spaceId: string; organizationId: string; shareKey: string; createdBy: string; createdAt: string } }
  | { type: 'ShareLinkRevoked'; data: { spaceId: string; organizationId: string; shareKey: string; revokedAt: string } }
  /** A team of the space's organization gets (or changes) a role on the space (extension). */
  | { type: 'SpaceTeamAccessSet'; data: { spaceId: string; organizationId: string; teamId: string; role: Exclude<OrganizationRole, null> } }
  | { type: 'SpaceTeamAccessRemoved'; data: { spaceId: string; organizationId: string; teamId: string } };

/** Collections. One stream per collection, `collection-<collectionId>`. */
export type CollectionEvent =
  | {
      type: 'CollectionCreated';
      data: {
        collectionId: string;
        organizationId: string;
        title: string;
        description: string | null;
        defaultLevel: DefaultLevel;
        parent: string | null;
        position: string;
        createdBy: string;
        createdAt: string;
      };
    }
  | { type: 'CollectionUpdated'; data: { collectionId: string; organizationId: string; changes: CollectionChanges; updatedAt: string } }
  | {
      type: 'CollectionMoved';
      data: { collectionId: string; organizationId: string; parent: string | null; position: string; movedAt: string; reason?: 'collection-deleted' | 'reordered' };
    }
  | {
      type: 'CollectionTransferred';
      data: { collectionId: string; fromOrganizationId: string; organizationId: string; parent: string | null; position: string; transferredAt: string };
    }
  | { type: 'CollectionDeleted'; data: { collectionId: string; organizationId: string; title: string; deletedAt: string } };

export type SpaceEventType = SpaceEvent['type'];
export type CollectionEventType = CollectionEvent['type'];
