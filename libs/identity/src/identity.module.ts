import { Module } from '@nestjs/common';
import { TOKEN_VERIFIER } from '../../platform/src/http/auth';
import { IdentityCommands } from './identity.commands';
import { AdminIdentityController, CurrentUserController } from './identity.controller';
import { ReadModelTokenVerifier, UserQueries } from './identity.queries';

/** Users and their tokens. IdentityCommands is exported for the SAML login, which creates users and issues tokens. */
@Module({
  controllers: [AdminIdentityController, CurrentUserController],
  providers: [IdentityCommands, UserQueries, ReadModelTokenVerifier, { provide: TOKEN_VERIFIER, useExisting: ReadModelTokenVerifier }],
  exports: [IdentityCommands, UserQueries, TOKEN_VERIFIER],
})
export class IdentityModule {}
