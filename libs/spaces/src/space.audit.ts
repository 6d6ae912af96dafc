import { auditCatalog, type AuditEntry } from '#platform/audit-catalog';
import type { CollectionEvent, SpaceEvent } from './space.events';

/**
 * Every space event targets its space, every collection event its collection. Transfers are
 * recorded in the organization the resource left (`fromOrganizationId`); what happens to it
 * afterwards shows in the receiving organization's log.
 */
function space(action: string, organizationId: string, spaceId: string, label?: string): AuditEntry {
  return { action, organizationId, target: { type: 'space', id: spaceId, ...(label ? { label } : {}) } };
}

function collection(action: string, organizationId: string, collectionId: string, label?: string): AuditEntry {
  return { action, organizationId, target: { type: 'collection', id: collectionId, ...(label ? { label } : {}) } };
}

/** How space and collection events read in the audit log. */
export const spaceAuditCatalog = auditCatalog<SpaceEvent | CollectionEvent>({
  SpaceCreated: (data) => space(data.duplicatedFrom ? 'space.duplicated' : 'space.created', data.organizationId, data.spaceId, data.title),
  SpaceUpdated: (data) => space('space.updated', data.organizationId, data.spaceId),
  SpaceDeleted: (data) => space('space.deleted', data.organizationId, data.spaceId, data.title),
  SpaceRestored: (data) => space('space.restored', data.organizationId, data.spaceId, data.title),
  SpacePurged: (data) => space('space.purged', data.organizationId, data.spaceId, data.title),
  SpaceMoved: (data) => space('space.moved', data.organizationId, data.spaceId),
  SpaceTransferred: (data) => space('space.transferred', data.fromOrganizationId, data.spaceId),
  ShareLinkCreated: (data) => space('space.share_link_created', data.organizationId, data.spaceId),
  ShareLinkRevoked: (data) => space('space.share_link_revoked', data.organizationId, data.spaceId),
  SpaceTeamAccessSet: (data) => space('space.team_access_set', data.organizationId, data.spaceId),
  SpaceTeamAccessRemoved: (data) => space('space.team_access_removed', data.organizationId, data.spaceId),
  CollectionCreated: (data) => collection('collection.created', data.organizationId, data.collectionId, data.title),
  CollectionUpdated: (data) => collection('collection.updated', data.organizationId, data.collectionId),
  CollectionMoved: (data) => collection('collection.moved', data.organizationId, data.collectionId),
  CollectionTransferred: (data) => collection('collection.transferred', data.fromOrganizationId, data.collectionId),
  CollectionDeleted: (data) => collection('collection.deleted', data.organizationId, data.collectionId, data.title),
});
