/**
 * Organizations through HTTP against the embedded service: POST /v1/orgs,
 * GET /v1/orgs, GET and PATCH /v1/orgs/{organizationId} with ETag / If-Match,
 * GET /v1/email-domains/{emailDomain}/orgs, GET /v1/users/{userId}, and what survives a restart.
 */
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, startService, type Response, type RunningService, type UserObject } from './support/service';

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const ETAG = /^(W\/)?"[^"]+"$/;
const PERMISSION_KEYS = [
  'view',
  'admin',
  'ownTeam',
  'createContent',
  'createOpenAPISpec',
  'ingestConversations',
  'viewBilling',
  'listMembers',
  'listTeams',
  'listIntegrations',
  'access',
  'listInstallations',
  'installIntegration',
] as const;
const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;

let counter = 0;
const unique = () => `${process.pid.toString(36)}${Date.now().toString(36)}${(++counter).toString(36)}`;
const uniqueEmail = (label: string, domain = 'example.com') => `${label}-${unique()}@${domain}`;
/** A lower-case domain nobody else in this run uses. */
const uniqueDomain = (label: string) => `${label}-${unique()}.test.example`;
/** A valid organization hostname (3..32, `^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$`) nobody else in this run uses. */
const uniqueHostname = (label: string) => `${label}-${unique()}`.toLowerCase().slice(0, 32);

interface Organization {
  object: 'organization';
  id: string;
  title: string;
  createdAt: string;
  emailDomains: string[];
  hostname?: string | null;
  type: string;
  defaultRole?: string | null;
  defaultContent?: { type: 'site'; site: string } | null;
  sso?: boolean;
  ai?: boolean;
  inviteLinks: boolean;
  changeRequestsRequireApproval?: boolean;
  mergeRules?: unknown;
  trial?: { status: string; count: number };
  plan: string;
  urls: { location: string; app: string; logo?: string };
  permissions: Record<(typeof PERMISSION_KEYS)[number], boolean>;
}

interface Caller {
  user: UserObject;
  token: string;
}

let service: RunningService;
/** Creator (admin) of `org`. */
let alice: Caller;
/** Creator of `otherOrg`; not a member of `org`. */
let bob: Caller;
let org: Organization;
let otherOrg: Organization;

beforeAll(async () => {
  service = await startService();
  [alice, bob] = await Promise.all([service.createUser(uniqueEmail('alice'), 'Alice'), service.createUser(uniqueEmail('bob'), 'Bob')]);
  org = await createOrg(alice, 'Alice Inc');
  otherOrg = await createOrg(bob, 'Bob Ltd');
});

afterAll(cleanUpServices);

// ---- helpers --------------------------------------------------------------------------------------

const post = (token: string | undefined, body: unknown) => service.request('POST', '/v1/orgs', { token, body });
const get = (token: string | undefined, organizationId: string) => service.request('GET', `/v1/orgs/${organizationId}`, { token });
const list = (token: string, query = '') => service.request('GET', `/v1/orgs${query}`, { token });
const patch = (token: string | undefined, organizationId: string, body: unknown, ifMatch?: string) =>
  service.request('PATCH', `/v1/orgs/${organizationId}`, {
    token,
    body,
    ...(ifMatch !== undefined ? { headers: { 'If-Match': ifMatch } } : {}),
  });
const byEmailDomain = (token: string, domain: string) =>
  service.request('GET', `/v1/email-domains/${encodeURIComponent(domain)}/orgs`, { token });

async function createOrg(caller: Caller, title: string, emailDomains?: string[]): Promise<Organization> {
  const response = await post(caller.token, { title, ...(emailDomains ? { emailDomains } : {}) });
  if (response.status !== 201) throw new Error(`POST /v1/orgs answered ${response.status}: ${response.text.slice(0, 1000)}`);
  return response.body;
}

/** 200 and the organization, else a failure showing what came back. */
function ok(response: Response): Organization {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 200,
    body: expect.objectContaining({ object: 'organization' }),
  });
  return response.body;
}

/** GET /v1/orgs/{id} as the creator: the current state and ETag. */
async function current(organization: Organization, caller: Caller = alice): Promise<{ body: Organization; etag: string }> {
  const response = await get(caller.token, organization.id);
  const body = ok(response);
  expect(response.headers.etag).toMatch(ETAG);
  return { body, etag: response.headers.etag };
}

/** Follows `next.page` until it is absent; fails on a non-200 or after too many pages. */
async function allPages(
  token: string,
  limit: number,
): Promise<{ pages: Array<{ count: number; items: Organization[]; next?: { page: string } }> }> {
  const pages: Array<{ count: number; items: Organization[]; next?: { page: string } }> = [];
  let page: string | undefined;
  do {
    const query = `?limit=${limit}${page !== undefined ? `&page=${encodeURIComponent(page)}` : ''}`;
    const response = await list(token, query);
    expect({ query, status: response.status }).toEqual({ query, status: 200 });
    pages.push(response.body);
    page = response.body.next?.page;
    if (page !== undefined) expect(typeof page).toBe('string');
    if (pages.length > 50) throw new Error('more than 50 pages: next.page never ends');
  } while (page !== undefined);
  return { pages };
}

