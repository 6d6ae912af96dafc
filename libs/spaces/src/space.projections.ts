import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { Projection } from '../../read-store/src/projections/projection';
import type { Doc } from '../../read-store/src/read-store.port';
import type { CollectionEvent, DefaultLevel, SpaceEvent, SpaceSettings } from './space.events';
import type { TeamRoles } from './space.permissions';

export const SPACES = 'spaces';
export const COLLECTIONS = 'collections';
export const SPACE_SHARE_LINKS = 'space_share_links';

export interface SpaceDoc extends Doc, SpaceSettings {
  organizationId: string;
  /** `parent` or '' at the top level: organization lists sort by it, then by position. */
  parentKey: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  duplicatedFrom?: string;
  /** Roles granted to teams of the organization, by team id; absent on documents projected before team access existed (none). */
  teamRoles?: TeamRoles;
  /** Set while deleted (restorable for 7 days). */
  deletedAt?: string;
  /** Set once permanently removed: the document stays as a tombstone so that a replay cannot revive it. */
  purgedAt?: string;
  /** Revision of the space's stream: its ETag, and the guard that makes applying an event twice a no-op. */
  revision: number;
}

export interface CollectionDoc extends Doc {
  organizationId: string;
  title: string;
  description: string | null;
  defaultLevel: DefaultLevel;
  parent: string | null;
  parentKey: string;
  position: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** Set on deletion; the document stays as a tombstone. */
  deletedAt?: string;
  revision: number;
}

/** `_id` is the share key. */
export interface ShareLinkDoc extends Doc {
  spaceId: string;
  organizationId: string;
  createdBy: string;
  createdAt: string;
  /** Revision of the space stream that created it: links list in creation order. */
  createdRevision: number;
}

/** Spaces that are neither deleted nor purged. */
export const LIVE_SPACE = { deletedAt: { $exists: false }, purgedAt: { $exists: false } } as const;
export const LIVE_COLLECTION = { deletedAt: { $exists: false } } as const;

const SPACE_EVENTS: ReadonlySet<string> = new Set<SpaceEvent['type']>([
  'SpaceCreated',
  'SpaceUpdated',
  'SpaceDeleted',
  'SpaceRestored',
  'SpacePurged',
  'SpaceMoved',
  'SpaceTransferred',
  'ShareLinkCreated',
  'ShareLinkRevoked',
  'SpaceTeamAccessSet',
  'SpaceTeamAccessRemoved',
]);
const COLLECTION_EVENTS: ReadonlySet<string> = new Set<CollectionEvent['type']>(['CollectionCreated', 'CollectionUpdated', 'CollectionMoved', 'CollectionTransferred', 'CollectionDeleted']);

/**
 * Spaces, collections and share links, from the space and collection streams.
 *
 * Replay safety: an event whose stream revision its document has already reached is skipped, so
 * applying an event twice changes nothing. Share links live in the space stream and are guarded by
 * the space document's revision. Deletions and purges keep tombstones, so events replayed after
 * them find a document and are skipped too.
 */
