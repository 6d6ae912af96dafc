import { inStream, projectionSpec } from '#testing';
import type { TranslationSettingsEvent } from './translation.events';
import { TRANSLATION_SETTINGS, translationSettingsProjection } from './translation.projections';

const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-02T00:00:00.000Z';
const spec = projectionSpec(translationSettingsProjection);
const created = (translationSettingsId: string, title: string): TranslationSettingsEvent => ({
  type: 'TranslationSettingsCreated',
  data: { translationSettingsId, organizationId: 'o1', title, languages: ['fr'], createdBy: 'ada', createdAt: t0 },
});

describe('translation settings projection', () => {
  it('given settings created and changed, then one document with the latest title, languages, time and revision', async () => {
    await spec
      .given([
        ...inStream('translation-tr1', [
          created('tr1', 'French'),
          {
            type: 'TranslationSettingsUpdated',
            data: {
              translationSettingsId: 'tr1',
              organizationId: 'o1',
              changes: { title: 'Abroad', languages: ['fr', 'de'] },
              updatedAt: t1,
            },
          },
        ]),
      ])
      .then({
        [TRANSLATION_SETTINGS]: [
          {
            _id: 'tr1',
            _position: expect.any(String),
            organizationId: 'o1',
            title: 'Abroad',
            languages: ['fr', 'de'],
            createdAt: t0,
            updatedAt: t1,
            revision: 1,
          },
        ],
      });
  });

  it('given settings deleted, then their document stays as a tombstone with the deletion time', async () => {
    await spec
      .given([
        ...inStream('translation-tr1', [
          created('tr1', 'French'),
          { type: 'TranslationSettingsDeleted', data: { translationSettingsId: 'tr1', organizationId: 'o1', deletedAt: t1 } },
        ]),
      ])
      .then({
        [TRANSLATION_SETTINGS]: [
          {
            _id: 'tr1',
            _position: expect.any(String),
            organizationId: 'o1',
            title: 'French',
            languages: ['fr'],
            createdAt: t0,
            updatedAt: t0,
            deletedAt: t1,
            revision: 1,
          },
        ],
      });
  });
});

describe('translation settings projection, redelivered', () => {
  it('given settings deleted, when their creation is delivered again, then they stay deleted', async () => {
    await spec
      .given([
        ...inStream('translation-tr1', [
          created('tr1', 'French'),
          { type: 'TranslationSettingsDeleted', data: { translationSettingsId: 'tr1', organizationId: 'o1', deletedAt: t1 } },
        ]),
      ])
      .redelivered(0)
      .thenIdempotent();
  });
});