function expectOrganizationShape(organization: Organization) {
  expect(organization.object).toBe('organization');
  expect(organization.id).toMatch(ID);
  expect(typeof organization.title).toBe('string');
  expect(new Date(organization.createdAt).toISOString()).toBe(organization.createdAt);
  expect(Array.isArray(organization.emailDomains)).toBe(true);
  expect(typeof organization.type).toBe('string');
  expect(typeof organization.inviteLinks).toBe('boolean');
  expect(typeof organization.plan).toBe('string');
  expect(organization.urls.location).toBe(`${service.url}/v1/orgs/${organization.id}`);
  expect(organization.urls.app).toMatch(/^https?:\/\/[^/]+/);
  expect(new URL(organization.urls.app).href).toBeTruthy();
  expect(Object.keys(organization.permissions).sort()).toEqual([...PERMISSION_KEYS].sort());
  // Of the internal members, only this one leaves the service, and always as true.
  expect(Object.entries(organization).filter(([key]) => key.startsWith('internal_'))).toEqual([['internal_isOnNewTrial', true]]);
  for (const key of PERMISSION_KEYS) expect({ key, value: typeof organization.permissions[key] }).toEqual({ key, value: 'boolean' });
}

const adminPermissions = Object.fromEntries(PERMISSION_KEYS.map((key) => [key, true]));

// ---- POST /v1/orgs --------------------------------------------------------------------------------

describe('POST /v1/orgs', () => {
  it('answers 201 with every required Organization field, an ETag, and the creator as admin', async () => {
    const before = Date.now();
    const response = await post(alice.token, { title: 'Acme Documentation', emailDomains: ['acme-docs.example'] });
    const after = Date.now();
    expect(response.status).toBe(201);
    expect(response.headers.etag).toMatch(ETAG);
    const created: Organization = response.body;
    expectOrganizationShape(created);
    expect(created).toMatchObject({ title: 'Acme Documentation', emailDomains: ['acme-docs.example'], inviteLinks: true });
    expect(created.permissions).toEqual(adminPermissions);
    const createdAt = Date.parse(created.createdAt);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(after + 1000);

    // The same organization and ETag on a GET that follows (read-your-writes).
    const read = await get(alice.token, created.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);
    expect(read.headers.etag).toBe(response.headers.etag);
  });

  it('gives each organization its own id; emailDomains default to []', async () => {
    const [a, b] = [await createOrg(alice, 'Twin'), await createOrg(alice, 'Twin')];
    expect(a.id).not.toBe(b.id);
    expect(a.emailDomains).toEqual([]);
  });

  it('keeps e-mail domains lower-cased, each once', async () => {
    const domain = uniqueDomain('case');
    const created = await createOrg(alice, 'Case Org', [domain.toUpperCase(), domain]);
    expect(created.emailDomains).toEqual([domain]);
  });

  it.each([
    ['2', 2],
    ['255', 255],
  ])('accepts a title of %s characters', async (_label, length) => {
    const title = 't'.repeat(length);
    const response = await post(alice.token, { title });
    expect(response.status).toBe(201);
    expect(response.body.title).toBe(title);
  });

  it.each([
    ['a missing title', {}, 'title'],
    ['a title of 1 character', { title: 'x' }, 'title'],
    ['a title of 256 characters', { title: 'x'.repeat(256) }, 'title'],
    ['a title that is not a string', { title: 42 }, 'title'],
    ['a null title', { title: null }, 'title'],
    ['emailDomains that are not an array', { title: 'Domains', emailDomains: 'example.com' }, 'emailDomains'],
    ['an e-mail address as a domain', { title: 'Domains', emailDomains: ['someone@example.com'] }, 'emailDomains'],
    ['a URL as a domain', { title: 'Domains', emailDomains: ['https://example.com'] }, 'emailDomains'],
    ['a domain with a space', { title: 'Domains', emailDomains: ['exa mple.com'] }, 'emailDomains'],
    ['a domain without a top-level domain', { title: 'Domains', emailDomains: ['localhost'] }, 'emailDomains'],
    ['a domain that is not a string', { title: 'Domains', emailDomains: [7] }, 'emailDomains'],
    ['an unknown member', { title: 'Unknown', plan: 'enterprise' }, 'plan'],
  ])('answers %s with 400 naming the field', async (_label, body, field) => {
    expectError(await post(alice.token, body), 400, field);
  });

  it('creates nothing when it refuses', async () => {
    const { token } = await service.createUser();
    expectError(await post(token, { title: 'x' }), 400);
    expectError(await post(token, { title: 'Valid Title', emailDomains: ['not a domain'] }), 400);
    expect((await list(token)).body).toEqual({ count: 0, items: [] });
  });

  it('answers the admin token with 403 and no token with 401', async () => {
    expectError(await post(service.adminToken, { title: 'By Admin' }), 403);
    const anonymous = await post(undefined, { title: 'Anonymous' });
    expectError(anonymous, 401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer\b/);
  });
});

// ---- GET /v1/orgs ---------------------------------------------------------------------------------

