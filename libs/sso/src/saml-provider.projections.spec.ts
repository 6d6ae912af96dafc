import type { RecordedEvent } from '../../event-store/src/event-store.port';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import { SAML_PROVIDERS, samlProviderProjection } from './saml-provider.projections';
import { ssoAuditCatalog } from './sso.audit';

const now = '2026-01-01T00:00:00.000Z';
let position = 0;
const recorded = (streamId: string, revision: number, type: string, data: object): RecordedEvent => ({
  id: `e${++position}`,
  streamId,
  revision,
  position: BigInt(position),
  type,
  data,
  metadata: {},
  recordedAt: now,
});
const created = (providerId: string, label: string) => ({
  providerId,
  organizationId: 'o1',
  label,
  entityID: null,
  certificate: null,
  ssoURL: null,
  defaultTeam: null,
  defaultRole: 'read',
  createdAt: now,
});
const history = [
  recorded('samlprovider-p1', 0, 'SamlProviderCreated', created('p1', 'Okta')),
  recorded('samlprovider-p2', 0, 'SamlProviderCreated', created('p2', 'Entra')),
  recorded('samlprovider-p1', 1, 'SamlProviderUpdated', { providerId: 'p1', organizationId: 'o1', changes: { label: 'Okta SSO', ssoURL: 'https://idp.example.test/sso', defaultRole: null } }),
  recorded('samlprovider-p2', 1, 'SamlProviderDeleted', { providerId: 'p2', organizationId: 'o1' }),
];

describe('SAML provider projection', () => {
  const apply = (store: MemoryReadStore, events: RecordedEvent[]) =>
    store.transaction(async (tx) => {
      for (const event of events) await samlProviderProjection.apply(event, tx);
    });
  const documents = async (store: MemoryReadStore) => (await store.collection(SAML_PROVIDERS).find({}, { limit: 100 })).items;

  it('given providers created, changed and deleted, then one document per remaining provider with its latest settings and revision', async () => {
    const store = new MemoryReadStore();
    await apply(store, history);
    expect(await documents(store)).toEqual([
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
    ]);
  });

  it('given the same events applied twice, then the documents are unchanged', async () => {
    const once = new MemoryReadStore();
    await apply(once, history);
    const twice = new MemoryReadStore();
    await apply(twice, history);
    await apply(twice, history);
    expect(await documents(twice)).toEqual(await documents(once));
  });

  it('ignores the login streams (requests, assertions)', () => {
    expect(samlProviderProjection.handles).not.toContain('SamlRequestIssued');
    expect(samlProviderProjection.handles).not.toContain('SamlAssertionConsumed');
  });
});

describe('SSO audit catalog', () => {
  it('describes provider changes as saml_provider.* actions on the organization, and logins not at all', () => {
    expect(ssoAuditCatalog.SamlProviderCreated(history[0])).toEqual({
      action: 'saml_provider.created',
      organizationId: 'o1',
      target: { type: 'saml-provider', id: 'p1', label: 'Okta' },
    });
    expect(ssoAuditCatalog.SamlProviderUpdated(history[2])).toEqual({
      action: 'saml_provider.updated',
      organizationId: 'o1',
      target: { type: 'saml-provider', id: 'p1', label: 'Okta SSO' },
    });
    expect(ssoAuditCatalog.SamlProviderDeleted(history[3])).toEqual({ action: 'saml_provider.deleted', organizationId: 'o1', target: { type: 'saml-provider', id: 'p2' } });
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
    const refused = recorded('samlrefusals-p1', 0, 'SamlLoginRefused', {
      providerId: 'p1',
      organizationId: 'o1',
      reason: 'identity-not-allowed',
      nameIdHash: 'h',
      emailDomain: 'victim.example',
      refusedAt: now,
    });
    expect(ssoAuditCatalog.SamlLoginRefused(refused)).toEqual({ action: 'saml_login.refused', organizationId: 'o1', target: { type: 'saml-provider', id: 'p1' } });
  });

  it('shows domain verification as verified_domain.*', () => {
    const confirmed = recorded('verifieddomains-o1', 1, 'VerifiedDomainConfirmed', { organizationId: 'o1', domain: 'acme.io', method: 'admin', verifiedAt: now });
    expect(ssoAuditCatalog.VerifiedDomainConfirmed(confirmed)).toEqual({
      action: 'verified_domain.verified',
      organizationId: 'o1',
      target: { type: 'verified-domain', id: 'acme.io', label: 'acme.io' },
    });
  });
});
