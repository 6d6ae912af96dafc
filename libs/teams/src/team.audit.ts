import type { AuditCatalog, AuditEntry } from '../../platform/src/audit-catalog';
import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { TeamEvent } from './team.events';

type Data<T extends TeamEvent['type']> = Extract<TeamEvent, { type: T }>['data'];

/** Every team event targets its team; the label is the title where the event carries it (else the audit log's last known one). */
const entry =
  <T extends TeamEvent['type']>(action: string, label?: (data: Data<T>) => string) =>
  (event: RecordedEvent): AuditEntry => {
    const data = event.data as Data<T>;
    return {
      action,
      organizationId: data.organizationId,
      target: { type: 'team', id: data.teamId, ...(label ? { label: label(data) } : {}) },
    };
  };

/** How team events read in the audit log. */
export const teamAuditCatalog: AuditCatalog = {
  TeamCreated: entry<'TeamCreated'>('team.created', (data) => data.title),
  TeamRenamed: entry<'TeamRenamed'>('team.updated', (data) => data.title),
  TeamDeleted: entry<'TeamDeleted'>('team.deleted'),
  TeamMemberAdded: entry<'TeamMemberAdded'>('team.member_added'),
  TeamMemberRoleChanged: entry<'TeamMemberRoleChanged'>('team.member_updated'),
  TeamMemberRemoved: entry<'TeamMemberRemoved'>('team.member_removed'),
};
