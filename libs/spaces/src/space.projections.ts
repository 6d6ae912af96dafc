import {
  isOneOf,
  multiDocumentProjection,
  type ProjectionDocuments,
  type ProjectedDoc,
  type Recorded,
} from '#read-store/projections/projection';
import type { CollectionEvent, DefaultLevel, SpaceEvent, SpaceSettings } from './space.events';
import type { TeamRoles } from './space.permissions';

export const SPACES = 'spaces';
export const COLLECTIONS = 'collections';
export const SPACE_SHARE_LINKS = 'space_share_links';

export interface SpaceDoc extends ProjectedDoc, SpaceSettings {
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
  /** Revision of the space's stream: its ETag. */
  revision: number;
}

export interface CollectionDoc extends ProjectedDoc {
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
export interface ShareLinkDoc extends ProjectedDoc {
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

const SPACE_EVENTS: ReadonlyArray<SpaceEvent['type']> = [
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
];
const COLLECTION_EVENTS: ReadonlyArray<CollectionEvent['type']> = [
  'CollectionCreated',
  'CollectionUpdated',
  'CollectionMoved',
  'CollectionTransferred',
  'CollectionDeleted',
];

/**
 * Spaces, collections and share links, from the space and collection streams.
 *
 * Every write is guarded by the event's log position, and an event is skipped whole once its
 * space or collection document (which every event of the stream writes: its revision is the ETag)
 * has seen it, so share links deleted by a newer event are not brought back by an older one.
 * Deletions and purges keep tombstones, so that events applied again after them are skipped too.
 */
export const spaceProjection = multiDocumentProjection<SpaceEvent | CollectionEvent>({
  name: 'spaces',
  collections: [SPACES, COLLECTIONS, SPACE_SHARE_LINKS],
  indexes: [
    { collection: SPACES, fields: { organizationId: 1, parentKey: 1, position: 1 } },
    // A member's spaces, newest or oldest first (`GET /orgs/{id}/members/{userId}/spaces`).
    { collection: SPACES, fields: { organizationId: 1, createdAt: 1 } },
    // A guest's list (public spaces only) walks the public ones, however many others there are.
    { collection: SPACES, fields: { organizationId: 1, visibility: 1, parentKey: 1, position: 1 } },
    { collection: SPACES, fields: { parent: 1, position: 1 } },
    { collection: SPACES, fields: { deletedAt: 1 } },
    { collection: COLLECTIONS, fields: { organizationId: 1, parentKey: 1, position: 1 } },
    { collection: SPACE_SHARE_LINKS, fields: { spaceId: 1, createdRevision: 1 } },
  ],
  handles: [...SPACE_EVENTS, ...COLLECTION_EVENTS],
  guard: (event) =>
    isOneOf(event, SPACE_EVENTS)
      ? { collection: SPACES, id: event.data.spaceId }
      : { collection: COLLECTIONS, id: event.data.collectionId },
  async apply(event, documents) {
    if (isOneOf(event, SPACE_EVENTS)) await applySpaceEvent(event, documents);
    else await applyCollectionEvent(event, documents);
  },
});

async function applySpaceEvent(event: Recorded<SpaceEvent>, documents: ProjectionDocuments): Promise<void> {
  const spaces = documents.collection<SpaceDoc>(SPACES);
  const links = documents.collection<ShareLinkDoc>(SPACE_SHARE_LINKS);
  const { spaceId } = event.data;
  const revision = event.revision;
  if (event.type === 'SpaceCreated') {
    const {
      organizationId,
      title,
      emoji,
      visibility,
      editMode,
      defaultLevel,
      parent,
      position,
      createdBy,
      createdAt,
      duplicatedFrom,
      icon,
      language,
      mergeRules,
    } = event.data;
    await spaces.put({
      _id: spaceId,
      organizationId,
      title,
      emoji,
      ...(icon ? { icon } : {}),
      ...(language ? { language } : {}),
      ...(mergeRules ? { mergeRules } : {}),
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
  const space = await spaces.get(spaceId);
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
      await spaces.update(spaceId, {
        $set: { organizationId, parent, parentKey: parent ?? '', position, visibility, updatedAt: transferredAt, revision },
      });
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
}

async function applyCollectionEvent(event: Recorded<CollectionEvent>, documents: ProjectionDocuments): Promise<void> {
  const collections = documents.collection<CollectionDoc>(COLLECTIONS);
  const { collectionId } = event.data;
  const revision = event.revision;
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
  if (!(await collections.get(collectionId))) return;
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
      await collections.update(collectionId, {
        $set: { organizationId, parent, parentKey: parent ?? '', position, updatedAt: transferredAt, revision },
      });
      return;
    }
    case 'CollectionDeleted':
      await collections.update(collectionId, { $set: { deletedAt: event.data.deletedAt, updatedAt: event.data.deletedAt, revision } });
      return;
  }
}
