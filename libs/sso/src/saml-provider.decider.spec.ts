import { DomainError } from '../../platform/src/errors';
import type { SamlAssertionEvent, SamlIdentityEvent, SamlProviderEvent, SamlProviderSettings, SamlRefusalEvent, SamlRequestEvent } from './saml-provider.events';
import {
  loginSettings,
  nameIdHash,
  samlIdentityDecider,
  samlIdentityStream,
  samlRefusalDecider,
  samlAssertionDecider,
  samlAssertionStream,
  samlProviderDecider,
  samlRequestDecider,
  type SamlProviderCommand,
} from './saml-provider.decider';

const now = '2026-01-01T00:00:00.000Z';
const settings: SamlProviderSettings = {
  label: 'Okta',
  entityID: 'https://idp.example.test',
  certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
  ssoURL: 'https://idp.example.test/sso',
  defaultTeam: null,
  defaultRole: 'read',
};
const given = (events: SamlProviderEvent[]) => events.reduce(samlProviderDecider.evolve, samlProviderDecider.initialState());
const when = (events: SamlProviderEvent[], command: SamlProviderCommand) => samlProviderDecider.decide(command, given(events));

const created: SamlProviderEvent[] = [{ type: 'SamlProviderCreated', data: { providerId: 'p1', organizationId: 'o1', ...settings, createdAt: now } }];
const update = (changes: object, organizationId = 'o1'): SamlProviderCommand => ({ kind: 'UpdateSamlProvider', providerId: 'p1', organizationId, changes });

describe('SAML provider decider', () => {
  it('given nothing, when creating, then the provider is created with its settings', () => {
    expect(when([], { kind: 'CreateSamlProvider', providerId: 'p1', organizationId: 'o1', settings, now })).toEqual(created);
  });

  it('given a provider, when creating it again (even deleted), then 409', () => {
    const command: SamlProviderCommand = { kind: 'CreateSamlProvider', providerId: 'p1', organizationId: 'o1', settings, now };
    expect(when(created, command)).toEqual(DomainError.conflict('SAML provider p1 already exists'));
    expect(when([...created, { type: 'SamlProviderDeleted', data: { providerId: 'p1', organizationId: 'o1' } }], command)).toMatchObject({ status: 409 });
  });

  it('given a provider, when changing settings, then only the changed ones are recorded', () => {
    expect(when(created, update({ label: 'Okta', ssoURL: 'https://idp.example.test/sso2', defaultRole: null, defaultTeam: null }))).toEqual([
      { type: 'SamlProviderUpdated', data: { providerId: 'p1', organizationId: 'o1', changes: { ssoURL: 'https://idp.example.test/sso2', defaultRole: null } } },
    ]);
  });

  it('given a provider, when nothing would change, then no event', () => {
    expect(when(created, update({ label: 'Okta', entityID: 'https://idp.example.test' }))).toEqual([]);
    expect(when(created, update({}))).toEqual([]);
  });

  it('given a changed provider, then later decisions and login settings see the change', () => {
    const events: SamlProviderEvent[] = [...created, { type: 'SamlProviderUpdated', data: { providerId: 'p1', organizationId: 'o1', changes: { certificate: null } } }];
    expect(given(events).settings.certificate).toBeNull();
    expect(when(events, update({ certificate: null }))).toEqual([]);
    expect(loginSettings('p1', given(events))).toBeNull();
  });

  it('given a provider of another organization, or none, when changing or deleting it, then 404', () => {
    expect(when(created, update({ label: 'X' }, 'o2'))).toEqual(DomainError.notFound('no SAML provider p1'));
    expect(when([], update({ label: 'X' }))).toMatchObject({ status: 404 });
    expect(when(created, { kind: 'DeleteSamlProvider', providerId: 'p1', organizationId: 'o2' })).toMatchObject({ status: 404 });
  });

  it('given a provider, when deleted, then it is gone: deleting or changing it again is 404', () => {
    const deleted = when(created, { kind: 'DeleteSamlProvider', providerId: 'p1', organizationId: 'o1' });
    expect(deleted).toEqual([{ type: 'SamlProviderDeleted', data: { providerId: 'p1', organizationId: 'o1' } }]);
    const events = [...created, ...(deleted as SamlProviderEvent[])];
    expect(when(events, { kind: 'DeleteSamlProvider', providerId: 'p1', organizationId: 'o1' })).toMatchObject({ status: 404 });
    expect(when(events, update({ label: 'X' }))).toMatchObject({ status: 404 });
    expect(loginSettings('p1', given(events))).toBeNull();
  });

  it('given a complete provider, then its login settings; without an SSO URL or certificate, none', () => {
    expect(loginSettings('p1', given(created))).toEqual({
      providerId: 'p1',
      organizationId: 'o1',
      entityID: 'https://idp.example.test',
      certificate: settings.certificate,
      ssoURL: 'https://idp.example.test/sso',
      defaultTeam: null,
      defaultRole: 'read',
    });
    const withoutUrl: SamlProviderEvent[] = [{ type: 'SamlProviderCreated', data: { providerId: 'p1', organizationId: 'o1', ...settings, ssoURL: null, createdAt: now } }];
    expect(loginSettings('p1', given(withoutUrl))).toBeNull();
  });
});

