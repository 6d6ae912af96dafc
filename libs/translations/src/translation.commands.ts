import { Command, CommandHandler } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { DecidingHandler } from '#runtime/command-handler';
import { TranslationAccess } from './translation.access';
import { translationSettingsDecider, translationSettingsStream } from './translation.decider';
import type { TranslationSettingsChanges } from './translation.events';
import { canonicalLanguages } from './translation.languages';

/*
 * The translation settings writes, organization admins only (the decider refuses others with 403).
 * Languages are validated and made canonical by the handlers, for callers allowed to write, so
 * that someone refused learns nothing from a 400 first.
 */

/** `POST /orgs/{organizationId}/translations`: answers the new settings' id. */
export class CreateTranslationSettings extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly body: { title: string; languages?: string[] },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateTranslationSettings)
export class CreateTranslationSettingsHandler extends DecidingHandler {
  constructor(private readonly access: TranslationAccess) {
    super();
  }

  async execute({ organizationId, body, caller }: CreateTranslationSettings): Promise<string> {
    const { edit, userId } = await this.access.permissions(organizationId, caller);
    const translationSettingsId = newId();
    const languages = edit ? canonicalLanguages(body.languages ?? []) : [];
    await this.decide(
      translationSettingsStream(translationSettingsId),
      translationSettingsDecider,
      {
        kind: 'CreateTranslationSettings',
        translationSettingsId,
        organizationId,
        title: body.title,
        languages,
        by: userId,
        allowed: edit,
        now: this.now(),
      },
      { caller },
    );
    return translationSettingsId;
  }
}

/** `PUT /orgs/{organizationId}/translations/{translationSettingsId}` */
export class UpdateTranslationSettings extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly translationSettingsId: string,
    readonly changes: TranslationSettingsChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateTranslationSettings)
export class UpdateTranslationSettingsHandler extends DecidingHandler {
  constructor(private readonly access: TranslationAccess) {
    super();
  }

  async execute({ organizationId, translationSettingsId, changes, caller, ifMatch }: UpdateTranslationSettings): Promise<void> {
    const { edit } = await this.access.permissions(organizationId, caller);
    const canonical: TranslationSettingsChanges = {
      ...changes,
      ...(edit && changes.languages !== undefined ? { languages: canonicalLanguages(changes.languages) } : {}),
    };
    await this.decide(
      translationSettingsStream(translationSettingsId),
      translationSettingsDecider,
      { kind: 'UpdateTranslationSettings', translationSettingsId, organizationId, changes: canonical, allowed: edit, now: this.now() },
      { caller, ifMatch },
    );
  }
}

/** `DELETE /orgs/{organizationId}/translations/{translationSettingsId}` */
export class DeleteTranslationSettings extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly translationSettingsId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteTranslationSettings)
export class DeleteTranslationSettingsHandler extends DecidingHandler {
  constructor(private readonly access: TranslationAccess) {
    super();
  }

  async execute({ organizationId, translationSettingsId, caller, ifMatch }: DeleteTranslationSettings): Promise<void> {
    const { edit } = await this.access.permissions(organizationId, caller);
    await this.decide(
      translationSettingsStream(translationSettingsId),
      translationSettingsDecider,
      { kind: 'DeleteTranslationSettings', translationSettingsId, organizationId, allowed: edit, now: this.now() },
      { caller, ifMatch },
    );
  }
}

export const translationCommandHandlers = [
  CreateTranslationSettingsHandler,
  UpdateTranslationSettingsHandler,
  DeleteTranslationSettingsHandler,
];
