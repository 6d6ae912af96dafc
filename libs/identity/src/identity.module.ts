import { Module } from '@nestjs/common';
import { IdentityCommands } from './identity.commands';
import { AdminIdentityController, CurrentUserController } from './identity.controller';
import { ReadModelTokenVerifier, UserQueries } from './identity.queries';
import { UsersForSso } from './identity.sso';

/**
 * Users and their tokens. IdentityCommands is exported for the SAML login, which creates users and issues tokens;
 * ReadModelTokenVerifier for the front door (bound to TOKEN_VERIFIER at the composition root).
 */
@Module({
  controllers: [AdminIdentityController, CurrentUserController],
  providers: [IdentityCommands, UserQueries, ReadModelTokenVerifier, UsersForSso],
  exports: [IdentityCommands, UserQueries, ReadModelTokenVerifier, UsersForSso],
})
export class IdentityModule {}
