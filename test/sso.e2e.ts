/**
 * Single sign-on through HTTP against the embedded service: SAML providers
 * (`/v1/orgs/{organizationId}/saml`, every documented limit, admins only), the public
 * `/v1/orgs/{organizationId}/sso` list, and real SAML logins: `GET /v1/sso/saml/{providerId}/start`
 * redirects to the identity provider with an AuthnRequest; a test identity provider (an RSA key
 * and a self-signed certificate made with node-forge, responses signed with xml-crypto) answers it,
 * and the form-encoded POST to `/v1/sso/saml/{providerId}/acs` logs the user in, or is refused with
 * 401 when the response is tampered with, unsigned, expired, for another audience or destination,
 * or replayed. A provider signs in only identities bound to it, consenting members and addresses in
 * the organization's verified domains (`/v1/orgs/{organizationId}/verified-domains`, checked
 * through a local DNS responder); everyone else is refused with 403 and shows in the audit log.
 */
import { request as httpRequest } from 'node:http';
import { authnRequestOf, FakeIdp, generateKeyPair, type ResponseOptions } from '#testing/fake-idp';
import { FakeDns } from '#testing/fake-dns';
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
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
let dns: FakeDns;
/** Failed ACS attempts allowed per client address and minute: above what the other tests' refusals add up to from 127.0.0.1. */
const FAILED_LOGINS_PER_MINUTE = 100;

beforeAll(async () => {
  dns = await FakeDns.start();
  service = await startService({ env: { DNS_SERVERS: dns.server, SAML_FAILED_LOGINS_PER_MINUTE: String(FAILED_LOGINS_PER_MINUTE) } });
  idp = new FakeIdp('https://idp.example.test/metadata');
  ada = await service.createUser(uniqueEmail('ada'), 'Ada Admin');
  mallory = await service.createUser(uniqueEmail('mallory'), 'Mallory');
  organizationId = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Acme' } })).body.id;
  otherOrganizationId = (await service.request('POST', '/v1/orgs', { token: mallory.token, body: { title: 'Elsewhere' } })).body.id;
  const eveEmail = uniqueEmail('eve');
  const eveUser = await service.createUser(eveEmail, 'Eve');
  await joinAs(service, organizationId, ada.token, [{ token: eveUser.token, email: eveEmail, role: 'edit' }]);
  eve = { user: { id: eveUser.user.id }, token: eveUser.token, email: eveEmail };
});

afterAll(async () => {
  await cleanUpServices();
  await dns?.close();
});

// ---- helpers --------------------------------------------------------------------------------------

const saml = (organization = organizationId, suffix = '') => `/v1/orgs/${organization}/saml${suffix}`;
const create = (body: unknown, token = ada.token, organization = organizationId) =>
  service.request('POST', saml(organization), { token, body });
const patch = (providerId: string, body: unknown, token = ada.token, headers?: Record<string, string>) =>
  service.request('PATCH', saml(organizationId, `/${providerId}`), { token, body, ...(headers ? { headers } : {}) });

function created(response: Response): SamlProvider {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 201,
    body: expect.objectContaining({ object: 'saml-provider' }),
  });
  return response.body;
}

function ok(response: Response): SamlProvider {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 200,
    body: expect.objectContaining({ object: 'saml-provider' }),
  });
  return response.body;
}

/** A complete provider for the test identity provider. */
async function createLoginProvider(overrides: Record<string, unknown> = {}, organization = organizationId): Promise<SamlProvider> {
  return created(
    await create(
      { label: 'Test IdP', entityID: idp.entityID, certificate: idp.certificate, ssoURL: SSO_URL, ...overrides },
      ada.token,
      organization,
    ),
  );
}

