import { deciderSpec } from '#testing';
import { translationSettingsDecider, type TranslationSettingsCommand } from './translation.decider';
import type { TranslationSettingsEvent } from './translation.events';

const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-02T00:00:00.000Z';
const spec = deciderSpec(translationSettingsDecider);
const about = { translationSettingsId: 'tr1', organizationId: 'o1' };
const act = { ...about, allowed: true, now: t1 };
const created: TranslationSettingsEvent = {
  type: 'TranslationSettingsCreated',
  data: { ...about, title: 'Docs in French', languages: ['fr'], createdBy: 'ada', createdAt: t0 },
};
const deleted: TranslationSettingsEvent = { type: 'TranslationSettingsDeleted', data: { ...about, deletedAt: t0 } };
const create: TranslationSettingsCommand = {
  kind: 'CreateTranslationSettings',
  ...act,
  title: 'Docs in French',
  languages: ['fr'],
  by: 'ada',
  now: t0,
};

describe('translation settings decider', () => {
  it('given nothing, when an admin creates settings, then TranslationSettingsCreated with the organization, the creator and the time', () => {
    spec.given([]).when(create).then([created]);
  });

  it('given nothing, when someone who may not edit creates settings, then 403', () => {
    spec
      .given([])
      .when({ ...create, allowed: false })
      .thenFails(403);
  });

  it('given the settings, when the same creation is retried, then nothing', () => {
    spec.given([created]).when(create).thenNothing();
  });

  it('given settings, when the title and languages change, then TranslationSettingsUpdated with both', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { title: 'Docs abroad', languages: ['fr', 'de'] } })
      .then([
        {
          type: 'TranslationSettingsUpdated',
          data: { ...about, changes: { title: 'Docs abroad', languages: ['fr', 'de'] }, updatedAt: t1 },
        },
      ]);
  });

  it('given settings, when only the title changes, then the event carries the title alone', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { title: 'Docs abroad', languages: ['fr'] } })
      .then([{ type: 'TranslationSettingsUpdated', data: { ...about, changes: { title: 'Docs abroad' }, updatedAt: t1 } }]);
  });

  it('given settings, when they are set to what they are, then nothing', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { title: 'Docs in French', languages: ['fr'] } })
      .thenNothing();
  });

  it('given settings, when someone who may not edit changes them, then 403', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateTranslationSettings', ...act, allowed: false, changes: { title: 'Mine' } })
      .thenFails(403);
  });

  it('given settings, when changed through another organization, then 404', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateTranslationSettings', ...act, organizationId: 'o2', changes: { title: 'Theirs' } })
      .thenFails(404);
  });

  it('given nothing, when settings are changed, then 404', () => {
    spec
      .given([])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { title: 'Nothing' } })
      .thenFails(404);
  });

  it('given settings, when an admin deletes them, then TranslationSettingsDeleted with the time', () => {
    spec
      .given([created])
      .when({ kind: 'DeleteTranslationSettings', ...act })
      .then([{ type: 'TranslationSettingsDeleted', data: { ...about, deletedAt: t1 } }]);
  });

  it('given settings, when someone who may not edit deletes them, then 403', () => {
    spec
      .given([created])
      .when({ kind: 'DeleteTranslationSettings', ...act, allowed: false })
      .thenFails(403);
  });

  it('given deleted settings, when deleted again, then 404', () => {
    spec
      .given([created, deleted])
      .when({ kind: 'DeleteTranslationSettings', ...act })
      .thenFails(404);
  });

  it('given deleted settings, when changed, then 404', () => {
    spec
      .given([created, deleted])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { title: 'Back' } })
      .thenFails(404);
  });
});
