/**
 * Translation settings of an organization. One stream per settings, `translation-<translationSettingsId>`:
 * its title and the languages it translates into, as BCP 47 tags in canonical form. Every event
 * carries the organization (the audit log's) and the time of the change; who made it is the
 * event's metadata `actor`, stamped by the command runner.
 */
export interface TranslationSettingsChanges {
  title?: string;
  languages?: string[];
}

interface About {
  translationSettingsId: string;
  organizationId: string;
}

export type TranslationSettingsEvent =
  | { type: 'TranslationSettingsCreated'; data: About & { title: string; languages: string[]; createdBy: string; createdAt: string } }
  /** Only the members that changed. */
  | { type: 'TranslationSettingsUpdated'; data: About & { changes: TranslationSettingsChanges; updatedAt: string } }
  | { type: 'TranslationSettingsDeleted'; data: About & { deletedAt: string } };
