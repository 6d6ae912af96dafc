import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope } from '../../platform/src/http/list';
import type { TranslationSettingsPermissions } from '../../platform/src/permissions';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { TranslationAccess } from './translation.access';
import { TRANSLATION_SETTINGS, type TranslationSettingsDoc } from './translation.projections';

/** The translation settings reads: members of the organization with a role (not guests) read them. */
@Injectable()
export class TranslationQueries {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: TranslationAccess,
  ) {}

  /** The organization's live settings, oldest first; `page` is the list's cursor (a forged one is 400). */
  async list(organizationId: string, caller: Caller, paging: { page?: string; limit?: number }) {
    const permissions = await this.access.viewer(organizationId, caller);
    const page = await this.reads.collection<TranslationSettingsDoc>(TRANSLATION_SETTINGS).find({ organizationId, deletedAt: { $exists: false } }, { sort: { createdAt: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((settings) => this.present(settings, permissions)), count: page.count, next: page.next });
  }

  async get(organizationId: string, translationSettingsId: string, caller: Caller) {
    return (await this.getWithRevision(organizationId, translationSettingsId, caller)).object;
  }

  /** The settings and their ETag source (the stream revision), from one read. */
  async getWithRevision(organizationId: string, translationSettingsId: string, caller: Caller) {
    const permissions = await this.access.viewer(organizationId, caller);
    const settings = await this.reads.collection<TranslationSettingsDoc>(TRANSLATION_SETTINGS).get(translationSettingsId);
    if (!settings || settings.deletedAt !== undefined || settings.organizationId !== organizationId) throw DomainError.notFound(`no translation settings ${translationSettingsId}`);
    return { object: this.present(settings, permissions), revision: settings.revision };
  }

  private present(settings: TranslationSettingsDoc, permissions: TranslationSettingsPermissions) {
    return {
      object: 'translation-settings' as const,
      id: settings._id,
      title: settings.title,
      languages: settings.languages,
      createdAt: settings.createdAt,
      updatedAt: settings.updatedAt,
      permissions: { view: permissions.view, edit: permissions.edit },
      urls: { location: `${this.config.publicUrl}/v1/orgs/${settings.organizationId}/translations/${settings._id}` },
    };
  }
}
