import type { ContextManifest } from '#runtime/context';
import { identitySchemas } from './identity.schemas';
import { IdentityModule } from './identity.module';
import { identityProjection } from './identity.projections';
import {
  ReadModelTokenVerifier,
  UsersForChangeRequests,
  UsersForComments,
  UsersForIntegrations,
  UsersForOrganizations,
  UsersForSso,
  UsersForTeams,
} from './identity.provides';

/** Users and their access tokens: the front door verifies bearer tokens through ReadModelTokenVerifier. */
export const identityContext: ContextManifest = {
  name: 'identity',
  module: IdentityModule,
  projections: [identityProjection],
  provides: [
    ReadModelTokenVerifier,
    UsersForOrganizations,
    UsersForTeams,
    UsersForSso,
    UsersForChangeRequests,
    UsersForComments,
    UsersForIntegrations,
  ],
  schemas: identitySchemas,
};
