import { deciderSpec } from '#testing';
import {
  emailDomainOf,
  MAX_DOMAINS_PER_ORGANIZATION,
  normalizeDomain,
  verifiedDomainNames,
  verifiedDomainsDecider,
  type VerifiedDomainsCommand,
} from './verified-domain.decider';
import type { VerifiedDomainEvent } from './verified-domain.events';

const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-01T01:00:00.000Z';
const spec = deciderSpec(verifiedDomainsDecider);

const added: VerifiedDomainEvent[] = [
  { type: 'VerifiedDomainAdded', data: { organizationId: 'o1', domain: 'acme.io', token: 't1', addedAt: now } },
];
const verifiedByDns: VerifiedDomainEvent[] = [
  ...added,
  { type: 'VerifiedDomainConfirmed', data: { organizationId: 'o1', domain: 'acme.io', method: 'dns-txt', verifiedAt: later } },
];
const removed: VerifiedDomainEvent[] = [
  ...verifiedByDns,
  { type: 'VerifiedDomainRemoved', data: { organizationId: 'o1', domain: 'acme.io' } },
];
const add = (domain: string, token = 't1'): VerifiedDomainsCommand => ({
  kind: 'AddVerifiedDomain',
  organizationId: 'o1',
  domain,
  token,
  now,
});
const confirm = (token = 't1', domain = 'acme.io'): VerifiedDomainsCommand => ({
  kind: 'ConfirmVerifiedDomainByDns',
  organizationId: 'o1',
  domain,
  token,
  now: later,
});
const byAdmin = (domain = 'acme.io'): VerifiedDomainsCommand => ({
  kind: 'VerifyDomainByAdmin',
  organizationId: 'o1',
  domain,
  token: 't9',
  now: later,
});
const remove: VerifiedDomainsCommand = { kind: 'RemoveVerifiedDomain', organizationId: 'o1', domain: 'acme.io' };

describe('verified domains decider', () => {
  it('given nothing, when adding a domain, then VerifiedDomainAdded with its token', () => {
    spec.given([]).when(add('acme.io')).then(added);
  });

  it('given an added domain, then it is pending with its token', () => {
    spec
      .given(added)
      .thenState((state) => expect(state.domains.get('acme.io')).toEqual({ token: 't1', addedAt: now, verifiedAt: null, method: null }));
  });

  it('given an added domain, then it is not verified yet', () => {
    spec.given(added).thenState((state) => expect(verifiedDomainNames(state)).toEqual(new Set()));
  });

  it('given a domain, when adding it again, then 409', () => {
    spec.given(added).when(add('acme.io', 't2')).thenFails(409, 'domain acme.io is already added');
  });

  describe(`given ${MAX_DOMAINS_PER_ORGANIZATION} domains`, () => {
    const full: VerifiedDomainEvent[] = Array.from({ length: MAX_DOMAINS_PER_ORGANIZATION }, (_, i) => ({
      type: 'VerifiedDomainAdded',
      data: { organizationId: 'o1', domain: `d${i}.example`, token: 't', addedAt: now },
    }));

    it('when adding one more, then 409', () => {
      spec.given(full).when(add('one-more.example')).thenFails(409);
    });

    it('when the service administrator verifies one more, then 409', () => {
      spec.given(full).when(byAdmin('one-more.example')).thenFails(409);
    });
  });

  it('given a pending domain, when its TXT record with the current token is found, then it is verified by dns-txt', () => {
    spec.given(added).when(confirm()).then(verifiedByDns.slice(1));
  });

  it('given a domain verified by DNS, then it is among the verified names', () => {
    spec.given(verifiedByDns).thenState((state) => expect(verifiedDomainNames(state)).toEqual(new Set(['acme.io'])));
  });

  it('given a pending domain, when a record with another token is found, then 409 (the domain was removed and added again meanwhile)', () => {
    spec.given(added).when(confirm('t0')).thenFails(409);
  });

  it('given a verified domain, when confirmed by DNS again, then nothing changes', () => {
    spec.given(verifiedByDns).when(confirm()).thenNothing();
  });

  it('given a verified domain, when the service administrator verifies it, then nothing changes', () => {
    spec.given(verifiedByDns).when(byAdmin()).thenNothing();
  });

  it('given no such domain, when confirming by DNS, then 404: nothing is verified that the organization did not add', () => {
    spec.given([]).when(confirm('t1', 'other.io')).thenFails(404, 'no domain other.io');
  });

  it('given a pending domain, when the service administrator verifies it, then it is verified by admin', () => {
    spec
      .given(added)
      .when(byAdmin())
      .then([{ type: 'VerifiedDomainConfirmed', data: { organizationId: 'o1', domain: 'acme.io', method: 'admin', verifiedAt: later } }]);
  });

  it('given no such domain, when the service administrator verifies it, then it is added and verified at once', () => {
    spec
      .given([])
      .when(byAdmin())
      .thenMatches([{ type: 'VerifiedDomainAdded' }, { type: 'VerifiedDomainConfirmed' }]);
  });

  it('given no such domain, when the service administrator verifies it, then the state holds it verified by admin', () => {
    spec
      .given([])
      .when(byAdmin())
      .thenState((state) =>
        expect(state.domains.get('acme.io')).toEqual({ token: 't9', addedAt: later, verifiedAt: later, method: 'admin' }),
      );
  });

  it('given a verified domain, when removed, then VerifiedDomainRemoved', () => {
    spec.given(verifiedByDns).when(remove).then(removed.slice(2));
  });

  it('given a removed domain, then it is no longer verified', () => {
    spec.given(removed).thenState((state) => expect(verifiedDomainNames(state)).toEqual(new Set()));
  });

  it('given a removed domain, when removed again, then 404', () => {
    spec.given(removed).when(remove).thenFails(404);
  });

  it.each(['__proto__', 'constructor'])('keys domains in a Map: given a domain, when confirming %s, then 404', (domain) => {
    spec.given(added).when(confirm('t1', domain)).thenFails(404);
  });
});

describe('domain names', () => {
  it('normalizes case and a trailing dot', () => {
    expect(normalizeDomain('Acme.IO.')).toBe('acme.io');
  });

  it('keeps punycode labels', () => {
    expect(normalizeDomain('xn--80ak6aa92e.com')).toBe('xn--80ak6aa92e.com');
  });

  it.each([
    'localhost',
    'acme..io',
    '-acme.io',
    'acme-.io',
    'ac_me.io',
    'acme.io/x',
    '',
    '__proto__',
    `${'a'.repeat(64)}.io`,
    `${'a.'.repeat(127)}io`,
    42,
  ])('refuses %p (single labels, bad characters, over-long names, not a string)', (bad) => {
    expect(normalizeDomain(bad)).toBeNull();
  });

  it("takes an e-mail address's domain, lower-case", () => {
    expect(emailDomainOf('Ada@Acme.IO')).toBe('acme.io');
  });

  it("takes the domain after an e-mail address's last @", () => {
    expect(emailDomainOf('"a@b"@acme.io')).toBe('acme.io');
  });

  it('finds no domain in an address without @', () => {
    expect(emailDomainOf('nobody')).toBeNull();
  });
});
