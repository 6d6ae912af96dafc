import { deciderSpec } from '#testing';
import type {
  SamlIdentityEvent,
  SamlProviderEvent,
  SamlProviderSettings,
  SamlRefusalEvent,
  SamlRequestEvent,
} from './saml-provider.events';
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
const spec = deciderSpec(samlProviderDecider);

const created: SamlProviderEvent[] = [
  { type: 'SamlProviderCreated', data: { providerId: 'p1', organizationId: 'o1', ...settings, createdAt: now } },
];
const deleted: SamlProviderEvent[] = [...created, { type: 'SamlProviderDeleted', data: { providerId: 'p1', organizationId: 'o1' } }];
const withoutCertificate: SamlProviderEvent[] = [
  ...created,
  { type: 'SamlProviderUpdated', data: { providerId: 'p1', organizationId: 'o1', changes: { certificate: null } } },
];
const update = (changes: object, organizationId = 'o1'): SamlProviderCommand => ({
  kind: 'UpdateSamlProvider',
  providerId: 'p1',
  organizationId,
  changes,
});
const create: SamlProviderCommand = { kind: 'CreateSamlProvider', providerId: 'p1', organizationId: 'o1', settings, now };
const remove = (organizationId = 'o1'): SamlProviderCommand => ({ kind: 'DeleteSamlProvider', providerId: 'p1', organizationId });

describe('SAML provider decider', () => {
  it('given nothing, when creating, then the provider is created with its settings', () => {
    spec.given([]).when(create).then(created);
  });

  it('given a provider, when creating it again, then 409', () => {
    spec.given(created).when(create).thenFails(409, 'SAML provider p1 already exists');
  });

  it('given a deleted provider, when creating it again, then 409', () => {
    spec.given(deleted).when(create).thenFails(409);
  });

  it('given a provider, when changing settings, then only the changed ones are recorded', () => {
    spec
      .given(created)
      .when(update({ label: 'Okta', ssoURL: 'https://idp.example.test/sso2', defaultRole: null, defaultTeam: null }))
      .then([
        {
          type: 'SamlProviderUpdated',
          data: { providerId: 'p1', organizationId: 'o1', changes: { ssoURL: 'https://idp.example.test/sso2', defaultRole: null } },
        },
      ]);
  });

  it('given a provider, when setting the values it has, then no event', () => {
    spec
      .given(created)
      .when(update({ label: 'Okta', entityID: 'https://idp.example.test' }))
      .thenNothing();
  });

  it('given a provider, when changing nothing, then no event', () => {
    spec.given(created).when(update({})).thenNothing();
  });

  it('given a changed provider, then the state holds the change', () => {
    spec.given(withoutCertificate).thenState((state) => expect(state.settings.certificate).toBeNull());
  });

  it('given a changed provider, when changed to the same value, then no event (later decisions see the change)', () => {
    spec
      .given(withoutCertificate)
      .when(update({ certificate: null }))
      .thenNothing();
  });

  it('given a provider without certificate, then no login settings', () => {
    spec.given(withoutCertificate).thenState((state) => expect(loginSettings('p1', state)).toBeNull());
  });

  it('given a provider of another organization, when changing it, then 404', () => {
    spec
      .given(created)
      .when(update({ label: 'X' }, 'o2'))
      .thenFails(404, 'no SAML provider p1');
  });

  it('given no provider, when changing it, then 404', () => {
    spec
      .given([])
      .when(update({ label: 'X' }))
      .thenFails(404);
  });

  it('given a provider of another organization, when deleting it, then 404', () => {
    spec.given(created).when(remove('o2')).thenFails(404);
  });

  it('given a provider, when deleted, then SamlProviderDeleted', () => {
    spec.given(created).when(remove()).then(deleted.slice(1));
  });

  it('given a deleted provider, when deleted again, then 404', () => {
    spec.given(deleted).when(remove()).thenFails(404);
  });

  it('given a deleted provider, when changed, then 404', () => {
    spec
      .given(deleted)
      .when(update({ label: 'X' }))
      .thenFails(404);
  });

  it('given a deleted provider, then no login settings', () => {
    spec.given(deleted).thenState((state) => expect(loginSettings('p1', state)).toBeNull());
  });

  it('given a complete provider, then its login settings', () => {
    spec.given(created).thenState((state) =>
      expect(loginSettings('p1', state)).toEqual({
        providerId: 'p1',
        organizationId: 'o1',
        entityID: 'https://idp.example.test',
        certificate: settings.certificate,
        ssoURL: 'https://idp.example.test/sso',
        defaultTeam: null,
        defaultRole: 'read',
      }),
    );
  });

  it('given a provider without an SSO URL, then no login settings', () => {
    spec
      .given([{ type: 'SamlProviderCreated', data: { providerId: 'p1', organizationId: 'o1', ...settings, ssoURL: null, createdAt: now } }])
      .thenState((state) => expect(loginSettings('p1', state)).toBeNull());
  });
});

