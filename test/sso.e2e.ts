/**
 * Single sign-on through HTTP against the embedded service: SAML providers
 * (`/v1/orgs/{organizationId}/saml`, every limit of the interface document, admins only), the public
 * `/v1/orgs/{organizationId}/sso` list, and real SAML logins: `GET /v1/sso/saml/{providerId}/start`
 * redirects to the identity provider with an AuthnRequest; a test identity provider (an RSA key
 * and a self-signed certificate made with node-forge, responses signed with xml-crypto) answers it,
 * and the form-encoded POST to `/v1/sso/saml/{providerId}/acs` logs the user in, or is refused with
 * 401 when the response is tampered with, unsigned, expired, for another audience or destination,
 * or replayed.
 */
import { authnRequestOf, FakeIdp, generateKeyPair, type ResponseOptions } from '../libs/sso/src/testing/fake-idp';
import { cleanUpServices, expectError, startService, type Response, type RunningService, type UserObject } from './support/service';

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const SSO_URL = 'https://idp.example.test/app/sso/saml';

let counter = 0;
const unique = () => `${process.pid.toString(36)}${Date.now().toString(36)}${(++counter).toString(36)}`;
const uniqueEmail = (label: string, domain = 'acme.example.com') => `${label}-${unique()}@${domain}`;
const minutes = (n: number) => new Date(Date.now() + n * 60_000);

interface Caller {
  user: { id: string };
  token: string;
}

interface SamlProvider {
  object: 'saml-provider';
  id: string;
  label: string;
  ssoURL?: string;
  entityID?: string;
  certificate?: string;
  defaultTeam?: { object: 'team'; id: string; title: string };
  defaultRole: string | null;
  createdAt: string;
  status: string;
  service: { acsURL: string; startURL: string; entityID: string };
  urls: { location: string };
}

let service: RunningService;
/** Admin of `organizationId`. */
let ada: Caller;
/** `edit` member of `organizationId`. */
let eve: Caller & { email: string };
/** In no organization of ada's; admin of `otherOrganizationId`. */
let mallory: Caller;
let organizationId: string;
let otherOrganizationId: string;
let idp: FakeIdp;

beforeAll(async () => {
  service = await startService();
  idp = new FakeIdp('https://idp.example.test/metadata');
  ada = await service.createUser(uniqueEmail('ada'), 'Ada Admin');
  mallory = await service.createUser(uniqueEmail('mallory'), 'Mallory');
  organizationId = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Acme' } })).body.id;
  otherOrganizationId = (await service.request('POST', '/v1/orgs', { token: mallory.token, body: { title: 'Elsewhere' } })).body.id;
  const eveEmail = uniqueEmail('eve');
  const invited = await service.request('POST', `/v1/orgs/${organizationId}/invites`, { token: ada.token, body: { emails: [{ email: eveEmail, role: 'edit' }] } });
  expect(invited.status).toBe(200);
  const eveId = invited.body.users[0] as string;
  const issued = await service.request('POST', `/v1/admin/users/${eveId}/tokens`, { token: service.adminToken });
  expect(issued.status).toBe(201);
  eve = { user: { id: eveId }, token: issued.body.token, email: eveEmail };
});

afterAll(cleanUpServices);

// ---- helpers --------------------------------------------------------------------------------------

const saml = (organization = organizationId, suffix = '') => `/v1/orgs/${organization}/saml${suffix}`;
const create = (body: unknown, token = ada.token, organization = organizationId) => service.request('POST', saml(organization), { token, body });
const patch = (providerId: string, body: unknown, token = ada.token, headers?: Record<string, string>) =>
  service.request('PATCH', saml(organizationId, `/${providerId}`), { token, body, ...(headers ? { headers } : {}) });

function created(response: Response): SamlProvider {
  expect({ status: response.status, body: response.body }).toEqual({ status: 201, body: expect.objectContaining({ object: 'saml-provider' }) });
  return response.body;
}