describe('GET /v1/orgs', () => {
  let carol: Caller;
  let carols: Organization[];

  beforeAll(async () => {
    carol = await service.createUser(uniqueEmail('carol'), 'Carol');
    carols = [];
    for (let i = 1; i <= 5; i++) carols.push(await createOrg(carol, `Carol Org ${i}`));
  });

  it('lists only the caller’s organizations, with their permissions', async () => {
    const response = await list(carol.token);
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(5);
    expect(response.body.next).toBeUndefined();
    const items: Organization[] = response.body.items;
    expect(items.map((o) => o.id).sort()).toEqual(carols.map((o) => o.id).sort());
    for (const item of items) {
      expectOrganizationShape(item);
      expect(item).toEqual(carols.find((o) => o.id === item.id));
    }

    // Bob sees his own organization and none of Carol's or Alice's.
    const bobs: Organization[] = (await list(bob.token)).body.items;
    expect(bobs.map((o) => o.id)).toEqual([otherOrg.id]);
  });

  it('answers a user without organizations with an empty list', async () => {
    const { token } = await service.createUser();
    const response = await list(token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ count: 0, items: [] });
  });

  it.each([1, 2])('pages through with limit=%i: every organization exactly once, count is the total', async (limit) => {
    const { pages } = await allPages(carol.token, limit);
    expect(pages.length).toBe(Math.ceil(5 / limit));
    for (const page of pages) {
      expect(page.count).toBe(5);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      expect(page.items.length).toBeGreaterThan(0);
    }
    // Every page but the last is full and says where to go next; the last one does not.
    for (const page of pages.slice(0, -1)) {
      expect(page.items.length).toBe(limit);
      expect(page.next).toEqual({ page: expect.any(String) });
    }
    expect(pages[pages.length - 1].next).toBeUndefined();
    const ids = pages.flatMap((page) => page.items.map((o) => o.id));
    expect(ids.length).toBe(5);
    expect(new Set(ids).size).toBe(5);
    expect([...ids].sort()).toEqual(carols.map((o) => o.id).sort());
  });

  it('accepts limit=1000', async () => {
    const response = await list(carol.token, '?limit=1000');
    expect(response.status).toBe(200);
    expect(response.body.items.length).toBe(5);
  });

  // limit=0 is the platform's "default page size" (libs/platform/src/http/list.ts): not refused.
  it.each(['1001', '2.5', '-1', 'abc'])('answers limit=%s with 400 naming limit', async (limit) => {
    expectError(await list(carol.token, `?limit=${limit}`), 400, 'limit');
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['made of characters a cursor never has', '%%%***'],
    ['truncated', null],
  ])('answers a page cursor that is %s with 400', async (_label, cursor) => {
    let page = cursor;
    if (page === null) {
      const first = await list(carol.token, '?limit=1');
      page = String(first.body.next.page).slice(0, -3);
    }
    expectError(await list(carol.token, `?page=${encodeURIComponent(page)}`), 400);
  });

  it('answers an unknown query parameter with 400', async () => {
    expectError(await list(carol.token, '?sort=title'), 400, 'sort');
  });

  it('answers without a token with 401 and with the admin token with 403', async () => {
    expectError(await service.request('GET', '/v1/orgs'), 401);
    expectError(await list(service.adminToken), 403);
  });
});

// ---- GET /v1/orgs/{organizationId} ----------------------------------------------------------------

