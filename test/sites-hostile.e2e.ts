/**
 * The published sites against what a hostile or careless world does, through HTTP against the
 * embedded service: shared caches (answers that depend on the reader are private), floods of
 * anonymous page views (a rate limit per client address; views reach integrations without growing
 * the event log, and bounded), visitor tokens of a JWKS URL (the site as audience, the configured
 * issuer, one fetch of a key set at a time and failures remembered), and files whose type a browser
 * would run (served as attachments, from a site and from a space alike).
 *
 * The people: ada administers the organization that publishes.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { cleanUpServices, expectError, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let organizationId: string;
let ada: Person;

const call = (method: string, path: string, body?: unknown) => service.request(method, path, { token: ada.token, body });
const sites = () => `/v1/orgs/${organizationId}/sites`;
const insert = (title: string, markdown: string) => ({ operation: 'insert_page', title, document: { markdown } });

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

/** A GET as a browser sends it (no redirects followed), with any headers. */
function get(path: string, headers: Record<string, string> = {}, on = service): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: on.port, path, method: 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function createSpace(title: string): Promise<string> {
  return ok(await call('POST', `/v1/orgs/${organizationId}/spaces`, { title }), 201).body.id;
}

async function write(spaceId: string, changes: unknown[]) {
  return ok(await call('POST', `/v1/spaces/${spaceId}/content`, { changes })).body as {
    changes: Array<{ page?: { id: string } }>;
    insertedFiles: Array<{ id: string; name: string; downloadURL: string }>;
  };
}

/** A published site over the spaces (visibility and other settings from `settings`); its id and site spaces. */
async function publishedSite(
  spaceIds: string[],
  settings: Record<string, unknown> = {},
): Promise<{ id: string; siteSpaces: Array<{ id: string; path: string }> }> {
  const id = ok(await call('POST', sites(), { title: 'Hostile world', spaces: spaceIds, ...settings }), 201).body.id as string;
  const siteSpaces = ok(await call('GET', `${sites()}/${id}/site-spaces`)).body.items;
  ok(await call('POST', `${sites()}/${id}/publish`));
  return { id, siteSpaces };
}

/** A visitor token signed with the site's own key (HS256). */
async function siteToken(siteId: string, claims: Record<string, unknown>): Promise<string> {
  const { secret } = ok(await call('GET', `${sites()}/${siteId}/visitor-auth`)).body;
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(secret));
}

/** The events the service appended so far, from its metrics. */
async function appendedEvents(): Promise<number> {
  const metrics = ok(await service.request('GET', '/metrics')).text;
  const line = /^eventstore_events_appended_total (\d+)/m.exec(metrics);
  return line ? Number(line[1]) : 0;
}

