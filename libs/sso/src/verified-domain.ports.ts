import { Inject, Injectable } from '@nestjs/common';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { verifiedDomainNames, verifiedDomainsDecider, verifiedDomainsStream } from './verified-domain.decider';

/** Implements sites' SITE_DOMAINS port: the domains an organization verified (a site's custom hostname must be in one). */
@Injectable()
export class VerifiedDomainsForSites {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  /** Read from the organization's domain stream, as logins do: a domain removed stops counting at once. */
  async verifiedDomains(organizationId: string): Promise<readonly string[]> {
    const { state } = await this.commands.load(verifiedDomainsStream(organizationId), verifiedDomainsDecider);
    return [...verifiedDomainNames(state)];
  }
}