describe('GET /v1/orgs/{organizationId}', () => {
  it('answers a member with 200, the organization and an ETag', async () => {
    const response = await get(alice.token, org.id);
    expect(response.status).toBe(200);
    expect(response.headers.etag).toMatch(ETAG);
    expectOrganizationShape(response.body);
    expect(response.body).toMatchObject({ id: org.id, title: org.title, permissions: adminPermissions });
  });

  it('answers repeated reads alike until something changes (response cache): a PATCH shows on the next read; no-cache gives the same answer', async () => {
    const { body: created } = await service.request('POST', '/v1/orgs', { token: alice.token, body: { title: 'Cached' } });
    const id = (created as Organization).id;
    const first = await get(alice.token, id);
    const again = await get(alice.token, id);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    const fresh = await service.request('GET', `/v1/orgs/${id}`, { token: alice.token, headers: { 'cache-control': 'no-cache' } });
    expect(fresh.text).toBe(first.text);

    expect((await patch(alice.token, id, { title: 'Cached, renamed' })).status).toBe(200);
    const changed = await get(alice.token, id);
    expect(changed.body).toMatchObject({ title: 'Cached, renamed' });
    expect(changed.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers a user of another organization with 404, not 403', async () => {
    expectError(await get(bob.token, org.id), 404);
    expectError(await get(alice.token, otherOrg.id), 404);
  });

  it('answers an unknown id with 404', async () => {
    expectError(await get(alice.token, 'noSuchOrganization00'), 404);
  });

  it.each([
    ['with a space', 'bad%20id'],
    ['with a dot and a colon', 'a.b%3Ac'],
    ['of 65 characters', 'a'.repeat(65)],
    ['with non-ASCII characters', encodeURIComponent('élan')],
  ])('answers an id %s with 404', async (_label, id) => {
    expectError(await get(alice.token, id), 404);
  });

  it('answers without a token with 401 and with the admin token with 403', async () => {
    expectError(await get(undefined, org.id), 401);
    expectError(await get(service.adminToken, org.id), 403);
  });
});

// ---- PATCH /v1/orgs/{organizationId} --------------------------------------------------------------

describe('PATCH /v1/orgs/{organizationId}', () => {
  /** Sends the change, checks the response shows it and a GET afterwards shows the same. */
  async function change(body: Record<string, unknown>): Promise<{ body: Organization; etag: string }> {
    const response = await patch(alice.token, org.id, body);
    const updated = ok(response);
    expect(response.headers.etag).toMatch(ETAG);
    expectOrganizationShape(updated);
    const read = await current(org);
    expect(read).toEqual({ body: updated, etag: response.headers.etag });
    return { body: updated, etag: response.headers.etag };
  }

  describe('each body member', () => {
    it.each([
      ['2', 2],
      ['255', 255],
    ])('title of %s characters', async (_label, length) => {
      const title = `${'T'.repeat(length - 1)}${length % 10}`;
      expect((await change({ title })).body.title).toBe(title);
    });

    it('emailDomains: replaced, lower-cased, emptied', async () => {
      const [a, b] = [uniqueDomain('first'), uniqueDomain('second')];
      expect((await change({ emailDomains: [a, b.toUpperCase()] })).body.emailDomains.sort()).toEqual([a, b].sort());
      expect((await change({ emailDomains: [b] })).body.emailDomains).toEqual([b]);
      expect((await change({ emailDomains: [] })).body.emailDomains).toEqual([]);
    });

    it('hostname of 3 and 32 characters; null clears it', async () => {
      const short = `h${unique().slice(-2)}`;
      const long = `h${unique()}`.padEnd(32, 'z');
      expect(short).toHaveLength(3);
      expect(long).toHaveLength(32);
      expect((await change({ hostname: short })).body.hostname).toBe(short);
      expect((await change({ hostname: long })).body.hostname).toBe(long);
      const cleared = (await change({ hostname: null })).body;
      expect(cleared.hostname ?? null).toBeNull();
    });

    it.each(ROLES.map((role) => [role]))('defaultRole %s', async (role) => {
      expect((await change({ defaultRole: role })).body.defaultRole).toBe(role);
    });

    it('defaultRole null (guests)', async () => {
      await change({ defaultRole: 'read' });
      expect((await change({ defaultRole: null })).body.defaultRole ?? null).toBeNull();
    });

    it('defaultContent { type: site, site } and null', async () => {
      const site = 'someSite0000000000001';
      expect((await change({ defaultContent: { type: 'site', site } })).body.defaultContent).toEqual({ type: 'site', site });
      expect((await change({ defaultContent: null })).body.defaultContent ?? null).toBeNull();
    });

    it('logo: shown as urls.logo, up to 2048 characters; null removes it', async () => {
      const logo = 'https://cdn.example.com/logo.png';
      expect((await change({ logo })).body.urls.logo).toBe(logo);
      const longest = `https://cdn.example.com/${'l'.repeat(2048 - 'https://cdn.example.com/'.length)}`;
      expect(longest).toHaveLength(2048);
      expect((await change({ logo: longest })).body.urls.logo).toBe(longest);
      const removed = (await change({ logo: null })).body;
      expect(removed.urls.logo).toBeUndefined();
      expect(removed.urls.location).toBe(`${service.url}/v1/orgs/${org.id}`);
    });

    it.each(['sso', 'ai', 'inviteLinks', 'changeRequestsRequireApproval'])('%s: true and false', async (member) => {
      for (const value of [true, false, true]) {
        expect((await change({ [member]: value })).body[member as 'sso']).toBe(value);
      }
    });

    it('several members at once, others unchanged', async () => {
      const before = (await current(org)).body;
      const { body } = await change({ title: 'Alice Inc (renamed)', ai: !before.ai, defaultRole: 'comment' });
      expect(body).toEqual({ ...before, title: 'Alice Inc (renamed)', ai: !before.ai, defaultRole: 'comment' });
    });
  });

  describe('validation: 400 naming the member, and nothing changes', () => {
    it.each([
      ['a title of 1 character', { title: 'x' }, 'title'],
      ['a title of 256 characters', { title: 'x'.repeat(256) }, 'title'],
      ['a null title', { title: null }, 'title'],
      ['a null emailDomains', { emailDomains: null }, 'emailDomains'],
      ['emailDomains with an address', { emailDomains: ['a@example.com'] }, 'emailDomains'],
      ['a hostname of 2 characters', { hostname: 'ab' }, 'hostname'],
      ['a hostname of 33 characters', { hostname: 'h'.repeat(33) }, 'hostname'],
      ['a hostname with upper case', { hostname: 'Upper-Case' }, 'hostname'],
      ['a hostname starting with a hyphen', { hostname: '-abc' }, 'hostname'],
      ['a hostname ending with a hyphen', { hostname: 'abc-' }, 'hostname'],
      ['a hostname with a dot', { hostname: 'docs.example' }, 'hostname'],
      ['a hostname with an underscore', { hostname: 'a_b_c' }, 'hostname'],
      ['a hostname that is not a string', { hostname: 1234 }, 'hostname'],
      ['an unknown defaultRole', { defaultRole: 'owner' }, 'defaultRole'],
      ['a defaultContent of a wrong type', { defaultContent: { type: 'space', site: 'x1' } }, 'defaultContent'],
      ['a defaultContent without site', { defaultContent: { type: 'site' } }, 'defaultContent'],
      ['a defaultContent with an unknown member', { defaultContent: { type: 'site', site: 'x1', extra: 1 } }, 'defaultContent'],
      ['a defaultContent that is a string', { defaultContent: 'site' }, 'defaultContent'],
      ['a logo that is not a URL', { logo: 'not a url' }, 'logo'],
      ['a logo that is not http(s)', { logo: 'javascript:alert(1)' }, 'logo'],
      ['a logo of 2049 characters', { logo: `https://cdn.example.com/${'l'.repeat(2049 - 24)}` }, 'logo'],
      ['sso as a string', { sso: 'true' }, 'sso'],
      ['ai as a number', { ai: 1 }, 'ai'],
      ['inviteLinks as a string', { inviteLinks: 'yes' }, 'inviteLinks'],
      ['a null sso', { sso: null }, 'sso'],
      ['a null inviteLinks', { inviteLinks: null }, 'inviteLinks'],
      ['an unknown member', { plan: 'enterprise' }, 'plan'],
      ['an unknown member beside a valid one', { title: 'Valid Title', color: 'red' }, 'color'],
    ])('refuses %s', async (_label, body, member) => {
      const before = await current(org);
      expectError(await patch(alice.token, org.id, body), 400, member);
      expect(await current(org)).toEqual(before);
    });

    it('checks the logo length with a long but otherwise valid URL', async () => {
      const logo = `https://cdn.example.com/${'l'.repeat(2049 - 24)}`;
      expect(logo).toHaveLength(2049);
      expectError(await patch(alice.token, org.id, { logo }), 400, 'logo');
    });
  });

  describe('ETag and If-Match', () => {
    it('a change gives a new ETag; the GET’s ETag works as If-Match', async () => {
      const { etag } = await current(org);
      const response = await patch(alice.token, org.id, { title: 'Matched Title' }, etag);
      expect(ok(response).title).toBe('Matched Title');
      expect(response.headers.etag).toMatch(ETAG);
      expect(response.headers.etag).not.toBe(etag);
      // And the new one works in turn.
      const again = await patch(alice.token, org.id, { title: 'Matched Again' }, response.headers.etag);
      expect(ok(again).title).toBe('Matched Again');
    });

    it('answers a stale ETag with 412, and nothing changes', async () => {
      const stale = (await current(org)).etag;
      ok(await patch(alice.token, org.id, { title: 'Newer Title' }));
      const after = await current(org);
      expectError(await patch(alice.token, org.id, { title: 'Lost Update', inviteLinks: !after.body.inviteLinks }, stale), 412);
      expect(await current(org)).toEqual(after);
      // Even when the change would change nothing.
      expectError(await patch(alice.token, org.id, { title: 'Newer Title' }, stale), 412);
    });

    it('a stale ETag with a new hostname: 412 and the hostname stays free', async () => {
      const stale = (await current(otherOrg, bob)).etag;
      ok(await patch(bob.token, otherOrg.id, { ai: true }));
      const hostname = uniqueHostname('stale');
      expectError(await patch(bob.token, otherOrg.id, { hostname }, stale), 412);
      expect((await current(otherOrg, bob)).body.hostname ?? null).not.toBe(hostname);
      // Nobody holds it: Alice's organization can take it.
      expect(ok(await patch(alice.token, org.id, { hostname })).hostname).toBe(hostname);
      ok(await patch(alice.token, org.id, { hostname: null }));
    });

    it.each([
      ['unquoted', '5'],
      ['a word', 'garbage'],
      ['a list of two revisions', '"1", "2"'],
    ])('answers a malformed If-Match (%s) with 400, and nothing changes', async (_label, ifMatch) => {
      const before = await current(org);
      expectError(await patch(alice.token, org.id, { title: 'Malformed Precondition' }, ifMatch), 400);
      expect(await current(org)).toEqual(before);
    });

    it.each([
      ['not a revision', '"abc"'],
      ['an empty quoted string', '""'],
      ['a weak tag (If-Match compares strongly)', 'W/"1"'],
    ])('answers a well-formed If-Match that cannot match (%s) with 412, and nothing changes', async (_label, ifMatch) => {
      const before = await current(org);
      expectError(await patch(alice.token, org.id, { title: 'Malformed Precondition' }, ifMatch), 412);
      expect(await current(org)).toEqual(before);
    });

    it('accepts If-Match: *', async () => {
      const response = await patch(alice.token, org.id, { title: 'Star Matched' }, '*');
      expect(ok(response).title).toBe('Star Matched');
    });

    it('a PATCH that changes nothing keeps the ETag (empty body, same values)', async () => {
      const before = await current(org);
      for (const body of [
        {},
        { title: before.body.title },
        { title: before.body.title, ai: before.body.ai, emailDomains: before.body.emailDomains },
      ]) {
        const response = await patch(alice.token, org.id, body, before.etag);
        expect(ok(response)).toEqual(before.body);
        expect(response.headers.etag).toBe(before.etag);
      }
      expect(await current(org)).toEqual(before);
    });
  });

  describe('hostname uniqueness', () => {
    it('answers a hostname held by another organization with 409, and nothing of the PATCH applies', async () => {
      const hostname = uniqueHostname('taken');
      expect(ok(await patch(bob.token, otherOrg.id, { hostname })).hostname).toBe(hostname);
      const before = await current(org);
      expectError(await patch(alice.token, org.id, { hostname, title: 'Should Not Apply' }), 409, hostname);
      expect(await current(org)).toEqual(before);
      // Setting it again on its holder is fine (no change).
      expect(ok(await patch(bob.token, otherOrg.id, { hostname })).hostname).toBe(hostname);
    });

    it('frees the old hostname when its organization changes or clears it', async () => {
      const [first, second] = [uniqueHostname('first'), uniqueHostname('second')];
      ok(await patch(bob.token, otherOrg.id, { hostname: first }));
      expectError(await patch(alice.token, org.id, { hostname: first }), 409);

      // Bob moves to another hostname: the first one is free for Alice.
      expect(ok(await patch(bob.token, otherOrg.id, { hostname: second })).hostname).toBe(second);
      expect(ok(await patch(alice.token, org.id, { hostname: first })).hostname).toBe(first);
      expectError(await patch(bob.token, otherOrg.id, { hostname: first }), 409);

      // Alice clears hers: Bob can take it back.
      ok(await patch(alice.token, org.id, { hostname: null }));
      expect(ok(await patch(bob.token, otherOrg.id, { hostname: first })).hostname).toBe(first);
      // And Bob's "second" was freed by that move.
      expect(ok(await patch(alice.token, org.id, { hostname: second })).hostname).toBe(second);
      ok(await patch(alice.token, org.id, { hostname: null }));
    });

    it('gives a hostname claimed concurrently by two organizations to exactly one', async () => {
      const hostname = uniqueHostname('race');
      const responses = await Promise.all([patch(alice.token, org.id, { hostname }), patch(bob.token, otherOrg.id, { hostname })]);
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
      const sides: Array<[Caller, Organization]> = [
        [alice, org],
        [bob, otherOrg],
      ];
      const [winner, loser] = responses[0].status === 200 ? sides : [...sides].reverse();
      expect((await current(winner[1], winner[0])).body.hostname).toBe(hostname);
      expect((await current(loser[1], loser[0])).body.hostname ?? null).not.toBe(hostname);
      ok(await patch(winner[0].token, winner[1].id, { hostname: null }));
    });

    it('keeps no claim on a hostname the organization did not end up with (two concurrent changes of one organization)', async () => {
      const [first, second] = [uniqueHostname('concurrent-a'), uniqueHostname('concurrent-b')];
      try {
        const responses = await Promise.all([
          patch(alice.token, org.id, { hostname: first }),
          patch(alice.token, org.id, { hostname: second }),
        ]);
        expect(responses.map((r) => r.status)).toEqual([200, 200]);
        const kept = (await current(org)).body.hostname;
        expect([first, second]).toContain(kept);
        // The one Alice's organization does not show is nobody's: Bob's organization can take it.
        const dropped = kept === first ? second : first;
        expect(ok(await patch(bob.token, otherOrg.id, { hostname: dropped })).hostname).toBe(dropped);
      } finally {
        await patch(bob.token, otherOrg.id, { hostname: null });
        await patch(alice.token, org.id, { hostname: null });
      }
    });
  });

  describe('who may PATCH', () => {
    it('answers a non-member with 404 (not 403), and nothing changes', async () => {
      const before = await current(org);
      expectError(await patch(bob.token, org.id, { title: 'Hijacked' }), 404);
      expectError(await patch(bob.token, org.id, { title: 'Hijacked' }, before.etag), 404);
      expect(await current(org)).toEqual(before);
    });

    it('answers a member below admin with 403, someone only invited with 404, and nothing changes', async () => {
      const organization = await createOrg(alice, 'Alice Editors');
      const [dave, erin] = await Promise.all([
        service.createUser(uniqueEmail('dave'), 'Dave'),
        service.createUser(uniqueEmail('erin'), 'Erin'),
      ]);
      await joinAs(service, organization.id, alice.token, [{ token: dave.token, email: dave.user.email, role: 'edit' }]);
      await service.request('POST', `/v1/orgs/${organization.id}/invites`, {
        token: alice.token,
        body: { emails: [erin.user.email], role: 'admin' },
      });
      const before = await current(organization);
      expectError(await patch(dave.token, organization.id, { title: 'Mine' }), 403);
      expectError(await patch(erin.token, organization.id, { title: 'Mine' }), 404);
      expect(await current(organization)).toEqual(before);
      const seenByDave = ok(await get(dave.token, organization.id));
      expectOrganizationShape(seenByDave);
      expect(seenByDave.permissions.admin).toBe(false);
    });

    it('answers an unknown or impossible id with 404', async () => {
      expectError(await patch(alice.token, 'noSuchOrganization00', { title: 'Nobody' }), 404);
      expectError(await patch(alice.token, 'bad%20id', { title: 'Nobody' }), 404);
    });

    it('answers without a token with 401 and with the admin token with 403', async () => {
      const before = await current(org);
      expectError(await patch(undefined, org.id, { title: 'Anonymous' }), 401);
      expectError(await patch(service.adminToken, org.id, { title: 'Administrator' }), 403);
      expect(await current(org)).toEqual(before);
    });
  });
});

// ---- GET /v1/email-domains/{emailDomain}/orgs ----------------------------------------------------

describe("the platform's Organization shape", () => {
  it("answers an Organization valid against the platform's schema", async () => {
    const { body } = await current(org);
    expect(platformSchemaProblem('Organization', body)).toBeNull();
  });

  it('answers trial notapplicable with no trial used: the service has no billing', async () => {
    expect((await current(org)).body).toMatchObject({ trial: { status: 'notapplicable', count: 0 } });
  });

  it('leaves defaultContent out while there is none (the platform’s member is an object, never null)', async () => {
    const fresh = await createOrg(alice, 'No default content');
    expect('defaultContent' in (await current(fresh)).body).toBe(false);
  });

  it('answers mergeRules none for a new organization', async () => {
    const fresh = await createOrg(alice, 'No rules');
    expect((await current(fresh)).body).toMatchObject({ mergeRules: { type: 'none' }, changeRequestsRequireApproval: false });
  });

  it('computes access, listInstallations and installIntegration from the caller’s role: integrations are installed by admins', async () => {
    const fresh = await createOrg(alice, 'Installs');
    const reader = await service.createUser(uniqueEmail('reader'), 'Reader');
    await joinAs(service, fresh.id, alice.token, [{ token: reader.token, email: reader.user.email, role: 'read' }]);
    expect((await current(fresh)).body.permissions).toMatchObject({ access: true, listInstallations: true, installIntegration: true });
    expect((await current(fresh, reader)).body.permissions).toMatchObject({
      access: true,
      listInstallations: false,
      installIntegration: false,
    });
  });
});

describe('PATCH /v1/orgs/{organizationId} mergeRules', () => {
  const approval = { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] };

  it('sets merge rules, answered back as set', async () => {
    const fresh = await createOrg(alice, 'Rules');
    const mergeRules = {
      type: 'rules',
      rules: [{ rule: 'require_one_of_specific_reviewers', users: [alice.user.id] }, { rule: 'require_up_to_date_change_request' }],
    };
    const patched = ok(await patch(alice.token, fresh.id, { mergeRules }));
    expect(patched.mergeRules).toEqual(mergeRules);
    expect((await current(fresh)).body.mergeRules).toEqual(mergeRules);
  });

  it('makes require_at_least_one_approved_review the changeRequestsRequireApproval setting', async () => {
    const fresh = await createOrg(alice, 'Approval by rule');
    expect(ok(await patch(alice.token, fresh.id, { mergeRules: approval })).changeRequestsRequireApproval).toBe(true);
    expect(ok(await patch(alice.token, fresh.id, { mergeRules: { type: 'none' } })).changeRequestsRequireApproval).toBe(false);
  });

  it('shows changeRequestsRequireApproval as the approval rule in the merge rules', async () => {
    const fresh = await createOrg(alice, 'Approval by setting');
    expect(ok(await patch(alice.token, fresh.id, { changeRequestsRequireApproval: true })).mergeRules).toEqual(approval);
  });

  it('refuses merge rules and a changeRequestsRequireApproval that contradict each other (400), and nothing changes', async () => {
    const fresh = await createOrg(alice, 'Contradiction');
    const before = await current(fresh);
    expectError(
      await patch(alice.token, fresh.id, { mergeRules: { type: 'none' }, changeRequestsRequireApproval: true }),
      400,
      /changeRequestsRequireApproval/,
    );
    expect((await current(fresh)).etag).toBe(before.etag);
  });

  it.each([
    ['inherit, which only spaces have', { type: 'inherit' }, /mergeRules must be/],
    ['an unknown rule', { type: 'rules', rules: [{ rule: 'require_luck' }] }, /mergeRules\.rules\[0\]\.rule/],
    ['too many rules', { type: 'rules', rules: Array.from({ length: 51 }, () => ({ rule: 'require_agent_review' })) }, /at most 50/],
    ['a custom expression too long', { type: 'rules', rules: [{ rule: 'custom', expression: 'x'.repeat(1025) }] }, /expression/],
  ])('refuses merge rules with %s (400 naming the member)', async (_what, mergeRules, message) => {
    expectError(await patch(alice.token, org.id, { mergeRules }), 400, message);
  });

  it('shows people outside the organization its merge rules without the user ids they name', async () => {
    const domain = uniqueDomain('rules');
    const fresh = await createOrg(alice, 'Rules seen from outside', [domain]);
    ok(await patch(alice.token, fresh.id, { mergeRules: { type: 'rules', rules: [{ rule: 'allow_bypass', users: [alice.user.id] }] } }));
    const colleague = await service.createUser(uniqueEmail('colleague', domain), 'Colleague');
    const seen = (await byEmailDomain(colleague.token, domain)).body.organizations[0] as Organization;
    expect(seen.mergeRules).toEqual({ type: 'rules', rules: [{ rule: 'allow_bypass', users: [] }] });
  });

  it('lets only admins change the merge rules (403 for a member below admin)', async () => {
    const fresh = await createOrg(alice, 'Admins only');
    const editor = await service.createUser(uniqueEmail('editor'), 'Editor');
    await joinAs(service, fresh.id, alice.token, [{ token: editor.token, email: editor.user.email, role: 'edit' }]);
    expectError(await patch(editor.token, fresh.id, { mergeRules: { type: 'none' } }), 403);
  });
});

