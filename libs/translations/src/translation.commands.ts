import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { TranslationAccess } from './translation.access';
import { translationSettingsDecider, translationSettingsStream, type TranslationSettingsCommand } from './translation.decider';
import type { TranslationSettingsChanges } from './translation.events';
import { canonicalLanguages } from './translation.languages';

/**
 * The translation settings writes: one method per command, organization admins only (the decider
 * refuses others with 403). Languages are validated and made canonical here, for callers allowed
 * to write, so that someone refused learns nothing from a 400 first.
 */
@Injectable()
export class TranslationCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly access: TranslationAccess,
  ) {}

  async create(organizationId: string, body: { title: string; languages?: string[] }, caller: Caller): Promise<string> {
    const { edit, userId } = await this.access.permissions(organizationId, caller);
    const translationSettingsId = newId();
    const languages = edit ? canonicalLanguages(body.languages ?? []) : [];
    await this.run({ kind: 'CreateTranslationSettings', translationSettingsId, organizationId, title: body.title, languages, by: userId, allowed: edit, now: this.now() }, caller);
    return translationSettingsId;
  }

  async update(organizationId: string, translationSettingsId: string, changes: TranslationSettingsChanges, caller: Caller, ifMatch?: number): Promise<void> {
    const { edit } = await this.access.permissions(organizationId, caller);
    const canonical: TranslationSettingsChanges = { ...changes, ...(edit && changes.languages !== undefined ? { languages: canonicalLanguages(changes.languages) } : {}) };
    await this.run({ kind: 'UpdateTranslationSettings', translationSettingsId, organizationId, changes: canonical, allowed: edit, now: this.now() }, caller, ifMatch);
  }

  async delete(organizationId: string, translationSettingsId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { edit } = await this.access.permissions(organizationId, caller);
    await this.run({ kind: 'DeleteTranslationSettings', translationSettingsId, organizationId, allowed: edit, now: this.now() }, caller, ifMatch);
  }

  private async run(command: TranslationSettingsCommand, caller: Caller, ifMatch?: number): Promise<void> {
    await this.commands.run(translationSettingsStream(command.translationSettingsId), translationSettingsDecider, command, { caller }, { ifMatch });
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}
