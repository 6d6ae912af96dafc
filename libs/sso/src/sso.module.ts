import { Module, type ClassProvider, type DynamicModule, type ExistingProvider, type FactoryProvider, type ModuleMetadata, type Provider, type ValueProvider } from '@nestjs/common';
import { IdentityModule } from '../../identity/src/identity.module';
import { OrganizationModule } from '../../organizations/src/organization.module';
import { SamlLoginCommands } from './saml-login';
import { SamlLoginController } from './saml-login.controller';
import { SamlProviderCommands } from './saml-provider.commands';
import { SamlProviderController } from './saml-provider.controller';
import { SamlProviderPresenter, SamlProviderQueries } from './saml-provider.queries';
import { SSO_TEAMS } from './sso-teams.port';
import { CLOCK, type Clock } from '../../platform/src/clock';
import { SAML_FAILURE_LIMITER, SamlFailureLimiter } from './saml-failure-limiter';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { VerifiedDomainCommands, VerifiedDomainQueries } from './verified-domain.commands';
import { AdminVerifiedDomainController, VerifiedDomainController } from './verified-domain.controller';
import { TXT_RESOLVER, txtResolver } from './verified-domain.dns';

/** How `SSO_TEAMS` is provided: any provider form but the token itself. */
export type SsoTeamsProvider = Omit<ClassProvider, 'provide'> | Omit<ValueProvider, 'provide'> | Omit<FactoryProvider, 'provide'> | Omit<ExistingProvider, 'provide'>;

/**
 * Single sign-on: SAML providers of organizations, their verified e-mail domains, and the SAML login. Needs `SSO_TEAMS`, which
 * `register` supplies, typically `SsoModule.register({ imports: [TeamsModule], teams: { useExisting: TeamsForSso } })`
 * (or from a global module when used as is).
 */
@Module({
  imports: [IdentityModule, OrganizationModule],
  controllers: [SamlProviderController, SamlLoginController, VerifiedDomainController, AdminVerifiedDomainController],
  providers: [
    SamlProviderCommands,
    SamlProviderQueries,
    SamlProviderPresenter,
    SamlLoginCommands,
    VerifiedDomainCommands,
    VerifiedDomainQueries,
    {
      provide: SAML_FAILURE_LIMITER,
      useFactory: (clock: Clock, config: AppConfig) => new SamlFailureLimiter(config.samlFailedLoginsPerMinute, clock),
      inject: [CLOCK, APP_CONFIG],
    },
    { provide: TXT_RESOLVER, useFactory: (config: AppConfig) => txtResolver(config.dnsServers), inject: [APP_CONFIG] },
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