/** `GET /start` as a browser would (no token), without following the redirect (`service.request` would). */
async function getStart(providerId: string, query = ''): Promise<{ status: number; location: string | null; cacheControl: string | null }> {
  const response = await fetch(`${service.url}/v1/sso/saml/${providerId}/start${query}`, {
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  });
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
async function answer(provider: SamlProvider, options: Partial<ResponseOptions> & { nameID: string }, signer = idp): Promise<string> {
  const { requestId } = await startLogin(provider);
  return signer.response({ audience: provider.service.entityID, acsURL: provider.service.acsURL, inResponseTo: requestId, ...options });
}

/** The browser's form POST to the ACS (SAML HTTP-POST binding). */
const postToAcs = (provider: SamlProvider, fields: Record<string, string>) =>
  service.request('POST', `/v1/sso/saml/${provider.id}/acs`, {
    rawBody: new URLSearchParams(fields).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });

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
      ssoURL: 'about:blank',
      entityID: '',
      certificate: '',
      defaultRole: 'read',
      createdAt: expect.any(String),
      status: 'pending',
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
    expectError(
      await create({ label: 'C', certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }),
      400,
      /certificate/,
    );
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
    expectError(
      await service.request('POST', saml(), { token: ada.token, rawBody: 'label=X', contentType: 'application/x-www-form-urlencoded' }),
      415,
    );
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
    const rest = await service.request('GET', `${saml()}?limit=1000&page=${encodeURIComponent(response.body.next.page)}`, {
      token: ada.token,
    });
    expect(rest.body.items).toHaveLength(response.body.count - 2);
    const all = [...response.body.items, ...rest.body.items] as SamlProvider[];
    expect(all.every((p) => p.object === 'saml-provider')).toBe(true);
    expect(all.map((p) => p.createdAt)).toEqual([...all.map((p) => p.createdAt)].sort());
    expectError(await service.request('GET', `${saml()}?limit=-1`, { token: ada.token }), 400, /limit/);
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
    expect(cleared).toMatchObject({ ssoURL: 'about:blank', entityID: '', status: 'pending' });
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
    expectError(
      await service.request('DELETE', saml(organizationId, `/${provider.id}`), {
        token: ada.token,
        headers: { 'If-Match': current.headers.etag },
      }),
      412,
    );
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
    const entries = (log.body.items as Array<{ action: string; target: { id: string }; actor: { type: string; id: string } }>).filter(
      (e) => e.target.id === provider.id,
    );
    expect(entries.map((e) => e.action).sort()).toEqual(['saml_provider.created', 'saml_provider.deleted', 'saml_provider.updated']);
    expect(entries.every((e) => e.actor.type === 'user' && e.actor.id === ada.user.id)).toBe(true);
  });
});

