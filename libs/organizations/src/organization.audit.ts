import type { AuditCatalog } from '../../platform/src/audit-catalog';
import type { OrganizationEvent } from './organization.events';

type Data<T extends OrganizationEvent['type']> = Extract<OrganizationEvent, { type: T }>['data'];

/** How organization events read in the audit log. */
export const organizationAuditCatalog: AuditCatalog = {
  OrganizationCreated: (event) => {
    const data = event.data as Data<'OrganizationCreated'>;
    return { action: 'organization.created', organizationId: data.organizationId, target: { type: 'organization', id: data.organizationId, label: data.title } };
  },
  OrganizationUpdated: (event) => {
    const data = event.data as Data<'OrganizationUpdated'>;
    return {
      action: 'organization.updated',
      organizationId: data.organizationId,
      target: { type: 'organization', id: data.organizationId, ...(data.changes.title ? { label: data.changes.title } : {}) },
    };
  },
  MemberAdded: (event) => {
    const data = event.data as Data<'MemberAdded'>;
    return { action: 'member.added', organizationId: data.organizationId, target: { type: 'member', id: data.userId } };
  },
};
