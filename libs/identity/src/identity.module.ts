import { Module } from '@nestjs/common';
import { identityCommandHandlers } from './identity.commands';
import { AdminIdentityController, CurrentUserController } from './identity.controller';
import { identityQueryHandlers } from './identity.queries';
import {
  ReadModelTokenVerifier,
  UsersForChangeRequests,
  UsersForComments,
  UsersForIntegrations,
  UsersForOrganizations,
  UsersForSso,
  UsersForTeams,
} from './identity.provides';

/**
 * Users and their tokens. It exports only what implements other ports (its manifest's `provides`):
 * ReadModelTokenVerifier for the front door (TOKEN_VERIFIER), and the users other contexts read.
 */
@Module({
  controllers: [AdminIdentityController, CurrentUserController],
  providers: [
    ...identityCommandHandlers,
    ...identityQueryHandlers,
    ReadModelTokenVerifier,
    UsersForSso,
    UsersForOrganizations,
    UsersForTeams,
    UsersForChangeRequests,
    UsersForComments,
    UsersForIntegrations,
  ],
  exports: [
    ReadModelTokenVerifier,
    UsersForSso,
    UsersForOrganizations,
    UsersForTeams,
    UsersForChangeRequests,
    UsersForComments,
    UsersForIntegrations,
  ],
})
export class IdentityModule {}