describe("the platform's SAML provider shape", () => {
  it("answers a provider with only a label in the platform's schema: '' for unset texts, about:blank for the unset SSO URL", async () => {
    const provider = created(await create({ label: 'Bare bones' }));
    expect(provider).toMatchObject({ ssoURL: 'about:blank', entityID: '', certificate: '' });
    expect(platformSchemaProblem('OrganizationSAMLProvider', provider)).toBeNull();
  });

  it('is pending until it has the SSO URL and the certificate a login needs, then active', async () => {
    const provider = created(await create({ label: 'Getting there', ssoURL: SSO_URL }));
    expect(provider.status).toBe('pending');
    expect(ok(await patch(provider.id, { certificate: idp.certificate })).status).toBe('active');
  });

  it('takes its own answer for unset settings back as unset: a provider sent back as read changes nothing', async () => {
    const provider = created(await create({ label: 'Round trip' }));
    const { ssoURL, entityID, certificate, label } = provider;
    const response = await patch(provider.id, { label, ssoURL, entityID, certificate });
    expect(ok(response)).toEqual(provider);
    expect(response.headers.etag).toBe('"0"');
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
    // The logins below are of addresses in acme.example.com: the organization may sign them in once it verified the domain.
    expect((await verifyByAdmin(organizationId, 'acme.example.com')).status).toBe(200);
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

  it('a valid response logs a newcomer in (an address in a verified domain): { user, token }, the token works, they are an SSO member with the default role, in the default team', async () => {
    const email = uniqueEmail('grace');
    const samlResponse = await answer(provider, { nameID: email, attributes: { displayName: 'Grace Hopper' } });
    const response = await postToAcs(provider, { SAMLResponse: samlResponse, RelayState: '/docs' });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 200,
      body: {
        user: { object: 'user', id: expect.stringMatching(ID), displayName: 'Grace Hopper', email, urls: { location: expect.any(String) } },
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

  it('an existing member (an address in a verified domain) logging in keeps their role and becomes an SSO member', async () => {
    const response = await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: eve.email.toUpperCase() }) });
    expect(response.status).toBe(200);
    expect(response.body.user.id).toBe(eve.user.id);
    const member = await service.request('GET', `/v1/orgs/${organizationId}/members/${eve.user.id}`, { token: ada.token });
    expect(member.body).toMatchObject({ role: 'edit', sso: true });
  });

  it('takes the e-mail from an email attribute, and accepts a signed Response as well as a signed Assertion', async () => {
    const email = uniqueEmail('linus');
    const samlResponse = await answer(provider, {
      nameID: 'opaque-1234',
      nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      attributes: { email },
      sign: 'response',
    });
    const response = await postToAcs(provider, { SAMLResponse: samlResponse });
    expect(response.status).toBe(200);
    expect(response.body.user.email).toBe(email);
    expect((await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: email, sign: 'both' }) })).body.user.email).toBe(
      email,
    );
  });

  it('refuses a tampered response (changed after signing): 401', async () => {
    const { requestId } = await startLogin(provider);
    const xml = idp.responseXml({
      audience: provider.service.entityID,
      acsURL: provider.service.acsURL,
      inResponseTo: requestId,
      nameID: uniqueEmail('honest'),
    });
    const tampered = xml.replace(/honest-[^<]+/, 'ada@acme.example.com');
    expect(tampered).not.toBe(xml);
    expectError(
      await postToAcs(provider, { SAMLResponse: Buffer.from(tampered).toString('base64') }),
      401,
      /not signed by the provider's certificate/,
    );
  });

  it('refuses an unsigned response, and one signed by another key: 401', async () => {
    expectError(
      await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: uniqueEmail('unsigned'), sign: 'none' }) }),
      401,
      /not signed/,
    );
    expectError(
      await postToAcs(provider, {
        SAMLResponse: await answer(provider, { nameID: uniqueEmail('forged'), signingKey: generateKeyPair('Mallory') }),
      }),
      401,
      /not signed/,
    );
  });

  it('refuses an expired response and one not valid yet: 401', async () => {
    const expired = await answer(provider, {
      nameID: uniqueEmail('late'),
      issueInstant: minutes(-30),
      notBefore: minutes(-30),
      notOnOrAfter: minutes(-10),
    });
    expectError(await postToAcs(provider, { SAMLResponse: expired }), 401, /expired/);
    const early = await answer(provider, { nameID: uniqueEmail('early'), notBefore: minutes(10), notOnOrAfter: minutes(20) });
    expectError(await postToAcs(provider, { SAMLResponse: early }), 401, /not valid yet/);
  });

  it('refuses a response for another audience, another destination or another recipient: 401', async () => {
    expectError(
      await postToAcs(provider, {
        SAMLResponse: await answer(provider, { nameID: uniqueEmail('a'), audience: 'https://other.example.test/sp' }),
      }),
      401,
      /Audience/,
    );
    expectError(
      await postToAcs(provider, {
        SAMLResponse: await answer(provider, { nameID: uniqueEmail('d'), destination: 'https://other.example.test/acs' }),
      }),
      401,
      /addressed to/,
    );
    expectError(
      await postToAcs(provider, {
        SAMLResponse: await answer(provider, { nameID: uniqueEmail('r'), recipient: 'https://other.example.test/acs' }),
      }),
      401,
      /recipient/,
    );
    expectError(
      await postToAcs(provider, {
        SAMLResponse: await answer(provider, { nameID: uniqueEmail('i'), issuer: 'https://evil.example.test' }),
      }),
      401,
      /issued by/,
    );
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
    const unsolicited = idp.response({
      audience: provider.service.entityID,
      acsURL: provider.service.acsURL,
      inResponseTo: null,
      nameID: uniqueEmail('u'),
    });
    expectError(await postToAcs(provider, { SAMLResponse: unsolicited }), 401, /start logins at/);
    const other = await createLoginProvider();
    const { requestId } = await startLogin(other);
    const crossed = idp.response({
      audience: provider.service.entityID,
      acsURL: provider.service.acsURL,
      inResponseTo: requestId,
      nameID: uniqueEmail('x'),
    });
    expectError(await postToAcs(provider, { SAMLResponse: crossed }), 401, /unknown, expired or already answered/);
  });

  it('answers malformed input with 400 or 401, never 500', async () => {
    expectError(await postToAcs(provider, {}), 400, /SAMLResponse/);
    expectError(await postToAcs(provider, { SAMLResponse: 'a', extra: 'b' }), 400, /extra/);
    for (const junk of [
      '%%%',
      'bm90IHhtbA==',
      Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>').toString('base64'),
    ]) {
      expectError(await postToAcs(provider, { SAMLResponse: junk }), 401, /^invalid SAML response: /);
    }
    const repeated = await service.request('POST', `/v1/sso/saml/${provider.id}/acs`, {
      rawBody: 'SAMLResponse=a&SAMLResponse=b',
      contentType: 'application/x-www-form-urlencoded',
    });
    expectError(repeated, 400, /SAMLResponse/);
  });

  it('404 for unknown providers; 409 for /start of a provider without ssoURL or certificate', async () => {
    expectError(await service.request('GET', '/v1/sso/saml/noSuchProvider/start'), 404);
    expectError(await postToAcs({ ...provider, id: 'noSuchProvider' }, { SAMLResponse: 'x' }), 404);
    const incomplete = created(await create({ label: 'No cert', ssoURL: SSO_URL }));
    expectError(await service.request('GET', `/v1/sso/saml/${incomplete.id}/start`), 409, /ssoURL and a certificate/);
  });

  it('accepts form bodies on the ACS only: other routes answer 415', async () => {
    expectError(
      await service.request('POST', '/v1/orgs', {
        token: ada.token,
        rawBody: 'title=Formed',
        contentType: 'application/x-www-form-urlencoded',
      }),
      415,
    );
  });
});

