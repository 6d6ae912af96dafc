import type { ContextManifest } from '#runtime/context';
import { translationAuditCatalog } from './translation.audit';
import { translationSettingsProjection } from './translation.projections';
import { TRANSLATION_ORGANIZATIONS } from './translations.needs';
import { TranslationsModule } from './translations.module';
import { translationSchemas } from './translations.schemas';

/** Translation settings: an organization's titled lists of target languages (BCP 47). */
export const translationsContext: ContextManifest = {
  name: 'translations',
  module: TranslationsModule,
  projections: [translationSettingsProjection],
  audit: translationAuditCatalog,
  needs: [TRANSLATION_ORGANIZATIONS],
  provides: [],
  schemas: translationSchemas,
};
