import { DomainError } from '../../platform/src/errors';
import type { SamlAssertionEvent, SamlProviderEvent, SamlProviderSettings, SamlRequestEvent } from './saml-provider.events';
import {
  loginSettings,
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

  it('given an issued request, when answered, then it is consumed once; answering it again or an unknown one changes nothing', () => {
    const consumed = samlRequestDecider.decide({ kind: 'ConsumeSamlRequest', requestId: '_r1' }, state(issued)) as SamlRequestEvent[];
    expect(consumed).toEqual([{ type: 'SamlRequestConsumed', data: { requestId: '_r1', providerId: 'p1' } }]);
    expect(state([...issued, ...consumed]).consumed).toBe(true);
    expect(samlRequestDecider.decide({ kind: 'ConsumeSamlRequest', requestId: '_r1' }, state([...issued, ...consumed]))).toEqual([]);
    expect(samlRequestDecider.decide({ kind: 'ConsumeSamlRequest', requestId: '_r2' }, state([]))).toEqual([]);
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
