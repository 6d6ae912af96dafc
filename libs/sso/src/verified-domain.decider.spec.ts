import { DomainError } from '../../platform/src/errors';
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
const given = (events: VerifiedDomainEvent[]) => events.reduce(verifiedDomainsDecider.evolve, verifiedDomainsDecider.initialState());
const when = (events: VerifiedDomainEvent[], command: VerifiedDomainsCommand) => verifiedDomainsDecider.decide(command, given(events));

const added: VerifiedDomainEvent[] = [{ type: 'VerifiedDomainAdded', data: { organizationId: 'o1', domain: 'acme.io', token: 't1', addedAt: now } }];
const verifiedByDns: VerifiedDomainEvent[] = [...added, { type: 'VerifiedDomainConfirmed', data: { organizationId: 'o1', domain: 'acme.io', method: 'dns-txt', verifiedAt: later } }];
const add = (domain: string, token = 't1'): VerifiedDomainsCommand => ({ kind: 'AddVerifiedDomain', organizationId: 'o1', domain, token, now });
const confirm = (token = 't1', domain = 'acme.io'): VerifiedDomainsCommand => ({ kind: 'ConfirmVerifiedDomainByDns', organizationId: 'o1', domain, token, now: later });
const byAdmin = (domain = 'acme.io'): VerifiedDomainsCommand => ({ kind: 'VerifyDomainByAdmin', organizationId: 'o1', domain, token: 't9', now: later });

describe('verified domains decider', () => {
  it('given nothing, when adding a domain, then it is pending with its token', () => {
    expect(when([], add('acme.io'))).toEqual(added);
    expect(given(added).domains.get('acme.io')).toEqual({ token: 't1', addedAt: now, verifiedAt: null, method: null });
    expect(verifiedDomainNames(given(added))).toEqual(new Set());
  });

  it('given a domain, when adding it again, then 409', () => {
    expect(when(added, add('acme.io', 't2'))).toEqual(DomainError.conflict('domain acme.io is already added'));
  });

  it(`given ${MAX_DOMAINS_PER_ORGANIZATION} domains, when adding one more, then 409`, () => {
    const full: VerifiedDomainEvent[] = Array.from({ length: MAX_DOMAINS_PER_ORGANIZATION }, (_, i) => ({
      type: 'VerifiedDomainAdded',
      data: { organizationId: 'o1', domain: `d${i}.example`, token: 't', addedAt: now },
    }));
    expect(when(full, add('one-more.example'))).toMatchObject({ status: 409 });
    expect(when(full, byAdmin('one-more.example'))).toMatchObject({ status: 409 });
  });

  it('given a pending domain, when its TXT record with the current token is found, then it is verified by dns-txt', () => {
    expect(when(added, confirm())).toEqual(verifiedByDns.slice(1));
    expect(verifiedDomainNames(given(verifiedByDns))).toEqual(new Set(['acme.io']));
  });

  it('given a pending domain, when a record with another token is found, then 409 (the domain was removed and added again meanwhile)', () => {
    expect(when(added, confirm('t0'))).toMatchObject({ status: 409 });
  });

  it('given a verified domain, when verified again, then nothing changes', () => {
    expect(when(verifiedByDns, confirm())).toEqual([]);
    expect(when(verifiedByDns, byAdmin())).toEqual([]);
  });

  it('given no such domain, when confirming by DNS, then 404: nothing is verified that the organization did not add', () => {
    expect(when([], confirm('t1', 'other.io'))).toEqual(DomainError.notFound('no domain other.io'));
  });

  it('given a pending domain, when the service administrator verifies it, then it is verified by admin', () => {
    expect(when(added, byAdmin())).toEqual([{ type: 'VerifiedDomainConfirmed', data: { organizationId: 'o1', domain: 'acme.io', method: 'admin', verifiedAt: later } }]);
  });

  it('given no such domain, when the service administrator verifies it, then it is added and verified at once', () => {
    const events = when([], byAdmin()) as VerifiedDomainEvent[];
    expect(events.map((e) => e.type)).toEqual(['VerifiedDomainAdded', 'VerifiedDomainConfirmed']);
    expect(given(events).domains.get('acme.io')).toEqual({ token: 't9', addedAt: later, verifiedAt: later, method: 'admin' });
  });

  it('given a verified domain, when removed, then it is gone and no longer verified', () => {
    const removed = when(verifiedByDns, { kind: 'RemoveVerifiedDomain', organizationId: 'o1', domain: 'acme.io' }) as VerifiedDomainEvent[];
    expect(removed).toEqual([{ type: 'VerifiedDomainRemoved', data: { organizationId: 'o1', domain: 'acme.io' } }]);
    expect(verifiedDomainNames(given([...verifiedByDns, ...removed]))).toEqual(new Set());
    expect(when([...verifiedByDns, ...removed], { kind: 'RemoveVerifiedDomain', organizationId: 'o1', domain: 'acme.io' })).toMatchObject({ status: 404 });
  });

  it('keys domains in a Map: names such as __proto__ or constructor are not there', () => {
    expect(when(added, confirm('t1', '__proto__'))).toMatchObject({ status: 404 });
    expect(when(added, confirm('t1', 'constructor'))).toMatchObject({ status: 404 });
  });
});

describe('domain names', () => {
  it('normalizes case and a trailing dot; refuses single labels, bad characters and over-long names', () => {
    expect(normalizeDomain('Acme.IO.')).toBe('acme.io');
    expect(normalizeDomain('xn--80ak6aa92e.com')).toBe('xn--80ak6aa92e.com');
    for (const bad of ['localhost', 'acme..io', '-acme.io', 'acme-.io', 'ac_me.io', 'acme.io/x', '', '__proto__', `${'a'.repeat(64)}.io`, `${'a.'.repeat(127)}io`, 42]) {
      expect(normalizeDomain(bad)).toBeNull();
    }
  });

  it("takes an e-mail address's domain after its last @, lower-case", () => {
    expect(emailDomainOf('Ada@Acme.IO')).toBe('acme.io');
    expect(emailDomainOf('"a@b"@acme.io')).toBe('acme.io');
    expect(emailDomainOf('nobody')).toBeNull();
  });
});