// ---- verified domains ------------------------------------------------------------------------------

describe('/v1/orgs/{organizationId}/verified-domains', () => {
  const domains = (organization: string, suffix = '') => `/v1/orgs/${organization}/verified-domains${suffix}`;
  let organization: string;

  beforeAll(async () => {
    organization = await newOrganization('Domains');
  });

  it('adds a pending domain (201) with a random TXT record to publish, and lists it', async () => {
    const domain = `${unique()}.example`;
    const added = await service.request('POST', domains(organization), { token: ada.token, body: { domain: domain.toUpperCase() } });
    expect({ status: added.status, body: added.body }).toEqual({
      status: 201,
      body: {
        object: 'verified-domain',
        domain,
        status: 'pending',
        txtRecord: {
          name: `_docs-platform-verification.${domain}`,
          value: expect.stringMatching(/^docs-platform-verification=[A-Za-z0-9_-]{32}$/),
        },
      },
    });
    const other = await service.request('POST', domains(organization), { token: ada.token, body: { domain: `${unique()}.example` } });
    expect(other.body.txtRecord.value).not.toBe(added.body.txtRecord.value);
    const list = await service.request('GET', domains(organization), { token: ada.token });
    expect(list.status).toBe(200);
    expect(list.body.items).toContainEqual(added.body);
    expect(list.body.count).toBe(list.body.items.length);
    expectError(await service.request('POST', domains(organization), { token: ada.token, body: { domain } }), 409, /already added/);
  });

  it('refuses what is not a domain name: 400; unknown members: 400', async () => {
    for (const domain of ['localhost', 'not a domain', 'a..b', '', '__proto__', 42]) {
      expectError(await service.request('POST', domains(organization), { token: ada.token, body: { domain } }), 400, /domain/);
    }
    expectError(
      await service.request('POST', domains(organization), { token: ada.token, body: { domain: 'ok.example', verified: true } }),
      400,
      /verified/,
    );
  });

  it('verifies a domain once its TXT record holds the token (DNS, through DNS_SERVERS): 409 before, 200 after', async () => {
    const domain = `${unique()}.example`;
    const added = await service.request('POST', domains(organization), { token: ada.token, body: { domain } });
    expectError(
      await service.request('POST', domains(organization, `/${domain}/verify`), { token: ada.token }),
      409,
      /no TXT record at _docs-platform-verification\./,
    );
    dns.records.set(added.body.txtRecord.name, ['docs-platform-verification=someone-elses-token']);
    expectError(await service.request('POST', domains(organization, `/${domain}/verify`), { token: ada.token }), 409, /not verified/);
    dns.records.set(added.body.txtRecord.name, ['v=spf1 -all', added.body.txtRecord.value]);
    const verified = await service.request('POST', domains(organization, `/${domain}/verify`), { token: ada.token });
    expect({ status: verified.status, body: verified.body }).toEqual({
      status: 200,
      body: { ...added.body, status: 'verified', verifiedAt: expect.any(String), method: 'dns-txt' },
    });
    expect((await service.request('GET', domains(organization), { token: ada.token })).body.items).toContainEqual(verified.body);
  });

  it('removes a domain: 204, then 404', async () => {
    const domain = `${unique()}.example`;
    await service.request('POST', domains(organization), { token: ada.token, body: { domain } });
    const removed = await service.request('DELETE', domains(organization, `/${domain}`), { token: ada.token });
    expect({ status: removed.status, text: removed.text }).toEqual({ status: 204, text: '' });
    expectError(await service.request('DELETE', domains(organization, `/${domain}`), { token: ada.token }), 404);
    expectError(await service.request('POST', domains(organization, `/${domain}/verify`), { token: ada.token }), 404);
    expectError(await service.request('DELETE', domains(organization, '/__proto__'), { token: ada.token }), 404);
  });

  describe('ETag and If-Match: the revision of the organization’s domain stream, where all its domains live', () => {
    const addDomain = async (organizationOf = organization) => {
      const domain = `${unique()}.example`;
      const added = await service.request('POST', domains(organizationOf), { token: ada.token, body: { domain } });
      expect(added.status).toBe(201);
      return { domain, added };
    };
    const withIfMatch = (method: string, path: string, ifMatch: string, token = ada.token) =>
      service.request(method, path, { token, headers: { 'If-Match': ifMatch } });

    it('reads one domain with its ETag, the one its addition answered; 404 for a domain it does not hold, a non-domain or another organization’s', async () => {
      const { domain, added } = await addDomain();
      const read = await service.request('GET', domains(organization, `/${domain}`), { token: ada.token });
      expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: added.body });
      expect(read.headers.etag).toMatch(/^"\d+"$/);
      expect(read.headers.etag).toBe(added.headers.etag);
      expectError(await service.request('GET', domains(organization, `/${unique()}.example`), { token: ada.token }), 404);
      expectError(await service.request('GET', domains(organization, '/__proto__'), { token: ada.token }), 404);
      expectError(await service.request('GET', domains(organizationId, `/${domain}`), { token: ada.token }), 404);
    });

    it('DELETE with a stale ETag is 412 and the domain and the ETag stay; with the current one 204', async () => {
      const { domain, added } = await addDomain();
      await addDomain(); // another domain of the stream moves the revision on
      const current = (await service.request('GET', domains(organization, `/${domain}`), { token: ada.token })).headers.etag;
      expect(current).not.toBe(added.headers.etag);
      expectError(await withIfMatch('DELETE', domains(organization, `/${domain}`), added.headers.etag), 412, /If-Match/);
      const after = await service.request('GET', domains(organization, `/${domain}`), { token: ada.token });
      expect({ status: after.status, body: after.body, etag: after.headers.etag }).toEqual({
        status: 200,
        body: added.body,
        etag: current,
      });
      expect((await withIfMatch('DELETE', domains(organization, `/${domain}`), current)).status).toBe(204);
      expectError(await service.request('GET', domains(organization, `/${domain}`), { token: ada.token }), 404);
    });

    it('POST /verify with a stale ETag is 412 even with the TXT record published, and the domain stays pending; with the current one it is verified', async () => {
      const { domain, added } = await addDomain();
      dns.records.set(added.body.txtRecord.name, [added.body.txtRecord.value]);
      await addDomain();
      expectError(await withIfMatch('POST', domains(organization, `/${domain}/verify`), added.headers.etag), 412, /If-Match/);
      const pending = await service.request('GET', domains(organization, `/${domain}`), { token: ada.token });
      expect(pending.body.status).toBe('pending');
      const verified = await withIfMatch('POST', domains(organization, `/${domain}/verify`), pending.headers.etag);
      expect({ status: verified.status, method: verified.body.method }).toEqual({ status: 200, method: 'dns-txt' });
      expect(verified.headers.etag).toBe(
        (await service.request('GET', domains(organization, `/${domain}`), { token: ada.token })).headers.etag,
      );
      expect(verified.headers.etag).not.toBe(pending.headers.etag);
    });

    it('answers other members 403 and people outside 404 whatever revision If-Match names: a 412 would tell them the revision', async () => {
      const { domain, added } = await addDomain(organizationId);
      for (const ifMatch of [added.headers.etag, '"0"']) {
        expectError(await withIfMatch('DELETE', domains(organizationId, `/${domain}`), ifMatch, eve.token), 403);
        expectError(await withIfMatch('POST', domains(organizationId, `/${domain}/verify`), ifMatch, eve.token), 403);
        expectError(await withIfMatch('DELETE', domains(organizationId, `/${domain}`), ifMatch, mallory.token), 404);
      }
      expectError(await service.request('GET', domains(organizationId, `/${domain}`), { token: eve.token }), 403);
      expectError(await service.request('GET', domains(organizationId, `/${domain}`), { token: mallory.token }), 404);
      expect((await service.request('GET', domains(organizationId, `/${domain}`), { token: ada.token })).headers.etag).toBe(
        added.headers.etag,
      );
    });
  });

  it('is for admins: 403 for other members, 404 outside, 401 without a token', async () => {
    expectError(await service.request('GET', domains(organizationId), { token: eve.token }), 403, /admin/);
    expectError(await service.request('POST', domains(organizationId), { token: eve.token, body: { domain: 'eve.example' } }), 403);
    expectError(await service.request('GET', domains(organizationId), { token: mallory.token }), 404);
    expectError(await service.request('GET', domains(organizationId)), 401);
  });

  it('the service administrator verifies a domain without DNS: 200, method admin; user tokens may not; unknown organizations 404', async () => {
    const domain = `${unique()}.example`;
    const verified = await verifyByAdmin(organization, domain);
    expect({ status: verified.status, body: verified.body }).toEqual({
      status: 200,
      body: expect.objectContaining({
        object: 'verified-domain',
        domain,
        status: 'verified',
        method: 'admin',
        verifiedAt: expect.any(String),
      }),
    });
    expectError(await verifyByAdmin(organization, `${unique()}.example`, ada.token), 403);
    expectError(await verifyByAdmin('noSuchOrganization', domain), 404);
    expectError(await verifyByAdmin(organization, 'not_a_domain'), 404);
    const actions = await auditActions(organization, ada.token);
    expect(actions).toContainEqual(
      expect.objectContaining({
        action: 'verified_domain.verified',
        target: expect.objectContaining({ type: 'verified-domain', id: domain }),
      }),
    );
  });
});