describe('SAML request decider', () => {
  const issued: SamlRequestEvent[] = [{ type: 'SamlRequestIssued', data: { requestId: '_r1', providerId: 'p1', issuedAt: now } }];
  const state = (events: SamlRequestEvent[]) => events.reduce(samlRequestDecider.evolve, samlRequestDecider.initialState());

  it('given nothing, when issuing, then the request is recorded for its provider', () => {
    expect(samlRequestDecider.decide({ kind: 'IssueSamlRequest', requestId: '_r1', providerId: 'p1', issuedAt: now }, state([]))).toEqual(issued);
    expect(state(issued)).toEqual({ issued: { providerId: 'p1', issuedAt: now }, consumed: false });
  });

  it('given an issued request, when issuing the same id again, then 409', () => {
    expect(samlRequestDecider.decide({ kind: 'IssueSamlRequest', requestId: '_r1', providerId: 'p1', issuedAt: now }, state(issued))).toMatchObject({ status: 409 });
  });

  const consume = (requestId = '_r1', overrides: object = {}) =>
    ({ kind: 'ConsumeSamlRequest' as const, requestId, providerId: 'p1', now: '2026-01-01T00:10:00.000Z', ttlMs: 3_600_000, ...overrides });

  it('given an issued request, when answered, then it is consumed', () => {
    const consumed = samlRequestDecider.decide(consume(), state(issued)) as SamlRequestEvent[];
    expect(consumed).toEqual([{ type: 'SamlRequestConsumed', data: { requestId: '_r1', providerId: 'p1' } }]);
    expect(state([...issued, ...consumed]).consumed).toBe(true);
  });

  it('given a consumed request, when answered again, then 403 already answered (only one answer wins)', () => {
    const consumed: SamlRequestEvent[] = [...issued, { type: 'SamlRequestConsumed', data: { requestId: '_r1', providerId: 'p1' } }];
    expect(samlRequestDecider.decide(consume(), state(consumed))).toEqual(DomainError.forbidden('the login request was already answered'));
  });

  it('given a request never issued, when answered, then 404 and no event', () => {
    expect(samlRequestDecider.decide(consume('_r2'), state([]))).toMatchObject({ status: 404 });
  });

  it("given a request of another provider, when answered at this provider's ACS, then 404", () => {
    expect(samlRequestDecider.decide(consume('_r1', { providerId: 'p2' }), state(issued))).toMatchObject({ status: 404 });
  });

  it('given a request older than its time to live, when answered, then 403', () => {
    expect(samlRequestDecider.decide(consume('_r1', { now: '2026-01-01T01:00:00.000Z' }), state(issued))).toEqual(DomainError.forbidden('the login request has expired'));
  });
});