function ok(response: Response): SamlProvider {
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: expect.objectContaining({ object: 'saml-provider' }) });
  return response.body;
}

/** A complete provider for the test identity provider. */
async function createLoginProvider(overrides: Record<string, unknown> = {}): Promise<SamlProvider> {
  return created(await create({ label: 'Test IdP', entityID: idp.entityID, certificate: idp.certificate, ssoURL: SSO_URL, ...overrides }));
}

/** `GET /start` as a browser would (no token), without following the redirect (`service.request` would). */
async function getStart(providerId: string, query = ''): Promise<{ status: number; location: string | null; cacheControl: string | null }> {
  const response = await fetch(`${service.url}/v1/sso/saml/${providerId}/start${query}`, { redirect: 'manual', signal: AbortSignal.timeout(15_000) });
  await response.arrayBuffer();
  return { status: response.status, location: response.headers.get('location'), cacheControl: response.headers.get('cache-control') };
}

/** A login's first step: the redirect and the AuthnRequest it carries. */
async function startLogin(provider: SamlProvider, relayState?: string): Promise<{ location: string; requestId: string }> {
  const { status, location } = await getStart(provider.id, relayState === undefined ? '' : `?RelayState=${encodeURIComponent(relayState)}`);
  expect({ status, location }).toEqual({ status: 302, location: expect.stringMatching(/^https:\/\/idp\.example\.test\//) });
  return { location: location!, requestId: authnRequestOf(location!).id };
}

/** The identity provider's answer to a new login through the provider. */
async function answer(provider: SamlProvider, options: Partial<ResponseOptions> & { nameID: string }): Promise<string> {
  const { requestId } = await startLogin(provider);
  return idp.response({ audience: provider.service.entityID, acsURL: provider.service.acsURL, inResponseTo: requestId, ...options });
}

/** The browser's form POST to the ACS (SAML HTTP-POST binding). */
const postToAcs = (provider: SamlProvider, fields: Record<string, string>) =>
  service.request('POST', `/v1/sso/saml/${provider.id}/acs`, { rawBody: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' });

// ---- providers ------------------------------------------------------------------------------------

describe('POST /v1/orgs/{organizationId}/saml', () => {
  it('creates a provider with only a label: 201, defaults, our service URLs from PUBLIC_URL, an ETag', async () => {
    const response = await create({ label: 'Okta' });
    const provider = created(response);
    expect(response.headers.etag).toMatch(/^"\d+"$/);
    expect(provider).toEqual({
      object: 'saml-provider',
      id: expect.stringMatching(ID),
      label: 'Okta',
      defaultRole: 'read',
      createdAt: expect.any(String),
      status: 'active',
      service: {
        entityID: `${service.url}/v1/sso/saml/${provider.id}`,
        startURL: `${service.url}/v1/sso/saml/${provider.id}/start`,
        acsURL: `${service.url}/v1/sso/saml/${provider.id}/acs`,
      },
      urls: { location: `${service.url}/v1/orgs/${organizationId}/saml/${provider.id}` },
    });
    expect(new Date(provider.createdAt).toISOString()).toBe(provider.createdAt);
  });

  it('creates a complete provider; the certificate is kept as one PEM block', async () => {
    const provider = await createLoginProvider({ defaultRole: null });
    expect(provider).toMatchObject({ label: 'Test IdP', entityID: idp.entityID, ssoURL: SSO_URL, defaultRole: null });
    expect(provider.certificate).toBe(idp.certificate.replace(/\r\n/g, '\n').trim());
    expect(provider.defaultTeam).toBeUndefined();
  });

  it('accepts the certificate as the bare base64 body identity-provider metadata shows', async () => {
    const body = idp.certificate.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    expect(created(await create({ label: 'Bare', certificate: body })).certificate).toBe(idp.certificate.replace(/\r\n/g, '\n').trim());
  });

  it('enforces label 1..30, required', async () => {
    expect(created(await create({ label: 'x' })).label).toBe('x');
    expect(created(await create({ label: 'l'.repeat(30) })).label).toBe('l'.repeat(30));
    expectError(await create({ label: '' }), 400, /label/);
    expectError(await create({ label: 'l'.repeat(31) }), 400, /label/);
    expectError(await create({}), 400, /label/);
    expectError(await create({ label: null }), 400, /label/);
    expectError(await create({ label: 42 }), 400, /label/);
  });

  it('enforces entityID max 1024', async () => {
    expect(created(await create({ label: 'E', entityID: `urn:${'e'.repeat(1020)}` })).entityID).toHaveLength(1024);
    expectError(await create({ label: 'E', entityID: `urn:${'e'.repeat(1021)}` }), 400, /entityID/);
  });

  it('enforces certificate max 10000 and a parseable X.509 PEM', async () => {
    expectError(await create({ label: 'C', certificate: 'c'.repeat(10001) }), 400, /certificate/);
    const padded = `${idp.certificate}${'\n'.repeat(10001 - idp.certificate.length)}`;
    expect(padded).toHaveLength(10001);
    expectError(await create({ label: 'C', certificate: padded }), 400, /certificate/);
    expectError(await create({ label: 'C', certificate: 'not a certificate' }), 400, /certificate/);
    expectError(await create({ label: 'C', certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }), 400, /certificate/);
    const key = generateKeyPair().privateKey;
    expectError(await create({ label: 'C', certificate: key }), 400, /certificate/);
  });

  it('enforces ssoURL: an http(s) URL, max 2048', async () => {
    const url2048 = `https://idp.example.test/${'u'.repeat(2048 - 'https://idp.example.test/'.length)}`;
    expect(created(await create({ label: 'U', ssoURL: url2048 })).ssoURL).toBe(url2048);
    expectError(await create({ label: 'U', ssoURL: `${url2048}u` }), 400, /ssoURL/);
    expectError(await create({ label: 'U', ssoURL: 'not a url' }), 400, /ssoURL/);
    expectError(await create({ label: 'U', ssoURL: 'ftp://idp.example.test/sso' }), 400, /ssoURL/);
    expectError(await create({ label: 'U', ssoURL: 'idp.example.test/sso' }), 400, /ssoURL/);
  });

  it('enforces defaultTeam (a team of the organization) and defaultRole (a role or null)', async () => {
    expectError(await create({ label: 'T', defaultTeam: 'noSuchTeam' }), 400, /defaultTeam/);
    expectError(await create({ label: 'T', defaultTeam: 'not/an/id' }), 400, /defaultTeam/);
    expectError(await create({ label: 'T', defaultRole: 'owner' }), 400, /defaultRole/);
    expect(created(await create({ label: 'T', defaultRole: 'review' })).defaultRole).toBe('review');
  });

  it('refuses unknown members and non-JSON bodies', async () => {
    expectError(await create({ label: 'X', acsURL: 'https://evil.example.test' }), 400, /acsURL/);
    expectError(await service.request('POST', saml(), { token: ada.token, rawBody: 'label=X', contentType: 'application/x-www-form-urlencoded' }), 415);
  });

  it('is for admins: 403 for other members, 404 outside the organization, 401 without a token', async () => {
    expectError(await create({ label: 'Mine' }, eve.token), 403, /admin/);
    expectError(await create({ label: 'Mine' }, mallory.token), 404);
    expectError(await service.request('POST', saml(), { body: { label: 'Mine' } }), 401);
  });
});

describe('GET, PATCH, DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
  it('lists the providers, paginated, oldest first', async () => {
    const response = await service.request('GET', `${saml()}?limit=2`, { token: ada.token });
    expect(response.status).toBe(200);
    expect(response.body.items).toHaveLength(2);
    expect(response.body.count).toBeGreaterThan(2);
    expect(response.body.next.page).toEqual(expect.any(String));
    const rest = await service.request('GET', `${saml()}?limit=1000&page=${encodeURIComponent(response.body.next.page)}`, { token: ada.token });
    expect(rest.body.items).toHaveLength(response.body.count - 2);
    const all = [...response.body.items, ...rest.body.items] as SamlProvider[];
    expect(all.every((p) => p.object === 'saml-provider')).toBe(true);
    expect(all.map((p) => p.createdAt)).toEqual([...all.map((p) => p.createdAt)].sort());
    expectError(await service.request('GET', `${saml()}?limit=0`, { token: ada.token }), 400, /limit/);
  });

  it('reads one provider with its ETag; 404 for unknown ones and for another organization’s', async () => {
    const provider = created(await create({ label: 'Read me' }));
    const response = await service.request('GET', saml(organizationId, `/${provider.id}`), { token: ada.token });
    expect(ok(response)).toEqual(provider);
    expect(response.headers.etag).toBe('"0"');
    expectError(await service.request('GET', saml(organizationId, '/noSuchProvider'), { token: ada.token }), 404, /noSuchProvider/);
    const theirs = created(await create({ label: 'Theirs' }, mallory.token, otherOrganizationId));
    expectError(await service.request('GET', saml(organizationId, `/${theirs.id}`), { token: ada.token }), 404);
    expectError(await service.request('GET', saml(otherOrganizationId, `/${theirs.id}`), { token: ada.token }), 404);
  });

  it('is for admins: reading, changing and deleting are 403 for other members and 404 outside', async () => {
    const provider = created(await create({ label: 'Guarded' }));
    for (const token of [eve.token, mallory.token]) {
      const status = token === eve.token ? 403 : 404;
      expectError(await service.request('GET', saml(), { token }), status);
      expectError(await service.request('GET', saml(organizationId, `/${provider.id}`), { token }), status);
      expectError(await patch(provider.id, { label: 'Taken' }, token), status);
      expectError(await service.request('DELETE', saml(organizationId, `/${provider.id}`), { token }), status);
    }
    expectError(await service.request('GET', saml()), 401);
  });

  it('changes only what PATCH names, with the same limits; null clears a setting', async () => {
    const provider = await createLoginProvider();
    const renamed = ok(await patch(provider.id, { label: 'Renamed', defaultRole: 'comment' }));
    expect(renamed).toEqual({ ...provider, label: 'Renamed', defaultRole: 'comment' });
    const cleared = ok(await patch(provider.id, { ssoURL: null, entityID: null }));
    expect(cleared.ssoURL).toBeUndefined();
    expect(cleared.entityID).toBeUndefined();
    expect(cleared.certificate).toBe(provider.certificate);
    expect(ok(await patch(provider.id, {}))).toEqual(cleared);
    expectError(await patch(provider.id, { label: '' }), 400, /label/);
    expectError(await patch(provider.id, { label: 'l'.repeat(31) }), 400, /label/);
    expectError(await patch(provider.id, { label: null }), 400, /label/);
    expectError(await patch(provider.id, { entityID: 'e'.repeat(1025) }), 400, /entityID/);
    expectError(await patch(provider.id, { certificate: 'c'.repeat(10001) }), 400, /certificate/);
    expectError(await patch(provider.id, { certificate: 'not a certificate' }), 400, /certificate/);
    expectError(await patch(provider.id, { ssoURL: 'not a url' }), 400, /ssoURL/);
    expectError(await patch(provider.id, { defaultTeam: 'noSuchTeam' }), 400, /defaultTeam/);
    expectError(await patch(provider.id, { defaultRole: 'owner' }), 400, /defaultRole/);
    expectError(await patch(provider.id, { status: 'inactive' }), 400, /status/);
    expectError(await patch('noSuchProvider', { label: 'X' }), 404);
  });

  it('honours If-Match: 412 when stale', async () => {
    const provider = created(await create({ label: 'Versioned' }));
    const current = await service.request('GET', saml(organizationId, `/${provider.id}`), { token: ada.token });
    const changed = await patch(provider.id, { label: 'V2' }, ada.token, { 'If-Match': current.headers.etag });
    expect(ok(changed).label).toBe('V2');
    expect(changed.headers.etag).toBe('"1"');
    expectError(await patch(provider.id, { label: 'V3' }, ada.token, { 'If-Match': current.headers.etag }), 412);
    expectError(await service.request('DELETE', saml(organizationId, `/${provider.id}`), { token: ada.token, headers: { 'If-Match': current.headers.etag } }), 412);
  });

  it('deletes: 204 with no body, then 404', async () => {
    const provider = created(await create({ label: 'Doomed' }));
    const deleted = await service.request('DELETE', saml(organizationId, `/${provider.id}`), { token: ada.token });
    expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: '' });
    expectError(await service.request('GET', saml(organizationId, `/${provider.id}`), { token: ada.token }), 404);
    expectError(await service.request('DELETE', saml(organizationId, `/${provider.id}`), { token: ada.token }), 404);
  });

  it('shows provider changes in the audit log as saml_provider.* by the admin', async () => {
    const provider = created(await create({ label: 'Audited' }));
    await patch(provider.id, { label: 'Audited 2' });
    await service.request('DELETE', saml(organizationId, `/${provider.id}`), { token: ada.token });
    const log = await service.request('GET', `/v1/orgs/${organizationId}/audit-events?limit=1000`, { token: ada.token });
    expect(log.status).toBe(200);
    const entries = (log.body.items as Array<{ action: string; target: { id: string }; actor: { type: string; id: string } }>).filter((e) => e.target.id === provider.id);
    expect(entries.map((e) => e.action).sort()).toEqual(['saml_provider.created', 'saml_provider.deleted', 'saml_provider.updated']);
    expect(entries.every((e) => e.actor.type === 'user' && e.actor.id === ada.user.id)).toBe(true);
  });
});

describe('GET /v1/orgs/{organizationId}/sso', () => {
  it('lists the providers ready for logins with only id, label and startURL, to anyone, even without a token', async () => {
    const organization = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Login page' } })).body.id as string;
    const ready = created(await create({ label: 'Ready', certificate: idp.certificate, ssoURL: SSO_URL }, ada.token, organization));
    created(await create({ label: 'Half done', ssoURL: SSO_URL }, ada.token, organization));
    for (const token of [undefined, ada.token, mallory.token]) {
      const response = await service.request('GET', `/v1/orgs/${organization}/sso`, { token });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: { items: [{ id: ready.id, label: 'Ready', startURL: `${service.url}/v1/sso/saml/${ready.id}/start` }] },
      });
    }
    expectError(await service.request('GET', '/v1/orgs/noSuchOrganization/sso'), 404);
  });
});