// ---- whom a provider may sign in ---------------------------------------------------------------------

describe('whom a SAML provider may sign in', () => {
  const NOT_ALLOWED =
    /may sign in only members of its organization who agreed to single sign-on, and addresses in domains the organization has verified/;

  it("refuses an organization's own provider signing in someone else's account (takeover): 403, no token, the victim unaffected, the refusal in the attacker organization's audit log", async () => {
    const attacker = await service.createUser(uniqueEmail('attacker', 'attacker.example'), 'Attacker');
    const attackerOrganization = await newOrganization('Attack', attacker.token);
    const attackerIdp = new FakeIdp('https://attacker.example.test/idp', generateKeyPair('Attacker'));
    const provider = created(
      await create(
        { label: 'Mine', entityID: attackerIdp.entityID, certificate: attackerIdp.certificate, ssoURL: SSO_URL },
        attacker.token,
        attackerOrganization,
      ),
    );
    const victimEmail = (await service.request('GET', '/v1/user', { token: ada.token })).body.email as string;

    const response = await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: victimEmail }, attackerIdp) });
    expectError(response, 403, NOT_ALLOWED);
    expect(response.body.token).toBeUndefined();
    expect(JSON.stringify(response.body)).not.toContain(ada.user.id);
    // A persistent NameID with the victim's address as attribute fares no better.
    const viaAttribute = await answer(
      provider,
      { nameID: 'victim-1', nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', attributes: { email: victimEmail } },
      attackerIdp,
    );
    expectError(await postToAcs(provider, { SAMLResponse: viaAttribute }), 403, NOT_ALLOWED);

    expect((await service.request('GET', '/v1/user', { token: ada.token })).body.id).toBe(ada.user.id);
    expectError(await service.request('GET', `/v1/orgs/${attackerOrganization}/members/${ada.user.id}`, { token: attacker.token }), 404);
    const refusals = (await auditActions(attackerOrganization, attacker.token)).filter((entry) => entry.action === 'saml_login.refused');
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatchObject({ target: { type: 'saml-provider', id: provider.id }, actor: { type: 'system', id: 'sso' } });
    expect(JSON.stringify(refusals)).not.toContain(victimEmail);
  });

  it('refuses an address that has no account, outside the verified domains: 403, and no account is created', async () => {
    const provider = await createLoginProvider();
    const email = uniqueEmail('nobody', 'unverified.example.org');
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: email }) }), 403, NOT_ALLOWED);
    // The address is still free: the service administrator can create its account.
    expect(
      (await service.request('POST', '/v1/admin/users', { token: service.adminToken, body: { email, displayName: 'Nobody' } })).status,
    ).toBe(201);
  });

  it('creates the account of an address in a domain verified by the service administrator and binds the NameID: the next login signs in the same user', async () => {
    const organization = await newOrganization('Verified');
    const domain = `${unique()}.example`;
    expect((await verifyByAdmin(organization, domain)).status).toBe(200);
    const provider = await createLoginProvider({}, organization);
    const persistent = { nameID: `emp-${unique()}`, nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' };
    const email = `newcomer@${domain}`;
    const first = await postToAcs(provider, { SAMLResponse: await answer(provider, { ...persistent, attributes: { email } }) });
    expect({ status: first.status, email: first.body.user?.email }).toEqual({ status: 200, email });
    const second = await postToAcs(provider, { SAMLResponse: await answer(provider, { ...persistent, attributes: { email } }) });
    expect({ status: second.status, id: second.body.user?.id }).toEqual({ status: 200, id: first.body.user.id });
    const actions = await auditActions(organization, ada.token);
    expect(actions).toContainEqual(
      expect.objectContaining({
        action: 'saml_identity.bound',
        target: expect.objectContaining({ type: 'member', id: first.body.user.id }),
      }),
    );
  });

  it('signs in a member who consented (accepted an invitation with sso: true); not one an admin merely marked as SSO: 403', async () => {
    const organization = await newOrganization('Consent');
    const provider = await createLoginProvider({}, organization);
    const carolEmail = uniqueEmail('carol', 'consent.example.net');
    const carol = await service.createUser(carolEmail, 'Carol');
    await joinAs(service, organization, ada.token, [{ token: carol.token, email: carolEmail, role: 'edit' }], { sso: true });
    const login = await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: carolEmail }) });
    expect({ status: login.status, id: login.body.user?.id }).toEqual({ status: 200, id: carol.user.id });

    const daveEmail = uniqueEmail('dave', 'consent.example.net');
    const dave = await service.createUser(daveEmail, 'Dave');
    await joinAs(service, organization, ada.token, [{ token: dave.token, email: daveEmail, role: 'edit' }]);
    expect((await service.request('POST', `/v1/orgs/${organization}/members/${dave.user.id}/sso`, { token: ada.token })).status).toBe(200);
    expectError(await postToAcs(provider, { SAMLResponse: await answer(provider, { nameID: daveEmail }) }), 403, NOT_ALLOWED);
  });

  it('accepts exactly one of ten valid answers posted at once to one AuthnRequest; the others 401 already answered', async () => {
    const organization = await newOrganization('Race');
    const domain = `${unique()}.example`;
    await verifyByAdmin(organization, domain);
    const provider = await createLoginProvider({}, organization);
    const { requestId } = await startLogin(provider);
    const answers = Array.from({ length: 10 }, (_, i) =>
      idp.response({
        audience: provider.service.entityID,
        acsURL: provider.service.acsURL,
        inResponseTo: requestId,
        nameID: `racer${i}@${domain}`,
      }),
    );
    const responses = await Promise.all(answers.map((SAMLResponse) => postToAcs(provider, { SAMLResponse })));
    expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(401)]);
    for (const loser of responses.filter((r) => r.status === 401)) expectError(loser, 401, /already answered/);
  });

  it('answers a deeply nested SAMLResponse with 400, before parsing it', async () => {
    const provider = await createLoginProvider();
    const nested = (depth: number) => Buffer.from(`${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`).toString('base64');
    expectError(await postToAcs(provider, { SAMLResponse: nested(65) }), 400, /nested deeper than 64 elements/);
    // ~930 KB of base64 (100,000 levels): refused for its size, as JSON since the form would exceed the body limit.
    const huge = nested(100_000);
    expect(huge.length).toBeGreaterThan(900_000);
    expectError(await service.request('POST', `/v1/sso/saml/${provider.id}/acs`, { body: { SAMLResponse: huge } }), 400, /SAMLResponse/);
  });

  it(`answers 429 with Retry-After once an address failed ${FAILED_LOGINS_PER_MINUTE} times within a minute, other addresses unaffected`, async () => {
    const provider = await createLoginProvider();
    const acs = `/v1/sso/saml/${provider.id}/acs`;
    const junk = { SAMLResponse: Buffer.from('<x/>').toString('base64') };
    for (let i = 0; i < FAILED_LOGINS_PER_MINUTE; i++) {
      expect((await postFromAddress('127.0.0.7', acs, junk)).status).toBe(401);
    }
    const limited = await postFromAddress('127.0.0.7', acs, junk);
    expect({ status: limited.status, code: limited.body?.error?.code, retryAfter: Number(limited.headers['retry-after']) }).toEqual({
      status: 429,
      code: 429,
      retryAfter: expect.any(Number),
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.error.message).toMatch(/too many failed SAML logins/);
    expect((await postFromAddress('127.0.0.8', acs, junk)).status).toBe(401);
  });
});

const verifyByAdmin = (organization: string, domain: string, token = service.adminToken) =>
  service.request('POST', `/v1/admin/orgs/${organization}/verified-domains/${domain}`, { token });

async function newOrganization(title: string, token = ada.token): Promise<string> {
  const response = await service.request('POST', '/v1/orgs', { token, body: { title } });
  expect(response.status).toBe(201);
  return response.body.id;
}

async function auditActions(organization: string, token: string): Promise<Array<{ action: string; target: { type: string; id: string } }>> {
  const log = await service.request('GET', `/v1/orgs/${organization}/audit-events?limit=1000`, { token });
  expect(log.status).toBe(200);
  return log.body.items;
}

/** A POST from another loopback address (the failed-login limit counts per client address). */
function postFromAddress(
  localAddress: string,
  path: string,
  fields: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const url = new URL(path, service.url);
  const payload = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(payload) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

function ok200(response: Response): unknown {
  expect(response.status).toBe(200);
  return response.body;
}