describe('GET /v1/email-domains/{emailDomain}/orgs', () => {
  let domain: string;
  let founder: Caller;
  let domainOrg: Organization;

  beforeAll(async () => {
    domain = uniqueDomain('corp');
    founder = await service.createUser(uniqueEmail('founder'), 'Founder');
    domainOrg = await createOrg(founder, 'Corp', [domain]);
  });

  it('shows a member the organization, with their permissions', async () => {
    const response = await byEmailDomain(founder.token, domain);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ organizations: [domainOrg] });
  });

  it('matches the domain regardless of case', async () => {
    const response = await byEmailDomain(founder.token, domain.toUpperCase());
    expect(response.status).toBe(200);
    expect(response.body.organizations.map((o: Organization) => o.id)).toEqual([domainOrg.id]);
  });

  it('shows a user whose e-mail is on the domain the organization, as a guest', async () => {
    const colleague = await service.createUser(uniqueEmail('colleague', domain), 'Colleague');
    const response = await byEmailDomain(colleague.token, domain);
    expect(response.status).toBe(200);
    expect(response.body.organizations).toHaveLength(1);
    const seen: Organization = response.body.organizations[0];
    expectOrganizationShape(seen);
    expect(seen.id).toBe(domainOrg.id);
    expect(seen.title).toBe('Corp');
    expect(seen.permissions.admin).toBe(false);
    expect(seen.permissions.view).toBe(true);
    // Not a member: they cannot open it in the application.
    expect(seen.permissions.access).toBe(false);
    // Being on the domain does not make them a member.
    expect((await list(colleague.token)).body).toEqual({ count: 0, items: [] });
    expectError(await patch(colleague.token, domainOrg.id, { title: 'Guest Edit' }), 404);
  });

  it('answers an unrelated user with { organizations: [] }', async () => {
    const response = await byEmailDomain(bob.token, domain);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ organizations: [] });
  });

  it('answers a domain no organization lists with { organizations: [] }', async () => {
    const response = await byEmailDomain(founder.token, uniqueDomain('nobody'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ organizations: [] });
  });

  it('follows PATCHed emailDomains', async () => {
    const moved = uniqueDomain('moved');
    ok(await patch(founder.token, domainOrg.id, { emailDomains: [moved] }));
    expect((await byEmailDomain(founder.token, domain)).body).toEqual({ organizations: [] });
    expect((await byEmailDomain(founder.token, moved)).body.organizations.map((o: Organization) => o.id)).toEqual([domainOrg.id]);
    ok(await patch(founder.token, domainOrg.id, { emailDomains: [domain] }));
    expect((await byEmailDomain(founder.token, domain)).body.organizations.map((o: Organization) => o.id)).toEqual([domainOrg.id]);
  });

  it('answers without a token with 401', async () => {
    expectError(await service.request('GET', `/v1/email-domains/${domain}/orgs`), 401);
  });
});

