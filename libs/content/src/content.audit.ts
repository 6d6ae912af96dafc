import { auditCatalog } from '#platform/audit-catalog';
import type { ContentEvent } from './content.events';

const ACTIONS = {
  batch: 'content.updated',
  import: 'content.imported',
  rollback: 'content.rolled_back',
  duplicate: 'content.duplicated',
  merge: 'content.merged',
  update: 'content.updated_from_main',
} as const;

/**
 * Every content revision is one audit entry on its space, naming the pages it touched; so is a new
 * version of a spec the content uses, naming the spec and the version.
 */
export const contentAuditCatalog = auditCatalog<ContentEvent>({
  ContentRevisionCreated: (data) => ({
    action: ACTIONS[data.source.kind],
    organizationId: data.organizationId,
    target: { type: 'space', id: data.spaceId },
    details: { revision: data.revisionId, pages: data.pages },
  }),
  ContentDependencyUpdated: (data) => ({
    action: 'content.dependency_updated',
    organizationId: data.organizationId,
    target: { type: 'space', id: data.spaceId },
    details: { revision: data.revisionId, dependency: data.dependency, version: data.versionId },
  }),
});
