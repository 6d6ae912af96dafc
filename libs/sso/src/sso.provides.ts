/**
 * What single sign-on provides to other contexts: its implementations of ports they declare,
 * matched structurally so that the consumer does not import this context; the composition root
 * binds them. Each injects only the buses and dispatches one of the context's queries.
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ListVerifiedDomainNames } from './verified-domain.queries';

/** Implements sites' SITE_DOMAINS port: the domains an organization verified (a site's custom hostname must be in one). */
@Injectable()
export class VerifiedDomainsForSites {
  constructor(private readonly queryBus: QueryBus) {}

  /** Read from the organization's domain stream, as logins do: a domain removed stops counting at once. */
  verifiedDomains(organizationId: string): Promise<readonly string[]> {
    return this.queryBus.execute(new ListVerifiedDomainNames(organizationId));
  }
}
