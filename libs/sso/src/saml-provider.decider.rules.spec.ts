import { createHash } from 'node:crypto';
import { deciderSpec } from '#testing';
import type { SamlIdentityEvent, SamlProviderEvent, SamlRequestEvent } from './saml-provider.events';
import {
  nameIdHash,
  samlAssertionStream,
  samlIdentityDecider,
  samlIdentityStream,
  samlProviderDecider,
  samlProviderStream,
  samlRefusalStream,
  samlRequestDecider,
  samlRequestStream,
} from './saml-provider.decider';

/** The SAML deciders' stream names (known answers: they are where the log keeps each aggregate) and the wording of their refusals. */
const now = '2026-01-01T00:00:00.000Z';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('SAML streams', () => {
  it('names the provider, request and refusal streams by their ids', () => {
    expect(samlProviderStream('p1')).toBe('samlprovider-p1');
    expect(samlRequestStream('_r1')).toBe('samlrequest-_r1');
    expect(samlRefusalStream('p1')).toBe('samlrefusals-p1');
  });

  it('names an assertion stream by the SHA-256 of its id', () => {
    expect(samlAssertionStream('_a1')).toBe(`samlassertion-${sha256('_a1')}`);
  });

  it('names a binding stream by the SHA-256 of the provider and the NameID on two lines', () => {
    expect(samlIdentityStream('p1', 'ada')).toBe(`samlidentity-${sha256('p1\nada')}`);
  });

  it('hashes a NameID with SHA-256', () => {
    expect(nameIdHash('ada@acme.io')).toBe(sha256('ada@acme.io'));
  });
});

describe('SAML request and identity deciders: refusals', () => {
  const issued: SamlRequestEvent[] = [{ type: 'SamlRequestIssued', data: { requestId: '_r1', providerId: 'p1', issuedAt: now } }];

  it('given an issued request, when issuing the same id again, then 409 naming it', () => {
    deciderSpec(samlRequestDecider)
      .given(issued)
      .when({ kind: 'IssueSamlRequest', requestId: '_r1', providerId: 'p1', issuedAt: now })
      .thenFails(409, 'SAML request _r1 already exists');
  });

  it('given a request never issued, when answered, then 404 naming it', () => {
    deciderSpec(samlRequestDecider)
      .given([])
      .when({ kind: 'ConsumeSamlRequest', requestId: '_r2', providerId: 'p1', now, ttlMs: 60_000 })
      .thenFails(404, 'no login request _r2');
  });

  it('given a request, when answered just before its time to live runs out, then it is consumed', () => {
    deciderSpec(samlRequestDecider)
      .given(issued)
      .when({ kind: 'ConsumeSamlRequest', requestId: '_r1', providerId: 'p1', now: '2026-01-01T00:00:59.999Z', ttlMs: 60_000 })
      .then([{ type: 'SamlRequestConsumed', data: { requestId: '_r1', providerId: 'p1' } }]);
  });

  it('given a request, when answered exactly at its time to live, then 403 expired', () => {
    deciderSpec(samlRequestDecider)
      .given(issued)
      .when({ kind: 'ConsumeSamlRequest', requestId: '_r1', providerId: 'p1', now: '2026-01-01T00:01:00.000Z', ttlMs: 60_000 })
      .thenFails(403, 'the login request has expired');
  });

  it('given a NameID bound to a user, when bound to another, then 409 saying it already signs in another user', () => {
    const bound: SamlIdentityEvent[] = [
      {
        type: 'SamlIdentityBound',
        data: { providerId: 'p1', organizationId: 'o1', nameIdHash: 'h1', userId: 'u1', basis: 'verified-domain', boundAt: now },
      },
    ];
    deciderSpec(samlIdentityDecider)
      .given(bound)
      .when({
        kind: 'BindSamlIdentity',
        providerId: 'p1',
        organizationId: 'o1',
        nameIdHash: 'h1',
        userId: 'u2',
        basis: 'verified-domain',
        now,
      })
      .thenFails(409, 'this identity of the SAML provider already signs in another user');
  });
});

describe('SAML provider decider: an update leaves out what it does not name', () => {
  it('given a provider, when an update names a setting as undefined and the rest unchanged, then nothing', () => {
    const created: SamlProviderEvent[] = [
      {
        type: 'SamlProviderCreated',
        data: {
          providerId: 'p1',
          organizationId: 'o1',
          label: 'Okta',
          entityID: 'https://idp.example.test',
          certificate: null,
          ssoURL: null,
          defaultTeam: null,
          defaultRole: 'read',
          createdAt: now,
        },
      },
    ];
    deciderSpec(samlProviderDecider)
      .given(created)
      .when({ kind: 'UpdateSamlProvider', providerId: 'p1', organizationId: 'o1', changes: { label: 'Okta', entityID: undefined } })
      .thenNothing();
  });
});