// ---- GET /v1/users/{userId} -----------------------------------------------------------------------

describe('GET /v1/users/{userId}', () => {
  it('answers yourself with 200 and the embedded user', async () => {
    const response = await service.request('GET', `/v1/users/${alice.user.id}`, { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(alice.user);
    expect(response.body).toMatchObject({
      object: 'user',
      id: alice.user.id,
      email: alice.user.email,
      urls: { location: `${service.url}/v1/users/${alice.user.id}` },
    });
    expect((await service.request('GET', '/v1/user', { token: alice.token })).body).toEqual(response.body);
  });

  it('answers a user you share no organization with 404', async () => {
    expectError(await service.request('GET', `/v1/users/${bob.user.id}`, { token: alice.token }), 404);
    expectError(await service.request('GET', `/v1/users/${alice.user.id}`, { token: bob.token }), 404);
  });

  it('answers an unknown or impossible user id with 404', async () => {
    expectError(await service.request('GET', '/v1/users/noSuchUser0000000000', { token: alice.token }), 404);
    expectError(await service.request('GET', '/v1/users/bad%20id', { token: alice.token }), 404);
  });

  it('answers without a token with 401', async () => {
    expectError(await service.request('GET', `/v1/users/${alice.user.id}`), 401);
  });
});

// ---- restart --------------------------------------------------------------------------------------

describe('after a restart', () => {
  it('answers GET /v1/orgs/{id} with the same body and ETag; lists, hostnames and PATCH work', async () => {
    const hostname = uniqueHostname('durable');
    ok(await patch(alice.token, org.id, { hostname, logo: 'https://cdn.example.com/durable.png', defaultRole: 'edit' }));
    const before = await current(org);
    const otherBefore = await current(otherOrg, bob);
    const listBefore = (await list(alice.token, '?limit=1000')).body;

    await service.restart();

    expect(await current(org)).toEqual(before);
    expect(await current(otherOrg, bob)).toEqual(otherBefore);
    expect((await list(alice.token, '?limit=1000')).body).toEqual(listBefore);
    expectError(await get(bob.token, org.id), 404);
    // The hostname claim survived: still Alice's.
    expectError(await patch(bob.token, otherOrg.id, { hostname }), 409);
    // The old ETag still matches, and a change moves it on.
    const changed = await patch(alice.token, org.id, { title: 'After Restart' }, before.etag);
    expect(ok(changed).title).toBe('After Restart');
    expect(changed.headers.etag).not.toBe(before.etag);
  });
});
