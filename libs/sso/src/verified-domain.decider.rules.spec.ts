import { deciderSpec } from '#testing';
import {
  emailDomainOf,
  MAX_DOMAINS_PER_ORGANIZATION,
  normalizeDomain,
  verifiedDomainNames,
  verifiedDomainsDecider,
  verifiedDomainsStream,
  type VerifiedDomainsCommand,
} from './verified-domain.decider';
import type { VerifiedDomainEvent } from './verified-domain.events';

/** The verified-domains decider: its stream, the wording of its refusals, and the limit's edge. */
const now = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(verifiedDomainsDecider);
const addedEvent = (domain: string, token = 't1'): VerifiedDomainEvent => ({
  type: 'VerifiedDomainAdded',
  data: { organizationId: 'o1', domain, token, addedAt: now },
});
const domains = (count: number): VerifiedDomainEvent[] => Array.from({ length: count }, (_, i) => addedEvent(`d${i}.example`));
const add = (domain: string): VerifiedDomainsCommand => ({ kind: 'AddVerifiedDomain', organizationId: 'o1', domain, token: 't1', now });
const byAdmin = (domain: string): VerifiedDomainsCommand => ({
  kind: 'VerifyDomainByAdmin',
  organizationId: 'o1',
  domain,
  token: 't9',
  now,
});

describe('verified domains decider: stream, refusals and the limit', () => {
  it("names an organization's stream by its id", () => {
    expect(verifiedDomainsStream('o1')).toBe('verifieddomains-o1');
  });

  it(`given ${MAX_DOMAINS_PER_ORGANIZATION} domains, when adding one more, then 409 saying the limit`, () => {
    spec
      .given(domains(MAX_DOMAINS_PER_ORGANIZATION))
      .when(add('one-more.example'))
      .thenFails(409, `an organization has at most ${MAX_DOMAINS_PER_ORGANIZATION} domains`);
  });

  it(`given ${MAX_DOMAINS_PER_ORGANIZATION} domains, when the service administrator verifies one more, then 409 saying the limit`, () => {
    spec
      .given(domains(MAX_DOMAINS_PER_ORGANIZATION))
      .when(byAdmin('one-more.example'))
      .thenFails(409, `an organization has at most ${MAX_DOMAINS_PER_ORGANIZATION} domains`);
  });

  it(`given one domain fewer than ${MAX_DOMAINS_PER_ORGANIZATION}, when adding one more, then it is added`, () => {
    spec
      .given(domains(MAX_DOMAINS_PER_ORGANIZATION - 1))
      .when(add('last.example'))
      .then([addedEvent('last.example')]);
  });

  it(`given one domain fewer than ${MAX_DOMAINS_PER_ORGANIZATION}, when the service administrator verifies one more, then it is added and verified`, () => {
    spec
      .given(domains(MAX_DOMAINS_PER_ORGANIZATION - 1))
      .when(byAdmin('last.example'))
      .then([
        addedEvent('last.example', 't9'),
        { type: 'VerifiedDomainConfirmed', data: { organizationId: 'o1', domain: 'last.example', method: 'admin', verifiedAt: now } },
      ]);
  });

  it('given a pending domain, when a TXT record with an old token is found, then 409 saying so', () => {
    spec
      .given([addedEvent('acme.io', 't2')])
      .when({ kind: 'ConfirmVerifiedDomainByDns', organizationId: 'o1', domain: 'acme.io', token: 't1', now })
      .thenFails(409, 'the TXT record found for acme.io carries an old token');
  });

  it('given no such domain, when removed, then 404 naming it', () => {
    spec.given([]).when({ kind: 'RemoveVerifiedDomain', organizationId: 'o1', domain: 'acme.io' }).thenFails(404, 'no domain acme.io');
  });

  it('given a confirmation of a domain the organization does not hold, then nothing is verified', () => {
    spec
      .given([{ type: 'VerifiedDomainConfirmed', data: { organizationId: 'o1', domain: 'acme.io', method: 'admin', verifiedAt: now } }])
      .thenState((state) => expect(verifiedDomainNames(state)).toEqual(new Set()));
  });
});

describe('domain names of requests and addresses', () => {
  it('trims the white space around a domain name', () => {
    expect(normalizeDomain('  Acme.IO. ')).toBe('acme.io');
  });

  it('finds no domain in a string without @, even one that is a domain name', () => {
    expect(emailDomainOf('acme.io')).toBeNull();
  });

  it('takes the domain after an @ that starts the address', () => {
    expect(emailDomainOf('@acme.io')).toBe('acme.io');
  });
});
