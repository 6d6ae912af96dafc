import { Module } from '@nestjs/common';
import { samlLoginCommandHandlers } from './saml-login';
import { SamlLoginController } from './saml-login.controller';
import { samlProviderCommandHandlers } from './saml-provider.commands';
import { SamlProviderController } from './saml-provider.controller';
import { SamlProviderPresenter, samlProviderQueryHandlers } from './saml-provider.queries';
import { CLOCK, type Clock } from '#platform/clock';
import { SAML_FAILURE_LIMITER, SamlFailureLimiter } from './saml-failure-limiter';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { verifiedDomainCommandHandlers } from './verified-domain.commands';
import { verifiedDomainQueryHandlers } from './verified-domain.queries';
import { VerifiedDomainsForSites } from './sso.provides';
import { AdminVerifiedDomainController, VerifiedDomainController } from './verified-domain.controller';
import { TXT_RESOLVER, txtResolver } from './verified-domain.dns';

/**
 * Single sign-on: SAML providers of organizations, their verified e-mail domains, and the SAML login.
 * Its ports (`ssoContext.needs`) come bound from the composition root.
 */
@Module({
  controllers: [SamlProviderController, SamlLoginController, VerifiedDomainController, AdminVerifiedDomainController],
  providers: [
    SamlProviderPresenter,
    ...samlProviderCommandHandlers,
    ...samlProviderQueryHandlers,
    ...samlLoginCommandHandlers,
    ...verifiedDomainCommandHandlers,
    ...verifiedDomainQueryHandlers,
    VerifiedDomainsForSites,
    {
      provide: SAML_FAILURE_LIMITER,
      useFactory: (clock: Clock, config: AppConfig) => new SamlFailureLimiter(config.samlFailedLoginsPerMinute, clock),
      inject: [CLOCK, APP_CONFIG],
    },
    { provide: TXT_RESOLVER, useFactory: (config: AppConfig) => txtResolver(config.dnsServers), inject: [APP_CONFIG] },
  ],
  exports: [VerifiedDomainsForSites],
})
export class SsoModule {}
