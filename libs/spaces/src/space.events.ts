import type { SpaceMergeRules } from '#platform/merge-rules';
import { ORGANIZATION_ROLES, type OrganizationRole } from '#platform/permissions';

/**
 * A role a space or collection hands to organization members by default. `inherit` (the
 * platform's) and null hand out none of their own: the levels of the collections above and the
 * organization role apply either way, since a default level only ever raises a role.
 */
export type DefaultLevel = Exclude<OrganizationRole, null> | 'inherit' | null;
/** The values a request may set (null aside). */
export const DEFAULT_LEVELS = [...ORGANIZATION_ROLES, 'inherit'] as const;

/** The platform's content languages (`TranslationLanguage`): what a space's `language` may be. */
export const SPACE_LANGUAGES = [
  'en',
  'fr',
  'de',
  'es',
  'it',
  'pt',
  'pt-br',
  'ru',
  'ja',
  'zh',
  'zh-tw',
  'yue',
  'ko',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'sv',
  'no',
  'da',
  'fi',
  'el',
  'cs',
  'hu',
  'ro',
  'th',
  'vi',
  'id',
  'ms',
  'he',
  'uk',
  'sk',
  'bg',
  'hr',
  'lt',
  'lv',
  'et',
  'sl',
] as const;
export type SpaceLanguage = (typeof SPACE_LANGUAGES)[number];

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
  /** Fractional sort key among its siblings (spaces and collections share one order under a parent). */
  position: string;
  /**
   * The URL of an image shown instead of an emoji (a space has one or the other). This and the
   * members below are absent on events written before they existed: none, and `inherit`.
   */
  icon?: string | null;
  language?: SpaceLanguage | null;
  /** Stored and answered back; change requests follow the organization's approval rule only. */
  mergeRules?: SpaceMergeRules;
}

export interface SpaceChanges {
  title?: string;
  emoji?: string | null;
  icon?: string | null;
  editMode?: EditMode;
  defaultLevel?: DefaultLevel;
  visibility?: SpaceVisibility;
  language?: SpaceLanguage;
  mergeRules?: SpaceMergeRules;
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
      data: {
        collectionId: string;
        organizationId: string;
        parent: string | null;
        position: string;
        movedAt: string;
        reason?: 'collection-deleted' | 'reordered';
      };
    }
  | {
      type: 'CollectionTransferred';
      data: {
        collectionId: string;
        fromOrganizationId: string;
        organizationId: string;
        parent: string | null;
        position: string;
        transferredAt: string;
      };
    }
  | { type: 'CollectionDeleted'; data: { collectionId: string; organizationId: string; title: string; deletedAt: string } };

export type SpaceEventType = SpaceEvent['type'];
export type CollectionEventType = CollectionEvent['type'];
