import { DomainError } from '#platform/errors';
import type { Decider } from '#event-store/decider';
import type { DomainVerificationMethod, VerifiedDomainEvent } from './verified-domain.events';

export const verifiedDomainsStream = (organizationId: string) => `verifieddomains-${organizationId}`;
/** Enough for any organization; keeps the stream, the list and every login's check small. */
export const MAX_DOMAINS_PER_ORGANIZATION = 50;
/** Where the proof is published: a TXT record at `_docs-platform-verification.<domain>`. */
export const VERIFICATION_RECORD_PREFIX = '_docs-platform-verification';
export const VERIFICATION_VALUE_PREFIX = 'docs-platform-verification=';

export interface DomainVerificationState {
  token: string;
  addedAt: string;
  verifiedAt: string | null;
  method: DomainVerificationMethod | null;
}

/** By domain name: a Map, since the names come from requests. */
export interface VerifiedDomainsState {
  domains: ReadonlyMap<string, DomainVerificationState>;
}

export type VerifiedDomainsCommand =
  | { kind: 'AddVerifiedDomain'; organizationId: string; domain: string; token: string; now: string }
  /** The TXT record with `token` was found: the handler looked it up, the decider checks it is still the domain's token. */
  | { kind: 'ConfirmVerifiedDomainByDns'; organizationId: string; domain: string; token: string; now: string }
  /** The service administrator vouches for the domain: added (with `token`) if need be, and verified. */
  | { kind: 'VerifyDomainByAdmin'; organizationId: string; domain: string; token: string; now: string }
  | { kind: 'RemoveVerifiedDomain'; organizationId: string; domain: string };

/**
 * An organization's e-mail domains. Who may manage them (organization admins, or the service
 * administrator for VerifyDomainByAdmin) is checked by the handlers; the decider keeps each domain
 * once, at most MAX_DOMAINS_PER_ORGANIZATION, and verifies only a domain it holds.
 */
export const verifiedDomainsDecider: Decider<VerifiedDomainsCommand, VerifiedDomainEvent, VerifiedDomainsState> = {
  initialState: () => ({ domains: new Map() }),

  evolve(state, event) {
    const domains = new Map(state.domains);
    switch (event.type) {
      case 'VerifiedDomainAdded':
        domains.set(event.data.domain, { token: event.data.token, addedAt: event.data.addedAt, verifiedAt: null, method: null });
        break;
      case 'VerifiedDomainConfirmed': {
        const current = domains.get(event.data.domain);
        if (current) domains.set(event.data.domain, { ...current, verifiedAt: event.data.verifiedAt, method: event.data.method });
        break;
      }
      case 'VerifiedDomainRemoved':
        domains.delete(event.data.domain);
        break;
    }
    return { domains };
  },

  decide(command, state): VerifiedDomainEvent[] | DomainError {
    const { organizationId, domain } = command;
    const current = state.domains.get(domain);
    switch (command.kind) {
      case 'AddVerifiedDomain':
        if (current) return DomainError.conflict(`domain ${domain} is already added`);
        if (state.domains.size >= MAX_DOMAINS_PER_ORGANIZATION)
          return DomainError.conflict(`an organization has at most ${MAX_DOMAINS_PER_ORGANIZATION} domains`);
        return [{ type: 'VerifiedDomainAdded', data: { organizationId, domain, token: command.token, addedAt: command.now } }];
      case 'ConfirmVerifiedDomainByDns':
        if (!current) return DomainError.notFound(`no domain ${domain}`);
        if (current.verifiedAt !== null) return [];
        // The record found must carry the current token: one removed and added again has a new one.
        if (current.token !== command.token) return DomainError.conflict(`the TXT record found for ${domain} carries an old token`);
        return [{ type: 'VerifiedDomainConfirmed', data: { organizationId, domain, method: 'dns-txt', verifiedAt: command.now } }];
      case 'VerifyDomainByAdmin': {
        if (current?.verifiedAt) return [];
        const confirmed: VerifiedDomainEvent = {
          type: 'VerifiedDomainConfirmed',
          data: { organizationId, domain, method: 'admin', verifiedAt: command.now },
        };
        if (current) return [confirmed];
        if (state.domains.size >= MAX_DOMAINS_PER_ORGANIZATION)
          return DomainError.conflict(`an organization has at most ${MAX_DOMAINS_PER_ORGANIZATION} domains`);
        return [{ type: 'VerifiedDomainAdded', data: { organizationId, domain, token: command.token, addedAt: command.now } }, confirmed];
      }
      case 'RemoveVerifiedDomain':
        if (!current) return DomainError.notFound(`no domain ${domain}`);
        return [{ type: 'VerifiedDomainRemoved', data: { organizationId, domain } }];
    }
  },
};

/** The domains the organization verified. */
export function verifiedDomainNames(state: VerifiedDomainsState): ReadonlySet<string> {
  return new Set([...state.domains].filter(([, domain]) => domain.verifiedAt !== null).map(([name]) => name));
}

/** Lower-case domain name with at least two labels, or null. A trailing dot is dropped. */
export function normalizeDomain(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const domain = value.trim().toLowerCase().replace(/\.$/, '');
  return DOMAIN_NAME.test(domain) ? domain : null;
}

/** Labels of letters, digits and inner hyphens, 1..63 each, 253 in all; the last one starts with a letter. */
export const DOMAIN_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The domain of an e-mail address, lower-case; null without one. */
export function emailDomainOf(email: string): string | null {
  const at = email.lastIndexOf('@');
  return at < 0 ? null : normalizeDomain(email.slice(at + 1));
}
