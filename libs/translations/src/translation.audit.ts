import { auditCatalog } from '#platform/audit-catalog';
import type { TranslationSettingsEvent } from './translation.events';

const target = (data: { translationSettingsId: string }) => ({ type: 'translation-settings', id: data.translationSettingsId });

/** Every change of translation settings is one audit entry on them, in their organization. */
export const translationAuditCatalog = auditCatalog<TranslationSettingsEvent>({
  TranslationSettingsCreated: (data) => ({
    action: 'translation.created',
    organizationId: data.organizationId,
    target: { ...target(data), label: data.title },
    details: { languages: data.languages },
  }),
  TranslationSettingsUpdated: (data) => ({
    action: 'translation.updated',
    organizationId: data.organizationId,
    target: target(data),
    details: { changes: Object.keys(data.changes) },
  }),
  TranslationSettingsDeleted: (data) => ({ action: 'translation.deleted', organizationId: data.organizationId, target: target(data) }),
});
