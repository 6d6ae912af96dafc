import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import type { TranslationSettingsPermissions } from '#platform/permissions';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { TranslationAccess } from './translation.access';
import { TRANSLATION_SETTINGS, type TranslationSettingsDoc } from './translation.projections';

/* The translation settings reads: members of the organization with a role (not guests) read them. */

export type TranslationSettingsView = ReturnType<typeof presentTranslationSettings>;

function presentTranslationSettings(settings: TranslationSettingsDoc, permissions: TranslationSettingsPermissions, publicUrl: string) {
  return {
    object: 'translation-settings' as const,
    id: settings._id,
    title: settings.title,
    languages: settings.languages,
    createdAt: settings.createdAt,
    updatedAt: settings.updatedAt,
    permissions: { view: permissions.view, edit: permissions.edit },
    urls: { location: `${publicUrl}/v1/orgs/${settings.organizationId}/translations/${settings._id}` },
  };
}

/** `GET /orgs/{organizationId}/translations`: the organization's live settings, oldest first; `page` is the list's cursor (a forged one is 400). */
export class ListTranslationSettings extends Query<ListEnvelope<TranslationSettingsView>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListTranslationSettings)
export class ListTranslationSettingsHandler implements IQueryHandler<ListTranslationSettings> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: TranslationAccess,
  ) {}

  async execute({ organizationId, caller, paging }: ListTranslationSettings) {
    const permissions = await this.access.viewer(organizationId, caller);
    const page = await this.reads
      .collection<TranslationSettingsDoc>(TRANSLATION_SETTINGS)
      .find({ organizationId, deletedAt: { $exists: false } }, { sort: { createdAt: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({
      items: page.items.map((settings) => presentTranslationSettings(settings, permissions, this.config.publicUrl)),
      count: page.count,
      next: page.next,
    });
  }
}

/** `GET /orgs/{organizationId}/translations/{translationSettingsId}`: the settings and their ETag source (the stream revision), from one read. */
export class GetTranslationSettings extends Query<{ object: TranslationSettingsView; revision: number }> {
  constructor(
    readonly organizationId: string,
    readonly translationSettingsId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetTranslationSettings)
export class GetTranslationSettingsHandler implements IQueryHandler<GetTranslationSettings> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: TranslationAccess,
  ) {}

  async execute({ organizationId, translationSettingsId, caller }: GetTranslationSettings) {
    const permissions = await this.access.viewer(organizationId, caller);
    const settings = await this.reads.collection<TranslationSettingsDoc>(TRANSLATION_SETTINGS).get(translationSettingsId);
    if (!settings || settings.deletedAt !== undefined || settings.organizationId !== organizationId)
      throw DomainError.notFound(`no translation settings ${translationSettingsId}`);
    return { object: presentTranslationSettings(settings, permissions, this.config.publicUrl), revision: settings.revision };
  }
}

export const translationQueryHandlers = [ListTranslationSettingsHandler, GetTranslationSettingsHandler];
