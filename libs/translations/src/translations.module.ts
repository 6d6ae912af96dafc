import { Module } from '@nestjs/common';
import { TranslationAccess } from './translation.access';
import { translationCommandHandlers } from './translation.commands';
import { TranslationController } from './translation.controller';
import { translationQueryHandlers } from './translation.queries';

/** The translations context: an organization's translation settings. What it needs of organizations comes through its port. */
@Module({
  controllers: [TranslationController],
  providers: [TranslationAccess, ...translationCommandHandlers, ...translationQueryHandlers],
})
export class TranslationsModule {}
