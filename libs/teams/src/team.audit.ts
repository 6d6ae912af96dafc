import { auditCatalog, type AuditEntry } from '#platform/audit-catalog';
import type { TeamEvent } from './team.events';

/** Every team event targets its team; the label is the title where the event carries it (else the audit log's last known one). */
function team(action: string, data: { organizationId: string; teamId: string }, label?: string): AuditEntry {
  return { action, organizationId: data.organizationId, target: { type: 'team', id: data.teamId, ...(label ? { label } : {}) } };
}

/** How team events read in the audit log. */
export const teamAuditCatalog = auditCatalog<TeamEvent>({
  TeamCreated: (data) => team('team.created', data, data.title),
  TeamRenamed: (data) => team('team.updated', data, data.title),
  TeamDeleted: (data) => team('team.deleted', data),
  TeamMemberAdded: (data) => team('team.member_added', data),
  TeamMemberRoleChanged: (data) => team('team.member_updated', data),
  TeamMemberRemoved: (data) => team('team.member_removed', data),
});
