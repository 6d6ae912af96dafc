import type { AuditCatalog, AuditEntry } from '../../platform/src/audit-catalog';
import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { CollectionEvent, SpaceEvent } from './space.events';

type SpaceData<T extends SpaceEvent['type']> = Extract<SpaceEvent, { type: T }>['data'];
type CollectionData<T extends CollectionEvent['type']> = Extract<CollectionEvent, { type: T }>['data'];

/**
 * Every space event targets its space, every collection event its collection. Transfers are
 * recorded in the organization the resource left (`fromOrganizationId`); what happens to it
 * afterwards shows in the receiving organization's log.
 */
const space =
  <T extends SpaceEvent['type']>(action: string | ((data: SpaceData<T>) => string), label?: (data: SpaceData<T>) => string, organization?: (data: SpaceData<T>) => string) =>
  (event: RecordedEvent): AuditEntry => {
    const data = event.data as SpaceData<T>;
    return {
      action: typeof action === 'string' ? action : action(data),
      organizationId: organization ? organization(data) : data.organizationId,
      target: { type: 'space', id: data.spaceId, ...(label ? { label: label(data) } : {}) },
    };
  };

const collection =
  <T extends CollectionEvent['type']>(action: string, label?: (data: CollectionData<T>) => string, organization?: (data: CollectionData<T>) => string) =>
  (event: RecordedEvent): AuditEntry => {
    const data = event.data as CollectionData<T>;
    return {
      action,
      organizationId: organization ? organization(data) : data.organizationId,
      target: { type: 'collection', id: data.collectionId, ...(label ? { label: label(data) } : {}) },
    };
  };

/** How space and collection events read in the audit log. */
export const spaceAuditCatalog: AuditCatalog = {
  SpaceCreated: space<'SpaceCreated'>((data) => (data.duplicatedFrom ? 'space.duplicated' : 'space.created'), (data) => data.title),
  SpaceUpdated: space<'SpaceUpdated'>('space.updated', undefined),
  SpaceDeleted: space<'SpaceDeleted'>('space.deleted', (data) => data.title),
  SpaceRestored: space<'SpaceRestored'>('space.restored', (data) => data.title),
  SpacePurged: space<'SpacePurged'>('space.purged', (data) => data.title),
  SpaceMoved: space<'SpaceMoved'>('space.moved'),
  SpaceTransferred: space<'SpaceTransferred'>('space.transferred', undefined, (data) => data.fromOrganizationId),
  ShareLinkCreated: space<'ShareLinkCreated'>('space.share_link_created'),
  ShareLinkRevoked: space<'ShareLinkRevoked'>('space.share_link_revoked'),
  SpaceTeamAccessSet: space<'SpaceTeamAccessSet'>('space.team_access_set'),
  SpaceTeamAccessRemoved: space<'SpaceTeamAccessRemoved'>('space.team_access_removed'),
  CollectionCreated: collection<'CollectionCreated'>('collection.created', (data) => data.title),
  CollectionUpdated: collection<'CollectionUpdated'>('collection.updated'),
  CollectionMoved: collection<'CollectionMoved'>('collection.moved'),
  CollectionTransferred: collection<'CollectionTransferred'>('collection.transferred', undefined, (data) => data.fromOrganizationId),
  CollectionDeleted: collection<'CollectionDeleted'>('collection.deleted', (data) => data.title),
};
