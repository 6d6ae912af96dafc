import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import { hostnameShapeProblem, inVerifiedDomain } from './site.hostnames';
import type { SiteHostnameEvent } from './site.events';

export const siteHostnameStream = (hostname: string) => `sitehostname-${hostname}`;

export interface SiteHostnameState {
  holder: string | null;
}

export type SiteHostnameCommand =
  /** `verifiedDomains`: the domains the site's organization has verified (looked up by the handler). */
  | { kind: 'ClaimSiteHostname'; hostname: string; siteId: string; organizationId: string; verifiedDomains: readonly string[] }
  | { kind: 'ReleaseSiteHostname'; hostname: string; siteId: string };

/**
 * One custom hostname names one site at a time: claimed before the site takes it, released when the
 * site lets it go. Only a host name (no IP literal) in a domain the site's organization verified
 * may be claimed, so no organization can take, or block, another's name.
 */
export const siteHostnameDecider: Decider<SiteHostnameCommand, SiteHostnameEvent, SiteHostnameState> = {
  initialState: () => ({ holder: null }),
  evolve: (_state, event) => ({ holder: event.type === 'SiteHostnameClaimed' ? event.data.siteId : null }),
  decide(command, state) {
    if (command.kind === 'ClaimSiteHostname') {
      const shape = hostnameShapeProblem(command.hostname);
      if (shape !== null) return DomainError.invalid(shape);
      if (!inVerifiedDomain(command.hostname, command.verifiedDomains)) {
        return DomainError.forbidden(
          `hostname ${command.hostname} is not in a domain organization ${command.organizationId} has verified: verify the domain (POST /v1/orgs/${command.organizationId}/verified-domains) first`,
        );
      }
      if (state.holder === command.siteId) return [];
      if (state.holder !== null) return DomainError.conflict(`hostname '${command.hostname}' is taken by another site`);
      return [{ type: 'SiteHostnameClaimed', data: { hostname: command.hostname, siteId: command.siteId } }];
    }
    if (state.holder !== command.siteId) return [];
    return [{ type: 'SiteHostnameReleased', data: { hostname: command.hostname, siteId: command.siteId } }];
  },
};
