import { documentProjection, type ProjectedDoc } from '#read-store/projections/projection';
import type { TranslationSettingsEvent } from './translation.events';

export const TRANSLATION_SETTINGS = 'translation_settings';

/** `_id` is the settings' id. */
export interface TranslationSettingsDoc extends ProjectedDoc {
  organizationId: string;
  title: string;
  languages: string[];
  createdAt: string;
  updatedAt: string;
  /** Revision of the `translation-<id>` stream: the ETag. */
  revision: number;
  /** A tombstone: deleted settings keep their document so that no older event replayed over it brings them back. */
  deletedAt?: string;
}

/** Translation settings, one document each, from the `translation-*` streams. */
export const translationSettingsProjection = documentProjection<TranslationSettingsEvent, TranslationSettingsDoc>({
  name: 'translation-settings',
  collection: TRANSLATION_SETTINGS,
  handles: ['TranslationSettingsCreated', 'TranslationSettingsUpdated', 'TranslationSettingsDeleted'],
  indexes: [{ fields: { organizationId: 1, createdAt: 1 } }],
  documentId: (event) => event.data.translationSettingsId,
  evolve(document, event) {
    switch (event.type) {
      case 'TranslationSettingsCreated': {
        const { translationSettingsId, organizationId, title, languages, createdAt } = event.data;
        return { _id: translationSettingsId, organizationId, title, languages, createdAt, updatedAt: createdAt, revision: event.revision };
      }
      case 'TranslationSettingsUpdated':
        return document && { ...document, ...event.data.changes, updatedAt: event.data.updatedAt, revision: event.revision };
      case 'TranslationSettingsDeleted':
        return document && { ...document, deletedAt: event.data.deletedAt, revision: event.revision };
    }
  },
});
