import { deciderSpec } from '#testing';
import { translationSettingsDecider, translationSettingsStream } from './translation.decider';
import type { TranslationSettingsEvent } from './translation.events';

/**
 * The translation settings rules one at a time (those mutation testing showed no spec held): what an
 * update leaves for the next one, which language lists are the same, and the wording of refusals.
 */
const t0 = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(translationSettingsDecider);
const about = { translationSettingsId: 'tr1', organizationId: 'o1' };
const act = { ...about, allowed: true, now: t0 };
const created: TranslationSettingsEvent = {
  type: 'TranslationSettingsCreated',
  data: { ...about, title: 'Docs in French', languages: ['fr'], createdBy: 'ada', createdAt: t0 },
};
const updated = (changes: { title?: string; languages?: string[] }): TranslationSettingsEvent => ({
  type: 'TranslationSettingsUpdated',
  data: { ...about, changes, updatedAt: t0 },
});

describe('translation settings decider: rules one by one', () => {
  it('settings’ stream is translation-<id>', () => {
    expect(translationSettingsStream('tr1')).toBe('translation-tr1');
  });

  it('given settings updated to a title, when set to that title again, then nothing (the update is remembered)', () => {
    spec
      .given([created, updated({ title: 'Docs abroad' })])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { title: 'Docs abroad' } })
      .thenNothing();
  });

  it('given settings updated to languages, when set to those languages again, then nothing', () => {
    spec
      .given([created, updated({ languages: ['fr', 'de'] })])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { languages: ['fr', 'de'] } })
      .thenNothing();
  });

  it('given settings, when only the languages change, then the event carries the languages alone', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { title: 'Docs in French', languages: ['de'] } })
      .then([updated({ languages: ['de'] })]);
  });

  it.each([
    ['a longer list with the same start', ['fr', 'de', 'it']],
    ['the same length, another language', ['de']],
    ['an empty list', []],
    ['the same first language, another second', ['fr', 'es']],
  ])('given settings of fr and de, when the languages are %s, then they changed', (_what, languages) => {
    spec
      .given([created, updated({ languages: ['fr', 'de'] })])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { languages } })
      .then([updated({ languages })]);
  });

  it('given settings of two languages, when set to the same two in another order, then they changed (order counts)', () => {
    spec
      .given([created, updated({ languages: ['fr', 'de'] })])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: { languages: ['de', 'fr'] } })
      .then([updated({ languages: ['de', 'fr'] })]);
  });

  it('given deleted settings, when their creation is retried, then nothing (deleted settings still hold their id)', () => {
    const deleted: TranslationSettingsEvent = { type: 'TranslationSettingsDeleted', data: { ...about, deletedAt: t0 } };
    spec
      .given([created, deleted])
      .when({ kind: 'CreateTranslationSettings', ...act, title: 'Docs in French', languages: ['fr'], by: 'ada' })
      .thenNothing();
  });

  it('given settings, when a change names neither member, then nothing', () => {
    spec
      .given([created])
      .when({ kind: 'UpdateTranslationSettings', ...act, changes: {} })
      .thenNothing();
  });

  it('given nothing, when someone who may not creates settings, then 403 saying it needs the admin role', () => {
    spec
      .given([])
      .when({ kind: 'CreateTranslationSettings', ...act, allowed: false, title: 'T', languages: ['fr'], by: 'rita' })
      .thenFails(403, 'creating translation settings needs the admin role in the organization');
  });

  it('given settings, when someone who may not changes them, then 403 naming them; unknown ones, 404 naming them', () => {
    spec
      .given([created])
      .when({ kind: 'DeleteTranslationSettings', ...act, allowed: false })
      .thenFails(403, 'only admins of the organization may change translation settings tr1');
    spec
      .given([])
      .when({ kind: 'DeleteTranslationSettings', ...act })
      .thenFails(404, 'no translation settings tr1');
  });
});