export const spaceProjection: Projection = {
  name: 'spaces',
  collections: [SPACES, COLLECTIONS, SPACE_SHARE_LINKS],
  indexes: [
    { collection: SPACES, fields: { organizationId: 1, parentKey: 1, position: 1 } },
    { collection: SPACES, fields: { parent: 1, position: 1 } },
    { collection: SPACES, fields: { deletedAt: 1 } },
    { collection: COLLECTIONS, fields: { organizationId: 1, parentKey: 1, position: 1 } },
    { collection: SPACE_SHARE_LINKS, fields: { spaceId: 1, createdRevision: 1 } },
  ],
  handles: [...SPACE_EVENTS, ...COLLECTION_EVENTS],
  async apply(recorded: RecordedEvent, tx) {
    if (SPACE_EVENTS.has(recorded.type)) {
      const spaces = tx.collection<SpaceDoc>(SPACES);
      const links = tx.collection<ShareLinkDoc>(SPACE_SHARE_LINKS);
      const event = recorded as unknown as SpaceEvent;
      const { spaceId } = event.data;
      const space = await spaces.get(spaceId);
      if (space && space.revision >= recorded.revision) return;
      const revision = recorded.revision;
      if (event.type === 'SpaceCreated') {
        const { organizationId, title, emoji, visibility, editMode, defaultLevel, parent, position, createdBy, createdAt, duplicatedFrom } = event.data;
        await spaces.put({
          _id: spaceId,
          organizationId,
          title,
          emoji,
          visibility,
          editMode,
          defaultLevel,
          parent,
          parentKey: parent ?? '',
          position,
          createdBy,
          createdAt,
          updatedAt: createdAt,
          ...(duplicatedFrom ? { duplicatedFrom } : {}),
          teamRoles: {},
          revision,
        });
        return;
      }
      if (!space) return;
      switch (event.type) {
        case 'SpaceUpdated':
          await spaces.update(spaceId, { $set: { ...event.data.changes, updatedAt: event.data.updatedAt, revision } });
          return;
        case 'SpaceDeleted':
          await spaces.update(spaceId, { $set: { deletedAt: event.data.deletedAt, updatedAt: event.data.deletedAt, revision } });
          return;
        case 'SpaceRestored':
          await spaces.update(spaceId, { $set: { updatedAt: event.data.restoredAt, revision }, $unset: { deletedAt: '' } });
          return;
        case 'SpacePurged':
          await links.deleteMany({ spaceId });
          await spaces.update(spaceId, { $set: { purgedAt: event.data.purgedAt, revision } });
          return;
        case 'SpaceMoved': {
          const { parent, position, visibility, movedAt } = event.data;
          await spaces.update(spaceId, { $set: { parent, parentKey: parent ?? '', position, visibility, updatedAt: movedAt, revision } });
          return;
        }
        case 'SpaceTransferred': {
          const { organizationId, parent, position, visibility, transferredAt } = event.data;
          await links.updateMany({ spaceId }, { $set: { organizationId } });
          await spaces.update(spaceId, { $set: { organizationId, parent, parentKey: parent ?? '', position, visibility, updatedAt: transferredAt, revision } });
          return;
        }
        case 'ShareLinkCreated': {
          const { shareKey, organizationId, createdBy, createdAt } = event.data;
          await links.put({ _id: shareKey, spaceId, organizationId, createdBy, createdAt, createdRevision: revision });
          await spaces.update(spaceId, { $set: { revision } });
          return;
        }
        case 'ShareLinkRevoked':
          await links.delete(event.data.shareKey);
          await spaces.update(spaceId, { $set: { revision } });
          return;
        case 'SpaceTeamAccessSet':
          await spaces.update(spaceId, { $set: { teamRoles: { ...space.teamRoles, [event.data.teamId]: event.data.role }, revision } });
          return;
        case 'SpaceTeamAccessRemoved': {
          const { [event.data.teamId]: _removed, ...teamRoles } = space.teamRoles ?? {};
          await spaces.update(spaceId, { $set: { teamRoles, revision } });
          return;
        }
      }
      return;
    }
    if (!COLLECTION_EVENTS.has(recorded.type)) return;
    const collections = tx.collection<CollectionDoc>(COLLECTIONS);
    const event = recorded as unknown as CollectionEvent;
    const { collectionId } = event.data;
    const collection = await collections.get(collectionId);
    if (collection && collection.revision >= recorded.revision) return;
    const revision = recorded.revision;
    if (event.type === 'CollectionCreated') {
      const { organizationId, title, description, defaultLevel, parent, position, createdBy, createdAt } = event.data;
      await collections.put({
        _id: collectionId,
        organizationId,
        title,
        description,
        defaultLevel,
        parent,
        parentKey: parent ?? '',
        position,
        createdBy,
        createdAt,
        updatedAt: createdAt,
        revision,
      });
      return;
    }
    if (!collection) return;
    switch (event.type) {
      case 'CollectionUpdated':
        await collections.update(collectionId, { $set: { ...event.data.changes, updatedAt: event.data.updatedAt, revision } });
        return;
      case 'CollectionMoved': {
        const { parent, position, movedAt } = event.data;
        await collections.update(collectionId, { $set: { parent, parentKey: parent ?? '', position, updatedAt: movedAt, revision } });
        return;
      }
      case 'CollectionTransferred': {
        const { organizationId, parent, position, transferredAt } = event.data;
        await collections.update(collectionId, { $set: { organizationId, parent, parentKey: parent ?? '', position, updatedAt: transferredAt, revision } });
        return;
      }
      case 'CollectionDeleted':
        await collections.update(collectionId, { $set: { deletedAt: event.data.deletedAt, updatedAt: event.data.deletedAt, revision } });
        return;
    }
  },
};
