import { Module, type ClassProvider, type DynamicModule, type ExistingProvider, type FactoryProvider, type ModuleMetadata, type Provider, type ValueProvider } from '@nestjs/common';
import { IdentityModule } from '../../identity/src/identity.module';
import { OrganizationModule } from '../../organizations/src/organization.module';
import { ConsumeSamlResponseHandler, StartSamlLoginHandler } from './saml-login';
import { SamlLoginController } from './saml-login.controller';
import { CreateSamlProviderHandler, DeleteSamlProviderHandler, UpdateSamlProviderHandler } from './saml-provider.commands';
import { SamlProviderController } from './saml-provider.controller';
import { GetSamlProviderHandler, ListSamlProvidersHandler, ListSsoOptionsHandler, SamlProviderPresenter } from './saml-provider.queries';
import { SSO_TEAMS } from './sso-teams.port';

/** How `SSO_TEAMS` is provided: any provider form but the token itself. */
export type SsoTeamsProvider = Omit<ClassProvider, 'provide'> | Omit<ValueProvider, 'provide'> | Omit<FactoryProvider, 'provide'> | Omit<ExistingProvider, 'provide'>;

/**
 * Single sign-on: SAML providers of organizations, and the SAML login. Needs `SSO_TEAMS`, which
 * `register` supplies, typically `SsoModule.register({ imports: [TeamsModule], teams: { useExisting: TeamsForSso } })`
 * (or from a global module when used as is).
 */
@Module({
  imports: [IdentityModule, OrganizationModule],
  controllers: [SamlProviderController, SamlLoginController],
  providers: [
    SamlProviderPresenter,
    CreateSamlProviderHandler,
    UpdateSamlProviderHandler,
    DeleteSamlProviderHandler,
    ListSamlProvidersHandler,
    GetSamlProviderHandler,
    ListSsoOptionsHandler,
    StartSamlLoginHandler,
    ConsumeSamlResponseHandler,
  ],
})
export class SsoModule {
  static register(options: { imports?: ModuleMetadata['imports']; teams?: SsoTeamsProvider }): DynamicModule {
    return {
      module: SsoModule,
      imports: options.imports ?? [],
      providers: options.teams ? [{ provide: SSO_TEAMS, ...options.teams } as Provider] : [],
    };
  }
}
