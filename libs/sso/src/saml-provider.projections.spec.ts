import { inStream, projectionSpec, recordEvents } from '#testing';
import type { SamlProviderEvent } from './saml-provider.events';
import { SAML_PROVIDERS, samlProviderProjection } from './saml-provider.projections';
import { ssoAuditCatalog } from './sso.audit';

const now = '2026-01-01T00:00:00.000Z';
const spec = projectionSpec(samlProviderProjection);
const created = (providerId: string, label: string): SamlProviderEvent => ({
  type: 'SamlProviderCreated',
  data: {
    providerId,
    organizationId: 'o1',
    label,
    entityID: null,
    certificate: null,
    ssoURL: null,
    defaultTeam: null,
    defaultRole: 'read',
    createdAt: now,
  },
});
const history = [
  ...inStream('samlprovider-p1', [created('p1', 'Okta')]),
  ...inStream('samlprovider-p2', [created('p2', 'Entra')]),
  ...inStream('samlprovider-p1', [
    {
      type: 'SamlProviderUpdated',
      data: {
        providerId: 'p1',
        organizationId: 'o1',
        changes: { label: 'Okta SSO', ssoURL: 'https://idp.example.test/sso', defaultRole: null },
      },
    },
  ]),
  ...inStream('samlprovider-p2', [{ type: 'SamlProviderDeleted', data: { providerId: 'p2', organizationId: 'o1' } }]),
];

describe('SAML provider projection', () => {
  it('given providers created, changed and deleted, then one document per remaining provider with its latest settings and revision', async () => {
    await spec.given(history).then({
      [SAML_PROVIDERS]: [
        {
          _id: 'p1',
          _position: expect.any(String),
          organizationId: 'o1',
          label: 'Okta SSO',
          entityID: null,
          certificate: null,
          ssoURL: 'https://idp.example.test/sso',
          defaultTeam: null,
          defaultRole: null,
          createdAt: now,
          revision: 1,
        },
      ],
    });
  });

  it('given the same events applied twice, then the documents are unchanged', async () => {
    await spec.given(history).thenIdempotent();
  });

  it.each(['SamlRequestIssued', 'SamlAssertionConsumed'])('ignores the login streams: not %s', (type) => {
    expect(samlProviderProjection.handles).not.toContain(type);
  });
});

describe('SSO audit catalog', () => {
  const [providerCreated, , providerUpdated, providerDeleted] = recordEvents(history);

  it('describes a provider created as saml_provider.created on the organization, labelled', () => {
    expect(ssoAuditCatalog.SamlProviderCreated(providerCreated)).toEqual({
      action: 'saml_provider.created',
      organizationId: 'o1',
      target: { type: 'saml-provider', id: 'p1', label: 'Okta' },
    });
  });

  it('describes a provider changed as saml_provider.updated, with its new label', () => {
    expect(ssoAuditCatalog.SamlProviderUpdated(providerUpdated)).toEqual({
      action: 'saml_provider.updated',
      organizationId: 'o1',
      target: { type: 'saml-provider', id: 'p1', label: 'Okta SSO' },
    });
  });

  it('describes a provider deleted as saml_provider.deleted', () => {
    expect(ssoAuditCatalog.SamlProviderDeleted(providerDeleted)).toEqual({
      action: 'saml_provider.deleted',
      organizationId: 'o1',
      target: { type: 'saml-provider', id: 'p2' },
    });
  });

  it('describes provider, identity binding, refusal and domain events, and logins not at all', () => {
    expect(Object.keys(ssoAuditCatalog).sort()).toEqual([
      'SamlIdentityBound',
      'SamlLoginRefused',
      'SamlProviderCreated',
      'SamlProviderDeleted',
      'SamlProviderUpdated',
      'VerifiedDomainAdded',
      'VerifiedDomainConfirmed',
      'VerifiedDomainRemoved',
    ]);
  });

  it('shows refused logins to the organization, against the provider, without the identity in clear', () => {
    const [refused] = recordEvents(
      inStream('samlrefusals-p1', [
        {
          type: 'SamlLoginRefused',
          data: {
            providerId: 'p1',
            organizationId: 'o1',
            reason: 'identity-not-allowed',
            nameIdHash: 'h',
            emailDomain: 'victim.example',
            refusedAt: now,
          },
        },
      ]),
    );
    expect(ssoAuditCatalog.SamlLoginRefused(refused)).toEqual({
      action: 'saml_login.refused',
      organizationId: 'o1',
      target: { type: 'saml-provider', id: 'p1' },
    });
  });

  it('shows domain verification as verified_domain.*', () => {
    const [confirmed] = recordEvents(
      inStream('verifieddomains-o1', [
        { type: 'VerifiedDomainConfirmed', data: { organizationId: 'o1', domain: 'acme.io', method: 'admin', verifiedAt: now } },
      ]),
    );
    expect(ssoAuditCatalog.VerifiedDomainConfirmed(confirmed)).toEqual({
      action: 'verified_domain.verified',
      organizationId: 'o1',
      target: { type: 'verified-domain', id: 'acme.io', label: 'acme.io' },
    });
  });
});
