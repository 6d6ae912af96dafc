import { recordEvents } from '#testing';
import { translationAuditCatalog } from './translation.audit';
import type { TranslationSettingsEvent } from './translation.events';

const about = { translationSettingsId: 'tr1', organizationId: 'o1' };
const t0 = '2026-01-01T00:00:00.000Z';
const entryOf = (event: TranslationSettingsEvent) => {
  const [recorded] = recordEvents([event], { stream: 'translation-tr1' });
  return translationAuditCatalog[event.type](recorded);
};

describe('translation settings in the audit log', () => {
  it('records a creation as translation.created on the settings, in their organization, with the languages', () => {
    expect(
      entryOf({
        type: 'TranslationSettingsCreated',
        data: { ...about, title: 'French', languages: ['fr'], createdBy: 'ada', createdAt: t0 },
      }),
    ).toEqual({
      action: 'translation.created',
      organizationId: 'o1',
      target: { type: 'translation-settings', id: 'tr1', label: 'French' },
      details: { languages: ['fr'] },
    });
  });

  it('records a change as translation.updated naming the members changed', () => {
    expect(entryOf({ type: 'TranslationSettingsUpdated', data: { ...about, changes: { languages: ['de'] }, updatedAt: t0 } })).toEqual({
      action: 'translation.updated',
      organizationId: 'o1',
      target: { type: 'translation-settings', id: 'tr1' },
      details: { changes: ['languages'] },
    });
  });

  it('records a deletion as translation.deleted', () => {
    expect(entryOf({ type: 'TranslationSettingsDeleted', data: { ...about, deletedAt: t0 } })).toEqual({
      action: 'translation.deleted',
      organizationId: 'o1',
      target: { type: 'translation-settings', id: 'tr1' },
    });
  });
});