// ---- logins ---------------------------------------------------------------------------------------

describe('SAML login', () => {
  let provider: SamlProvider;
  let teamId: string;

  beforeAll(async () => {
    const team = await service.request('PUT', `/v1/orgs/${organizationId}/teams`, { token: ada.token, body: { title: 'SSO people' } });
    expect(team.status).toBe(201);
    teamId = team.body.id;
    provider = await createLoginProvider({ defaultRole: 'comment', defaultTeam: teamId });
    expect(provider.defaultTeam).toMatchObject({ object: 'team', id: teamId, title: 'SSO people' });
  });

  it('GET /start redirects to the ssoURL with a deflated AuthnRequest from our entity ID, and carries RelayState', async () => {
    const { location, requestId } = await startLogin(provider, '/docs/getting-started');
    expect(location.startsWith(`${SSO_URL}?SAMLRequest=`)).toBe(true);
    const request = authnRequestOf(location);
    expect(request.id).toBe(requestId);
    expect(request.relayState).toBe('/docs/getting-started');
    expect(request.xml).toContain(`AssertionConsumerServiceURL="${provider.service.acsURL}"`);
    expect(request.xml).toContain(`>${provider.service.entityID}</saml:Issuer>`);
    expect((await getStart(provider.id)).cacheControl).toBe('no-store');
    expectError(await service.request('GET', `/v1/sso/saml/${provider.id}/start?RelayState=${'r'.repeat(81)}`), 400, /RelayState/);
    expectError(await service.request('GET', `/v1/sso/saml/${provider.id}/start?next=/x`), 400, /next/);
  });

  it('a valid response logs a newcomer in: { user, token }, the token works, they are an SSO member with the default role, in the default team', async () => {
    const email = uniqueEmail('grace');
    const samlResponse = await answer(provider, { nameID: email, attributes: { displayName: 'Grace Hopper' } });
    const response = await postToAcs(provider, { SAMLResponse: samlResponse, RelayState: '/docs' });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 200,
      body: {
        user: { object: 'user', id: expect.stringMatching(ID), displayName: 'Grace Hopper', email, photoURL: null, urls: { location: expect.any(String) } },
        token: expect.any(String),
        relayState: '/docs',
      },
    });
    expect(response.headers['cache-control']).toBe('no-store');
    const user = response.body.user as UserObject;
    expect(ok200(await service.request('GET', '/v1/user', { token: response.body.token }))).toEqual(user);
    const member = await service.request('GET', `/v1/orgs/${organizationId}/members/${user.id}`, { token: ada.token });
    expect(member.status).toBe(200);
    expect(member.body).toMatchObject({ object: 'member', id: user.id, role: 'comment', sso: true, teams: 1 });
    const teamMembers = await service.request('GET', `/v1/orgs/${organizationId}/teams/${teamId}/members`, { token: ada.token });
    expect(teamMembers.body.items.map((item: { organization: { id: string } }) => item.organization.id)).toContain(user.id);
  });

  it('an existing member logging in keeps their role and becomes an SSO member', async () => {
    const response = await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: eve.email.toUpperCase() }) });
    expect(response.status).toBe(200);
    expect(response.body.user.id).toBe(eve.user.id);
    const member = await service.request('GET', `/v1/orgs/${organizationId}/members/${eve.user.id}`, { token: ada.token });
    expect(member.body).toMatchObject({ role: 'edit', sso: true });
  });

  it('takes the e-mail from an email attribute, and accepts a signed Response as well as a signed Assertion', async () => {
    const email = uniqueEmail('linus');
    const samlResponse = await answer(provider, { nameID: 'opaque-1234', nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', attributes: { email }, sign: 'response' });
    const response = await postToAcs(provider, { SAMLResponse: samlResponse });
    expect(response.status).toBe(200);
    expect(response.body.user.email).toBe(email);
    expect((await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: email, sign: 'both' }) })).body.user.email).toBe(email);
  });

  it('refuses a tampered response (changed after signing): 401', async () => {
    const { requestId } = await startLogin(provider);
    const xml = idp.responseXml({ audience: provider.service.entityID, acsURL: provider.service.acsURL, inResponseTo: requestId, nameID: uniqueEmail('honest') });
    const tampered = xml.replace(/honest-[^<]+/, 'ada@acme.example.com');
    expect(tampered).not.toBe(xml);
    expectError(await postToAcs(provider, { SAMLResponse: Buffer.from(tampered).toString('base64') }), 401, /not signed by the provider's certificate/);
  });

  it('refuses an unsigned response, and one signed by another key: 401', async () => {
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: uniqueEmail('unsigned'), sign: 'none' }) }), 401, /not signed/);
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: uniqueEmail('forged'), signingKey: generateKeyPair('Mallory') }) }), 401, /not signed/);
  });

  it('refuses an expired response and one not valid yet: 401', async () => {
    const expired = await answer(provider, { nameID: uniqueEmail('late'), issueInstant: minutes(-30), notBefore: minutes(-30), notOnOrAfter: minutes(-10) });
    expectError(await postToAcs(provider, { SAMLResponse: expired }), 401, /expired/);
    const early = await answer(provider, { nameID: uniqueEmail('early'), notBefore: minutes(10), notOnOrAfter: minutes(20) });
    expectError(await postToAcs(provider, { SAMLResponse: early }), 401, /not valid yet/);
  });

  it('refuses a response for another audience, another destination or another recipient: 401', async () => {
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: uniqueEmail('a'), audience: 'https://other.example.test/sp' }) }), 401, /Audience/);
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: uniqueEmail('d'), destination: 'https://other.example.test/acs' }) }), 401, /addressed to/);
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: uniqueEmail('r'), recipient: 'https://other.example.test/acs' }) }), 401, /recipient/);
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: uniqueEmail('i'), issuer: 'https://evil.example.test' }) }), 401, /issued by/);
  });

  it('refuses a replayed response: the same response twice, or its assertion inside the answer to a new request: 401', async () => {
    const email = uniqueEmail('replay');
    const samlResponse = await answer(provider, { nameID: email, assertionId: `_replay${unique()}` });
    expect((await postToAcs(provider, { SAMLResponse: samlResponse })).status).toBe(200);
    expectError(await postToAcs(provider, { SAMLResponse: samlResponse }), 401, /already answered/);
    const assertionId = `_again${unique()}`;
    expect((await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: email, assertionId }) })).status).toBe(200);
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: email, assertionId }) }), 401, /already used/);
  });

  it('refuses unsolicited responses and answers to requests of another provider: 401', async () => {
    const unsolicited = idp.response({ audience: provider.service.entityID, acsURL: provider.service.acsURL, inResponseTo: null, nameID: uniqueEmail('u') });
    expectError(await postToAcs(provider, { SAMLResponse: unsolicited }), 401, /start logins at/);
    const other = await createLoginProvider();
    const { requestId } = await startLogin(other);
    const crossed = idp.response({ audience: provider.service.entityID, acsURL: provider.service.acsURL, inResponseTo: requestId, nameID: uniqueEmail('x') });
    expectError(await postToAcs(provider, { SAMLResponse: crossed }), 401, /unknown, expired or already answered/);
  });

  it('answers malformed input with 400 or 401, never 500', async () => {
    expectError(await postToAcs(provider, {}), 400, /SAMLResponse/);
    expectError(await postToAcs(provider, { SAMLResponse: 'a', extra: 'b' }), 400, /extra/);
    for (const junk of ['%%%', 'bm90IHhtbA==', Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>').toString('base64')]) {
      expectError(await postToAcs(provider, { SAMLResponse: junk }), 401, /^invalid SAML response: /);
    }
    const repeated = await service.request('POST', `/v1/sso/saml/${provider.id}/acs`, { rawBody: 'SAMLResponse=a&SAMLResponse=b', contentType: 'application/x-www-form-urlencoded' });
    expectError(repeated, 400, /SAMLResponse/);
  });

  it('404 for unknown providers; 409 for /start of a provider without ssoURL or certificate', async () => {
    expectError(await service.request('GET', '/v1/sso/saml/noSuchProvider/start'), 404);
    expectError(await postToAcs({ ...provider, id: 'noSuchProvider' }, { SAMLResponse: 'x' }), 404);
    const incomplete = created(await create({ label: 'No cert', ssoURL: SSO_URL }));
    expectError(await service.request('GET', `/v1/sso/saml/${incomplete.id}/start`), 409, /ssoURL and a certificate/);
  });

  it('accepts form bodies on the ACS only: other routes answer 415', async () => {
    expectError(await service.request('POST', '/v1/orgs', { token: ada.token, rawBody: 'title=Formed', contentType: 'application/x-www-form-urlencoded' }), 415);
  });
});

function ok200(response: Response): unknown {
  expect(response.status).toBe(200);
  return response.body;
}
