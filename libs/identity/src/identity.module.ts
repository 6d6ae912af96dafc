import { Module } from '@nestjs/common';
import { TOKEN_VERIFIER } from '../../platform/src/http/auth';
import { CreateUserHandler, IssueTokenHandler, RevokeTokenHandler } from './identity.commands';
import { AdminIdentityController, CurrentUserController } from './identity.controller';
import { GetUserHandler, ReadModelTokenVerifier, UserQueries } from './identity.queries';

@Module({
  controllers: [AdminIdentityController, CurrentUserController],
  providers: [
    CreateUserHandler,
    IssueTokenHandler,
    RevokeTokenHandler,
    GetUserHandler,
    UserQueries,
    ReadModelTokenVerifier,
    { provide: TOKEN_VERIFIER, useExisting: ReadModelTokenVerifier },
  ],
  exports: [UserQueries, TOKEN_VERIFIER],
})
export class IdentityModule {}