describe('SAML request decider', () => {
  const requests = deciderSpec(samlRequestDecider);
  const issued: SamlRequestEvent[] = [{ type: 'SamlRequestIssued', data: { requestId: '_r1', providerId: 'p1', issuedAt: now } }];
  const consumed: SamlRequestEvent[] = [...issued, { type: 'SamlRequestConsumed', data: { requestId: '_r1', providerId: 'p1' } }];
  const issue = { kind: 'IssueSamlRequest' as const, requestId: '_r1', providerId: 'p1', issuedAt: now };
  const consume = (requestId = '_r1', overrides: object = {}) => ({
    kind: 'ConsumeSamlRequest' as const,
    requestId,
    providerId: 'p1',
    now: '2026-01-01T00:10:00.000Z',
    ttlMs: 3_600_000,
    ...overrides,
  });

  it('given nothing, when issuing, then the request is recorded', () => {
    requests.given([]).when(issue).then(issued);
  });

  it('given an issued request, then the state holds its provider', () => {
    requests.given(issued).thenState((state) => expect(state).toEqual({ issued: { providerId: 'p1', issuedAt: now }, consumed: false }));
  });

  it('given an issued request, when issuing the same id again, then 409', () => {
    requests.given(issued).when(issue).thenFails(409);
  });

  it('given an issued request, when answered, then it is consumed', () => {
    requests.given(issued).when(consume()).then(consumed.slice(1));
  });

  it('given a consumed request, then the state says so', () => {
    requests.given(consumed).thenState((state) => expect(state.consumed).toBe(true));
  });

  it('given a consumed request, when answered again, then 403 already answered (only one answer wins)', () => {
    requests.given(consumed).when(consume()).thenFails(403, 'the login request was already answered');
  });

  it('given a request never issued, when answered, then 404 and no event', () => {
    requests.given([]).when(consume('_r2')).thenFails(404);
  });

  it("given a request of another provider, when answered at this provider's ACS, then 404", () => {
    requests
      .given(issued)
      .when(consume('_r1', { providerId: 'p2' }))
      .thenFails(404);
  });

  it('given a request older than its time to live, when answered, then 403', () => {
    requests
      .given(issued)
      .when(consume('_r1', { now: '2026-01-01T01:00:00.000Z' }))
      .thenFails(403, 'the login request has expired');
  });
});

describe('SAML assertion decider', () => {
  const assertions = deciderSpec(samlAssertionDecider);
  const consume = { kind: 'ConsumeSamlAssertion' as const, assertionId: '_a1', providerId: 'p1' };
  const consumed = [{ type: 'SamlAssertionConsumed' as const, data: { assertionId: '_a1', providerId: 'p1' } }];

  it('given an unused assertion, when consumed, then it is recorded', () => {
    assertions.given([]).when(consume).then(consumed);
  });

  it('given a used assertion, when consumed again, then 409 (a replay)', () => {
    assertions.given(consumed).when(consume).thenFails(409, 'this SAML assertion was already used');
  });

  it('names assertion streams by the hash of the id, whatever characters the identity provider used', () => {
    expect(samlAssertionStream('id with spaces/and:colons')).toMatch(/^samlassertion-[0-9a-f]{64}$/);
  });

  it('names different assertions’ streams differently', () => {
    expect(samlAssertionStream('a')).not.toBe(samlAssertionStream('b'));
  });
});

describe('SAML identity (NameID binding) decider', () => {
  const identities = deciderSpec(samlIdentityDecider);
  const bind = (userId: string) => ({
    kind: 'BindSamlIdentity' as const,
    providerId: 'p1',
    organizationId: 'o1',
    nameIdHash: 'h1',
    userId,
    basis: 'verified-domain' as const,
    now,
  });
  const bound: SamlIdentityEvent[] = [
    {
      type: 'SamlIdentityBound',
      data: { providerId: 'p1', organizationId: 'o1', nameIdHash: 'h1', userId: 'u1', basis: 'verified-domain', boundAt: now },
    },
  ];

  it('given an unbound NameID, when bound, then it names the user', () => {
    identities.given([]).when(bind('u1')).then(bound);
  });

  it('given a bound NameID, then the state holds the binding', () => {
    identities
      .given(bound)
      .thenState((state) =>
        expect(state.binding).toEqual({ providerId: 'p1', organizationId: 'o1', userId: 'u1', basis: 'verified-domain', boundAt: now }),
      );
  });

  it('given a NameID bound to the user, when bound again, then nothing changes', () => {
    identities.given(bound).when(bind('u1')).thenNothing();
  });

  it('given a NameID bound to a user, when bound to another, then 409: it is never rebound', () => {
    identities.given(bound).when(bind('u2')).thenFails(409);
  });

  it('names binding streams by a hash of provider and NameID, whatever characters the NameID has', () => {
    expect(samlIdentityStream('p1', 'CN=Ada, O=Acme/\u0000')).toMatch(/^samlidentity-[0-9a-f]{64}$/);
  });

  it('names the same NameID at two providers’ streams differently', () => {
    expect(samlIdentityStream('p1', 'ada')).not.toBe(samlIdentityStream('p2', 'ada'));
  });

  it('hashes NameIDs to hex SHA-256', () => {
    expect(nameIdHash('ada@acme.io')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('SAML refusal decider', () => {
  const refusals = deciderSpec(samlRefusalDecider);
  const command = {
    kind: 'RecordSamlLoginRefusal' as const,
    providerId: 'p1',
    organizationId: 'o1',
    reason: 'identity-not-allowed' as const,
    nameIdHash: 'h1',
    emailDomain: 'victim.example',
    now,
  };
  const refused: SamlRefusalEvent[] = [
    {
      type: 'SamlLoginRefused',
      data: {
        providerId: 'p1',
        organizationId: 'o1',
        reason: 'identity-not-allowed',
        nameIdHash: 'h1',
        emailDomain: 'victim.example',
        refusedAt: now,
      },
    },
  ];

  it('given nothing, when a login is refused, then it is recorded with hashes and the e-mail domain, never the assertion', () => {
    refusals.given([]).when(command).then(refused);
  });

  it('given a refusal recorded, when the same login is refused again, then it is recorded again (every refusal counts)', () => {
    refusals.given(refused).when(command).then(refused);
  });
});