beforeAll(async () => {
  // Key sets and tunnels of the tests are served on loopback.
  service = await startService({ env: { SITES_ALLOW_PRIVATE_NETWORKS: 'true', INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const created = await service.createUser('ada@sites-hostile.example', 'ada');
  ada = { id: created.user.id, token: created.token };
  organizationId = ok(await call('POST', '/v1/orgs', { title: 'Hostile world Inc' }), 201).body.id;
});

afterAll(cleanUpServices);

describe('shared caches', () => {
  let site: string;
  let premiumPath: string;
  let token: string;

  beforeAll(async () => {
    const open = await createSpace('Open');
    await write(open, [insert('Welcome', 'For everyone.')]);
    const premium = await createSpace('Premium');
    await write(premium, [insert('Secrets', 'For paying readers only.')]);
    const published = await publishedSite([open, premium]);
    site = published.id;
    ok(await call('PATCH', `${sites()}/${site}/site-spaces/${published.siteSpaces[1].id}`, { condition: 'visitor.claims.plan == "pro"' }));
    premiumPath = `/sites/${site}/${published.siteSpaces[1].path}/secrets`;
    token = await siteToken(site, { plan: 'pro' });
  });

  it('answers a visitor whose claims open a gated site space privately, varying on Cookie', async () => {
    const page = await get(premiumPath, { cookie: `site_visitor_token=${token}` });
    expect(page.status).toBe(200);
    expect(page.text).toContain('For paying readers only.');
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(String(page.headers.vary)).toMatch(/\bCookie\b/i);
  });

  it('answers a reader presenting a visitor token privately, even on a page every reader sees', async () => {
    const page = await get(`/sites/${site}/welcome`, { cookie: `site_visitor_token=${token}` });
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(String(page.headers.vary)).toMatch(/\bCookie\b/i);
  });

  it('answers a visitor’s revalidation (304) privately too', async () => {
    const cookie = { cookie: `site_visitor_token=${token}` };
    const first = await get(premiumPath, cookie);
    const again = await get(premiumPath, { ...cookie, 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers['cache-control']).toBe('private, no-store');
  });

  it('answers the published structure through the API privately, varying on Authorization', async () => {
    const published = await service.request('GET', `${sites()}/${site}/published?jwt_token=${token}`);
    expect(published.status).toBe(200);
    expect(published.body.structure.structure).toHaveLength(2);
    expect(published.headers['cache-control']).toBe('private, no-store');
    expect(published.headers.vary).toMatch(/\bAuthorization\b/i);
  });

  it('keeps the answer to an anonymous reader of a public site cacheable, varying on Cookie', async () => {
    const page = await get(`/sites/${site}/welcome`);
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('public, max-age=60');
    expect(String(page.headers.vary)).toMatch(/\bCookie\b/i);
    expect((await get(premiumPath)).status).toBe(404);
  });
});

describe('page views', () => {
  /** A local receiver standing for a developer's tunnel: the site_view payloads it was sent. */
  let tunnel: Server;
  const deliveries: Array<{ type: string; [member: string]: unknown }> = [];
  let site: string;
  let pageId: string;
  let integration: string;

  beforeAll(async () => {
    tunnel = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        // Deliveries are the event itself, as the platform's runtime reads it.
        deliveries.push(JSON.parse(body) as { type: string });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => tunnel.listen(0, '127.0.0.1', resolve));
    const spaceId = await createSpace('Viewed');
    pageId = (await write(spaceId, [insert('Popular', 'Everyone reads this.')])).changes[0].page!.id;
    site = (await publishedSite([spaceId])).id;
    integration = `views-${process.pid}`;
    ok(
      await call('POST', `/v1/integrations/${integration}`, {
        organization: organizationId,
        title: 'Analytics',
        visibility: 'public',
        scopes: ['site:views:read'],
      }),
    );
    const installation = ok(
      await call('POST', `/v1/integrations/${integration}/installations`, { organization: organizationId }),
      201,
    ).body;
    ok(await call('POST', `/v1/integrations/${integration}/installations/${installation.id}/sites`, { site }), 201);
    ok(
      await call('PUT', `/v1/integrations/${integration}/dev`, {
        tunnelUrl: `http://127.0.0.1:${(tunnel.address() as AddressInfo).port}/hook`,
      }),
      204,
    );
    // The installation's own events are delivered (and their delivery recorded) before the views.
    await until('the installation’s events to be delivered', async () => {
      const events = ok(await call('GET', `/v1/integrations/${integration}/events?limit=100`)).body.items as Array<{ status: string }>;
      return events.length >= 2 ? true : undefined;
    });
  });

  afterAll(() => new Promise<void>((resolve) => tunnel.close(() => resolve())));

  const views = () => deliveries.filter((payload) => payload.type === 'site_view');

  it('delivers anonymous page views to an integration that receives site_view, appending nothing to the event log', async () => {
    const before = await appendedEvents();
    const already = views().length;
    const count = 40;
    const pages = await Promise.all(Array.from({ length: count }, () => get(`/sites/${site}/popular`)));
    expect(pages.map((page) => page.status)).toEqual(Array(count).fill(200));
    await until(`${count} site_view deliveries`, () => (views().length >= already + count ? true : undefined));
    expect(views().at(-1)).toEqual(
      expect.objectContaining({
        type: 'site_view',
        siteId: site,
        pageId,
        url: expect.stringContaining(`/sites/${site}/popular`),
        visitor: expect.objectContaining({ claims: {} }),
      }),
    );
    expect(await appendedEvents()).toBe(before);
  });

  it('does not list page views among the integration’s events (they are not kept)', async () => {
    const events = ok(await call('GET', `/v1/integrations/${integration}/events?limit=100`)).body.items as Array<{
      payload: { type: string };
    }>;
    expect(events.map((event) => event.payload.type)).not.toContain('site_view');
  });

  it('cuts the URL a view carries to 2,048 characters', async () => {
    const already = views().length;
    expect((await get(`/sites/${site}/popular?campaign=${'x'.repeat(6000)}`)).status).toBe(200);
    const [view] = await until('the view', () => (views().length > already ? views().slice(already) : undefined));
    expect(view.url).toEqual(expect.stringContaining(`/sites/${site}/popular?campaign=xxx`));
    expect((view.url as string).length).toBe(2048);
  });

  it('carries a visitor’s claims, and leaves them out when their JSON is over 2 KB', async () => {
    const already = views().length;
    const small = await siteToken(site, { plan: 'pro' });
    expect((await get(`/sites/${site}/popular`, { cookie: `site_visitor_token=${small}` })).status).toBe(200);
    const [first] = await until('the first view', () => (views().length > already ? views().slice(already) : undefined));
    expect(first.visitor).toEqual(expect.objectContaining({ claims: expect.objectContaining({ plan: 'pro' }) }));
    const large = await siteToken(site, { plan: 'pro', profile: 'p'.repeat(2500) });
    const page = await get(`/sites/${site}/popular`, { cookie: `site_visitor_token=${large}` });
    // Private: the token was taken, its claims verified.
    expect([page.status, page.headers['cache-control']]).toEqual([200, 'private, no-store']);
    const [, second] = await until('the second view', () => (views().length > already + 1 ? views().slice(already) : undefined));
    expect(second.visitor).toEqual(expect.objectContaining({ claims: {} }));
  });
});

describe('the rate limit of the published sites', () => {
  let limited: RunningService;
  let site: string;

  beforeAll(async () => {
    // One proxy in front: X-Forwarded-For names the client, so each test's reader has an address of its own.
    limited = await startService({ env: { SITES_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY_HOPS: '1' } });
    const { token } = await limited.createUser('ada@sites-limited.example', 'ada');
    const as = async (method: string, path: string, body: unknown, status = 200) =>
      ok(await limited.request(method, path, { token, body }), status).body;
    const organization = (await as('POST', '/v1/orgs', { title: 'Limited Inc' }, 201)).id as string;
    const spaceId = (await as('POST', `/v1/orgs/${organization}/spaces`, { title: 'Limited' }, 201)).id as string;
    await as('POST', `/v1/spaces/${spaceId}/content`, { changes: [insert('Welcome', 'Hello.')] });
    site = (await as('POST', `/v1/orgs/${organization}/sites`, { title: 'Limited', spaces: [spaceId] }, 201)).id as string;
    await as('POST', `/v1/orgs/${organization}/sites/${site}/publish`, undefined);
  });

  // Fixed one-minute windows: 11 requests put at least 6 into one window, whenever the minute turns.
  const burst = (address: string) =>
    Promise.all(Array.from({ length: 11 }, () => get(`/sites/${site}/welcome`, { 'x-forwarded-for': address }, limited)));

  it('answers a client address past SITES_RATE_LIMIT_PER_MINUTE with 429, Retry-After and the error envelope', async () => {
    const answers = await burst('203.0.113.7');
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status !== 429).every((answer) => answer.status === 200)).toBe(true);
    expect(Number(refused[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused[0].headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(refused[0].text)).toEqual({
      error: { code: 429, message: expect.stringMatching(/rate limit of 5 requests per minute/) },
    });
  });

  it('counts each client address on its own', async () => {
    await burst('203.0.113.8');
    expect((await get(`/sites/${site}/welcome`, { 'x-forwarded-for': '198.51.100.9' }, limited)).status).toBe(200);
  });
});

describe('visitor tokens of a JWKS URL', () => {
  /** A key server on loopback: `/keys.json` answers the set, `/failing.json` 500, `/slow.json` the set once released; requests counted by path. */
  let keyServer: Server;
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;
  const requests = new Map<string, number>();
  let releaseSlow: () => void = () => undefined;
  const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
  const keyUrl = (path: string) => `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}${path}`;
  const rs256 = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setExpirationTime('1h').sign(keys.privateKey);
  const readWith = (siteId: string, token: string) => service.request('GET', `${sites()}/${siteId}/published?jwt_token=${token}`);

  async function visitorSite(jwksPath: string, issuer?: string): Promise<string> {
    const spaceId = await createSpace('Members only');
    const { id } = await publishedSite([spaceId], { visibility: 'visitor-auth' });
    ok(await call('PUT', `${sites()}/${id}/visitor-auth`, { jwksUrl: keyUrl(jwksPath), ...(issuer !== undefined ? { issuer } : {}) }));
    return id;
  }

  beforeAll(async () => {
    keys = await generateKeyPair('RS256');
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    keyServer = createServer((request, response) => {
      const path = request.url ?? '';
      requests.set(path, (requests.get(path) ?? 0) + 1);
      if (path === '/failing.json') return void response.writeHead(500).end('down');
      const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
      if (path === '/slow.json') return void slowReleased.then(answer);
      answer();
    });
    await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => {
    releaseSlow();
    keyServer.closeAllConnections();
    return new Promise<void>((resolve) => keyServer.close(() => resolve()));
  });

  it('admits a token whose audience is the site’s id', async () => {
    const siteId = await visitorSite('/keys.json');
    expect(ok(await readWith(siteId, await rs256({ aud: siteId }))).body.site.id).toBe(siteId);
  });

  it('refuses a token for another site naming the same key set, and a token without an audience (404)', async () => {
    const [mine, theirs] = [await visitorSite('/keys.json'), await visitorSite('/keys.json')];
    expectError(await readWith(theirs, await rs256({ aud: mine })), 404);
    expectError(await readWith(mine, await rs256({})), 404);
  });

  it('admits only tokens of the site’s issuer once it names one', async () => {
    const siteId = await visitorSite('/keys.json', 'https://login.example.com/');
    expect(ok(await call('GET', `${sites()}/${siteId}/visitor-auth`)).body).toMatchObject({ issuer: 'https://login.example.com/' });
    ok(await readWith(siteId, await rs256({ aud: siteId, iss: 'https://login.example.com/' })));
    expectError(await readWith(siteId, await rs256({ aud: siteId, iss: 'https://elsewhere.example.com/' })), 404);
    expectError(await readWith(siteId, await rs256({ aud: siteId })), 404);
  });

  it('refuses an issuer without a JWKS URL, and one that is not text (400)', async () => {
    const { id } = await publishedSite([await createSpace('No keys')], { visibility: 'visitor-auth' });
    expectError(await call('PUT', `${sites()}/${id}/visitor-auth`, { jwksUrl: null, issuer: 'https://login.example.com/' }), 400, /issuer/);
    expectError(await call('PUT', `${sites()}/${id}/visitor-auth`, { jwksUrl: keyUrl('/keys.json'), issuer: 42 }), 400, /issuer/);
  });

  it('asks a failing key server once, and remembers the failure for a while', async () => {
    const siteId = await visitorSite('/failing.json');
    const token = await rs256({ aud: siteId });
    for (let attempt = 0; attempt < 5; attempt += 1) expectError(await readWith(siteId, token), 404);
    expect(requests.get('/failing.json')).toBe(1);
  });

  it('fetches a key set not yet known once for readers arriving together', async () => {
    const siteId = await visitorSite('/slow.json');
    const token = await rs256({ aud: siteId });
    const readers = Promise.all(Array.from({ length: 8 }, () => readWith(siteId, token)));
    await until('the key set to be asked for', () => (requests.get('/slow.json') ? true : undefined));
    // Give the other readers time to arrive while the first fetch is in flight.
    await new Promise((resolve) => setTimeout(resolve, 500));
    releaseSlow();
    expect((await readers).map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(requests.get('/slow.json')).toBe(1);
  });
});

describe('files a browser would run', () => {
  const ACTIVE = [
    ['formula.mml', 'application/mathml+xml'],
    ['style.xsl', 'text/xsl'],
    ['graph.rdf', 'application/rdf+xml'],
    ['stream.bin', 'multipart/x-mixed-replace; boundary=frame'],
    ['page.html', 'text/html'],
    ['drawing.svg', 'image/svg+xml'],
    ['script.js', 'text/javascript'],
  ] as const;
  const INERT = [
    ['photo.png', 'image/png'],
    ['notes.txt', 'text/plain'],
    ['manual.pdf', 'application/pdf'],
  ] as const;
  let site: string;
  const files = new Map<string, { id: string; downloadURL: string }>();

  beforeAll(async () => {
    const spaceId = await createSpace('Files');
    const body = Buffer.from('<html><script>alert(document.domain)</script></html>').toString('base64');
    const written = await write(spaceId, [
      { operation: 'insert_files', files: [...ACTIVE, ...INERT].map(([name, contentType]) => ({ name, contentType, base64: body })) },
      insert('Index', 'Files.'),
    ]);
    for (const file of written.insertedFiles) files.set(file.name, file);
    site = (await publishedSite([spaceId])).id;
  });

  it.each(ACTIVE)('serves %s (%s) from a site’s ~files as an attachment, unsniffed', async (name) => {
    const answer = await get(`/sites/${site}/~files/${files.get(name)!.id}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-disposition']).toMatch(/^attachment;/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(INERT)('serves %s (%s) from a site’s ~files inline', async (name, contentType) => {
    const answer = await get(`/sites/${site}/~files/${files.get(name)!.id}`);
    expect(answer.headers['content-disposition']).toMatch(/^inline;/);
    expect(answer.headers['content-type']).toBe(contentType);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(ACTIVE)('serves %s (%s) from a space’s file download as an attachment, unsniffed', async (name) => {
    const answer = await get(files.get(name)!.downloadURL.slice(service.url.length));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-disposition']).toMatch(/^attachment;/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves an inert type from a space’s file download inline', async () => {
    const answer = await get(files.get('photo.png')!.downloadURL.slice(service.url.length));
    expect(answer.headers['content-disposition']).toMatch(/^inline;/);
  });
});
