import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import type { TranslationSettingsChanges, TranslationSettingsEvent } from './translation.events';

export const translationSettingsStream = (translationSettingsId: string) => `translation-${translationSettingsId}`;

export interface TranslationSettingsState {
  settings: null | { organizationId: string; title: string; languages: readonly string[]; deleted: boolean };
}

interface Acting {
  translationSettingsId: string;
  /** The organization the request names: settings of another organization are not found. */
  organizationId: string;
  /** The caller may edit the organization's translation settings (its admins: `translationSettingsPermissions`). */
  allowed: boolean;
  now: string;
}

export type TranslationSettingsCommand =
  | (Acting & { kind: 'CreateTranslationSettings'; title: string; languages: string[]; by: string })
  /** Sets the members given; absent ones stay as they are. */
  | (Acting & { kind: 'UpdateTranslationSettings'; changes: TranslationSettingsChanges })
  | (Acting & { kind: 'DeleteTranslationSettings' });

const sameLanguages = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((language, index) => language === b[index]);

export const translationSettingsDecider: Decider<TranslationSettingsCommand, TranslationSettingsEvent, TranslationSettingsState> = {
  initialState: () => ({ settings: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'TranslationSettingsCreated':
        return {
          settings: { organizationId: event.data.organizationId, title: event.data.title, languages: event.data.languages, deleted: false },
        };
      case 'TranslationSettingsUpdated':
        return { settings: { ...state.settings!, ...event.data.changes } };
      case 'TranslationSettingsDeleted':
        return { settings: { ...state.settings!, deleted: true } };
    }
  },
  decide: (command, state) => {
    const id = command.translationSettingsId;
    if (command.kind === 'CreateTranslationSettings') {
      // A retried creation (same new id) finds its own settings: nothing more to do.
      if (state.settings) return [];
      if (!command.allowed) return DomainError.forbidden('creating translation settings needs the admin role in the organization');
      return [
        {
          type: 'TranslationSettingsCreated',
          data: {
            translationSettingsId: id,
            organizationId: command.organizationId,
            title: command.title,
            languages: command.languages,
            createdBy: command.by,
            createdAt: command.now,
          },
        },
      ];
    }
    const settings = state.settings;
    if (!settings || settings.deleted || settings.organizationId !== command.organizationId)
      return DomainError.notFound(`no translation settings ${id}`);
    if (!command.allowed) return DomainError.forbidden(`only admins of the organization may change translation settings ${id}`);
    const about = { translationSettingsId: id, organizationId: settings.organizationId };
    switch (command.kind) {
      case 'UpdateTranslationSettings': {
        const changes: TranslationSettingsChanges = {};
        if (command.changes.title !== undefined && command.changes.title !== settings.title) changes.title = command.changes.title;
        if (command.changes.languages !== undefined && !sameLanguages(command.changes.languages, settings.languages))
          changes.languages = command.changes.languages;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'TranslationSettingsUpdated', data: { ...about, changes, updatedAt: command.now } }];
      }
      case 'DeleteTranslationSettings':
        return [{ type: 'TranslationSettingsDeleted', data: { ...about, deletedAt: command.now } }];
    }
  },
};
