import type { ContextManifest } from '#runtime/context';
import { ssoSchemas } from './sso.schemas';
import { registerSamlFormParser } from './saml-form-parser';
import { samlProviderProjection } from './saml-provider.projections';
import { ssoAuditCatalog } from './sso.audit';
import { SSO_ORGANIZATIONS, SSO_TEAMS, SSO_USERS } from './sso.needs';
import { SsoModule } from './sso.module';
import { VerifiedDomainsForSites } from './sso.provides';

/** SAML providers, verified domains and the SAML login. */
export const ssoContext: ContextManifest = {
  name: 'sso',
  module: SsoModule,
  projections: [samlProviderProjection],
  audit: ssoAuditCatalog,
  needs: [SSO_TEAMS, SSO_ORGANIZATIONS, SSO_USERS],
  provides: [VerifiedDomainsForSites],
  schemas: ssoSchemas,
  // Identity providers POST SAML responses as forms to the ACS route: the one non-JSON body.
  configureHttp: registerSamlFormParser,
};