describe('SAML assertion decider', () => {
  const state = (events: SamlAssertionEvent[]) => events.reduce(samlAssertionDecider.evolve, samlAssertionDecider.initialState());
  const consume = { kind: 'ConsumeSamlAssertion' as const, assertionId: '_a1', providerId: 'p1' };

  it('given an unused assertion, when consumed, then it is recorded', () => {
    expect(samlAssertionDecider.decide(consume, state([]))).toEqual([{ type: 'SamlAssertionConsumed', data: { assertionId: '_a1', providerId: 'p1' } }]);
  });

  it('given a used assertion, when consumed again, then 409 (a replay)', () => {
    expect(samlAssertionDecider.decide(consume, state([{ type: 'SamlAssertionConsumed', data: { assertionId: '_a1', providerId: 'p1' } }]))).toEqual(
      DomainError.conflict('this SAML assertion was already used'),
    );
  });

  it('names assertion streams by the hash of the id, whatever characters the identity provider used', () => {
    expect(samlAssertionStream('id with spaces/and:colons')).toMatch(/^samlassertion-[0-9a-f]{64}$/);
    expect(samlAssertionStream('a')).not.toBe(samlAssertionStream('b'));
  });
});

describe('SAML identity (NameID binding) decider', () => {
  const state = (events: SamlIdentityEvent[]) => events.reduce(samlIdentityDecider.evolve, samlIdentityDecider.initialState());
  const bind = (userId: string) => ({ kind: 'BindSamlIdentity' as const, providerId: 'p1', organizationId: 'o1', nameIdHash: 'h1', userId, basis: 'verified-domain' as const, now });
  const bound: SamlIdentityEvent[] = [
    { type: 'SamlIdentityBound', data: { providerId: 'p1', organizationId: 'o1', nameIdHash: 'h1', userId: 'u1', basis: 'verified-domain', boundAt: now } },
  ];

  it('given an unbound NameID, when bound, then it names the user', () => {
    expect(samlIdentityDecider.decide(bind('u1'), state([]))).toEqual(bound);
    expect(state(bound).binding).toEqual({ providerId: 'p1', organizationId: 'o1', userId: 'u1', basis: 'verified-domain', boundAt: now });
  });

  it('given a NameID bound to the user, when bound again, then nothing changes', () => {
    expect(samlIdentityDecider.decide(bind('u1'), state(bound))).toEqual([]);
  });

  it('given a NameID bound to a user, when bound to another, then 409: it is never rebound', () => {
    expect(samlIdentityDecider.decide(bind('u2'), state(bound))).toMatchObject({ status: 409 });
  });

  it('names binding streams by a hash of provider and NameID, whatever characters the NameID has', () => {
    expect(samlIdentityStream('p1', 'CN=Ada, O=Acme/\u0000')).toMatch(/^samlidentity-[0-9a-f]{64}$/);
    expect(samlIdentityStream('p1', 'ada')).not.toBe(samlIdentityStream('p2', 'ada'));
    expect(nameIdHash('ada@acme.io')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('SAML refusal decider', () => {
  it('records every refused login with hashes and the e-mail domain, never the assertion', () => {
    const command = {
      kind: 'RecordSamlLoginRefusal' as const,
      providerId: 'p1',
      organizationId: 'o1',
      reason: 'identity-not-allowed' as const,
      nameIdHash: 'h1',
      emailDomain: 'victim.example',
      now,
    };
    const refused = samlRefusalDecider.decide(command, samlRefusalDecider.initialState()) as SamlRefusalEvent[];
    expect(refused).toEqual([
      { type: 'SamlLoginRefused', data: { providerId: 'p1', organizationId: 'o1', reason: 'identity-not-allowed', nameIdHash: 'h1', emailDomain: 'victim.example', refusedAt: now } },
    ]);
    expect(samlRefusalDecider.decide(command, refused.reduce(samlRefusalDecider.evolve, samlRefusalDecider.initialState()))).toHaveLength(1);
  });
});
