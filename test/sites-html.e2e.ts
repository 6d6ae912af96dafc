/**
 * The published site as HTML through HTTP against the embedded service: pages with navigation,
 * links between pages, search, files, visibility (unpublished, deleted, unlisted, share-link,
 * visitor-auth), 404s, ETag and 304, Cache-Control, robots meta, the sitemap and robots.txt.
 *
 * The site: "Handbook" (a space with a start page linking to its install page, a nested page, a group,
 * a hidden page and a page kept out of search engines) published publicly.
 */
import { request as httpRequest } from 'node:http';
import { SignJWT } from 'jose';
import { FakeDns } from '#testing/fake-dns';
import { joinAs } from './support/members';
import { cleanUpServices, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
/** Answers the TXT lookups of domain verification (DNS_SERVERS). */
let dns: FakeDns;
let organizationId: string;
const people: Record<'ada' | 'rita', Person> = {} as never;
const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
const sites = () => `/v1/orgs/${organizationId}/sites`;
const insert = (title: string, markdown: string, extra: Record<string, unknown> = {}) => ({
  operation: 'insert_page',
  title,
  document: { markdown },
  ...extra,
});

/** A GET as a browser sends it (no redirects followed), with any headers, Host included. */
function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: service.port, path, method: 'GET', headers }, (response) => {
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

async function createSpace(title: string): Promise<string> {
  return ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title }), 201).body.id;
}

async function write(spaceId: string, changes: unknown[]): Promise<{ changes: Array<{ page: { id: string; path: string } }> }> {
  return ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes })).body;
}

/** Verifies `domain` for the organization as its admin would: add it, publish its TXT record, verify (a site's hostname must be in a verified domain). */
async function verifyDomain(domain: string): Promise<void> {
  const domains = `/v1/orgs/${organizationId}/verified-domains`;
  const added = ok(await call(people.ada, 'POST', domains, { domain }), 201).body;
  dns.records.set(added.txtRecord.name, [added.txtRecord.value]);
  ok(await call(people.ada, 'POST', `${domains}/${domain}/verify`));
}

async function publishedSite(spaceIds: string[], changes: Record<string, unknown> = {}): Promise<string> {
  const site = ok(await call(people.ada, 'POST', sites(), { title: 'Handbook site', spaces: spaceIds }), 201).body;
  if (Object.keys(changes).length > 0) ok(await call(people.ada, 'PATCH', `${sites()}/${site.id}`, changes));
  ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`));
  return site.id;
}

let handbook: string;
let siteId: string;

beforeAll(async () => {
  dns = await FakeDns.start();
  service = await startService({ env: { DNS_SERVERS: dns.server } });
  for (const name of ['ada', 'rita'] as const) {
    const created = await service.createUser(`${name}@sites-html.example`, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Sites HTML Inc' }), 201).body.id;
  await joinAs(service, organizationId, people.ada.token, [{ token: people.rita.token, email: 'rita@sites-html.example', role: 'read' }]);
  handbook = await createSpace('Handbook');
  await write(handbook, [
    insert('Getting started', '## Welcome\n\nRead the [install guide](./install.md) first.\n\n<script>alert(1)</script>', { ref: 'start' }),
    insert('Install', 'Run `npm install` with **care**.\n\n```js\nconst a = 1 < 2;\n```', { ref: 'install', into: 'start' }),
    insert('Secret plans', 'Hidden from the navigation.', { hidden: true }),
    insert('Internal notes', 'Not for search engines.', { noIndex: true }),
    { operation: 'insert_page', type: 'group', title: 'Reference' },
  ]);
  siteId = await publishedSite([handbook]);
});

afterAll(async () => {
  await cleanUpServices();
  await dns?.close();
});

describe('a published public site', () => {
  it('answers its first page at the site root, as HTML with the navigation and the page marked current', async () => {
    const response = await get(`/sites/${siteId}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.text).toMatch(/^<!doctype html>/);
    expect(response.text).toContain('<h1>Getting started</h1>');
    expect(response.text).toContain(`<a href="/sites/${siteId}/getting-started" aria-current="page">Getting started</a>`);
    expect(response.text).toContain(`<a href="/sites/${siteId}/getting-started/install">Install</a>`);
    expect(response.text).toContain('<span class="group">Reference</span>');
  });

  it('renders a page by its path, links between pages going to the site’s own URLs', async () => {
    const response = await get(`/sites/${siteId}/getting-started`);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`<a href="/sites/${siteId}/getting-started/install">install guide</a>`);
    expect(response.text).toMatch(/<h2 id="welcome">/);
  });

  it('escapes what the content says and runs no script from it, under a strict Content-Security-Policy', async () => {
    const start = await get(`/sites/${siteId}/getting-started`);
    expect(start.text).not.toContain('<script');
    expect(start.headers['content-security-policy']).toContain("default-src 'none'");
    expect(start.headers['content-security-policy']).not.toContain('script-src');
    const install = await get(`/sites/${siteId}/getting-started/install`);
    expect(install.text).toContain('<pre><code class="language-js">const a = 1 &#x3C; 2;</code></pre>');
    expect(install.text).toContain('<strong>care</strong>');
  });

  it('leaves hidden pages out of the navigation but serves them', async () => {
    const root = await get(`/sites/${siteId}`);
    expect(root.text).not.toContain('Secret plans');
    expect((await get(`/sites/${siteId}/secret-plans`)).status).toBe(200);
  });

  it('marks pages kept out of search engines noindex, and only those', async () => {
    expect((await get(`/sites/${siteId}/internal-notes`)).text).toContain('<meta name="robots" content="noindex">');
    expect((await get(`/sites/${siteId}/getting-started`)).text).not.toContain('name="robots"');
  });

  it('answers a page that does not exist with an HTML 404', async () => {
    const response = await get(`/sites/${siteId}/no/such/page`);
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.text).toContain('Page not found');
  });

  it('gives an ETag from the site and the content, and answers 304 to it', async () => {
    const first = await get(`/sites/${siteId}/getting-started`);
    expect(first.headers.etag).toMatch(/^"\d+\.[A-Za-z0-9]+\.[A-Za-z0-9_-]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    const again = await get(`/sites/${siteId}/getting-started`, { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('changes the ETag when the content changes', async () => {
    const before = (await get(`/sites/${siteId}/getting-started`)).headers.etag;
    await write(handbook, [insert('Changelog', 'Version 1.')]);
    const after = await get(`/sites/${siteId}/getting-started`, { 'if-none-match': String(before) });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before);
  });

  it('changes the ETag and the page when the title of a space among its variants changes', async () => {
    const english = await createSpace('English');
    await write(english, [insert('Welcome', 'Hello.')]);
    const german = await createSpace('Deutsch');
    await write(german, [insert('Willkommen', 'Hallo.')]);
    const site = await publishedSite([english, german]);
    const before = await get(`/sites/${site}`);
    expect(before.text).toContain('Deutsch');
    ok(await call(people.ada, 'PATCH', `/v1/spaces/${german}`, { title: 'German' }));
    const after = await get(`/sites/${site}`, { 'if-none-match': String(before.headers.etag) });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.text).toContain('German');
    expect(after.text).not.toContain('Deutsch');
  });

  it('changes the ETag when a space the page links to has new content', async () => {
    const target = await createSpace('Linked');
    const targetPage = (await write(target, [insert('Target', 'Here.')])).changes[0].page.id;
    const source = await createSpace('Linking');
    const link = {
      object: 'inline',
      type: 'link',
      data: { ref: { kind: 'page', space: target, page: targetPage } },
      nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'the target', marks: [] }] }],
    };
    await write(source, [
      {
        operation: 'insert_page',
        title: 'Source',
        document: { document: { object: 'document', nodes: [{ object: 'block', type: 'paragraph', nodes: [link] }] } },
      },
    ]);
    const site = await publishedSite([source, target]);
    const before = await get(`/sites/${site}`);
    expect(before.text).toContain('the target</a>');
    await write(target, [insert('Another', 'More.')]);
    const after = await get(`/sites/${site}`, { 'if-none-match': String(before.headers.etag) });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('searches the site space and lists matching pages as links', async () => {
    const response = await get(`/sites/${siteId}/~search?q=npm`);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`<a href="/sites/${siteId}/getting-started/install">Install</a>`);
    expect(response.text).toContain('<meta name="robots" content="noindex">');
  });

  it('serves a sitemap of the public pages, without hidden and noindex ones', async () => {
    const response = await get(`/sites/${siteId}/sitemap.xml`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(response.text).toContain(`${service.url}/sites/${siteId}/getting-started/install</loc>`);
    expect(response.text).not.toContain('secret-plans');
    expect(response.text).not.toContain('internal-notes');
  });

  it('serves robots.txt naming the sitemap', async () => {
    const response = await get(`/sites/${siteId}/robots.txt`);
    expect(response.text).toBe(`User-agent: *\nAllow: /\nSitemap: ${service.url}/sites/${siteId}/sitemap.xml\n`);
  });

  it('serves the stylesheet it links to', async () => {
    const response = await get(`/sites/${siteId}/~site.css`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers under the site’s basename too, linking there', async () => {
    const id = await publishedSite([handbook], { basename: 'docs' });
    const response = await get(`/sites/${id}/docs/getting-started`);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`<a href="/sites/${id}/docs/getting-started/install">install guide</a>`);
  });
});

describe('sections and site spaces', () => {
  it('shows the sections, and each section’s pages under its path', async () => {
    const guides = await createSpace('Guides');
    await write(guides, [insert('Tutorial', 'Learn it.')]);
    const api = await createSpace('API');
    await write(api, [insert('Endpoints', 'Call them.')]);
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Sectioned' }), 201).body;
    ok(await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: guides, title: 'Guides' }), 201);
    const reference = ok(
      await call(people.ada, 'POST', `${sites()}/${site.id}/sections`, { spaceId: api, title: 'API reference' }),
      201,
    ).body;
    ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`));
    const root = await get(`/sites/${site.id}`);
    expect(root.text).toContain('<h1>Tutorial</h1>');
    expect(root.text).toContain(`<a href="/sites/${site.id}/${reference.path}">API reference</a>`);
    const section = await get(`/sites/${site.id}/${reference.path}/endpoints`);
    expect(section.status).toBe(200);
    expect(section.text).toContain('<h1>Endpoints</h1>');
  });
});

describe('who may read', () => {
  it('answers 404 for a site not published yet, and for a deleted one', async () => {
    const site = ok(await call(people.ada, 'POST', sites(), { title: 'Draft', spaces: [handbook] }), 201).body;
    expect((await get(`/sites/${site.id}`)).status).toBe(404);
    ok(await call(people.ada, 'POST', `${sites()}/${site.id}/publish`));
    expect((await get(`/sites/${site.id}`)).status).toBe(200);
    ok(await call(people.ada, 'DELETE', `${sites()}/${site.id}`), 205);
    expect((await get(`/sites/${site.id}`)).status).toBe(404);
  });

  it('answers 404 for an unknown site and for an id that is not one', async () => {
    expect((await get('/sites/nosuchsite0000000000')).status).toBe(404);
    expect((await get('/sites/__proto__')).status).toBe(404);
    expect((await get(`/sites/${'x'.repeat(65)}`)).status).toBe(404);
  });

  it('serves an unlisted site to anyone, every page noindex, with no sitemap and robots.txt refusing crawlers', async () => {
    const id = await publishedSite([handbook], { visibility: 'unlisted' });
    const page = await get(`/sites/${id}/getting-started`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<meta name="robots" content="noindex">');
    expect((await get(`/sites/${id}/sitemap.xml`)).status).toBe(404);
    expect((await get(`/sites/${id}/robots.txt`)).text).toBe('User-agent: *\nDisallow: /\n');
  });

  it('refuses a share-link site to a reader without its key', async () => {
    const id = await publishedSite([handbook], { visibility: 'share-link' });
    expect((await get(`/sites/${id}`)).status).toBe(404);
    expect((await get(`/sites/${id}?shareKey=not-the-key`)).status).toBe(404);
  });

  it('takes a share key from the query into an HttpOnly cookie of the site’s path, and out of the URL', async () => {
    const id = await publishedSite([handbook], { visibility: 'share-link' });
    const { key } = ok(await call(people.ada, 'POST', `${sites()}/${id}/share-links`, { name: 'Readers' }), 201).body;
    const redirect = await get(`/sites/${id}/getting-started?shareKey=${key}&utm=x`);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.location).toBe(`/sites/${id}/getting-started?utm=x`);
    expect(redirect.headers['set-cookie']).toEqual([`site_share_key=${key}; Path=/sites/${id}; HttpOnly; SameSite=Lax`]);
    const page = await get(`/sites/${id}/getting-started/install`, { cookie: `site_share_key=${key}` });
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.text).toContain('<meta name="robots" content="noindex">');
  });

  it('refuses a visitor-auth site to a reader without a visitor token', async () => {
    const id = await publishedSite([handbook], { visibility: 'visitor-auth' });
    expect((await get(`/sites/${id}`)).status).toBe(404);
    expect((await get(`/sites/${id}?jwt_token=not.a.token`)).status).toBe(404);
  });

  it('admits a visitor with a token, whose claims decide which site spaces they see', async () => {
    const everyone = await createSpace('Everyone');
    await write(everyone, [insert('Welcome', 'Hello.')]);
    const partners = await createSpace('Partners');
    await write(partners, [insert('Deals', 'Prices.')]);
    const id = ok(
      await call(people.ada, 'POST', sites(), { title: 'Members', visibility: 'visitor-auth', spaces: [everyone, partners] }),
      201,
    ).body.id;
    const [, partnerSpace] = ok(await call(people.ada, 'GET', `${sites()}/${id}/site-spaces`)).body.items as Array<{
      id: string;
      path: string;
    }>;
    ok(await call(people.ada, 'PATCH', `${sites()}/${id}/site-spaces/${partnerSpace.id}`, { condition: 'visitor.claims.partner == true' }));
    ok(await call(people.ada, 'POST', `${sites()}/${id}/publish`));
    const { secret } = ok(await call(people.ada, 'GET', `${sites()}/${id}/visitor-auth`)).body;
    const token = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(secret));
    const asVisitor = async (claims: Record<string, unknown>, path: string) =>
      get(path, { cookie: `site_visitor_token=${await token(claims)}` });
    expect((await asVisitor({}, `/sites/${id}`)).text).not.toContain('Partners');
    expect((await asVisitor({}, `/sites/${id}/${partnerSpace.path}/deals`)).status).toBe(404);
    const partner = await asVisitor({ partner: true }, `/sites/${id}/${partnerSpace.path}/deals`);
    expect(partner.status).toBe(200);
    expect(partner.text).toContain('<h1>Deals</h1>');
    const redirect = await get(`/sites/${id}?jwt_token=${await token({})}`);
    expect(redirect.status).toBe(303);
    expect(String(redirect.headers['set-cookie'])).toMatch(/^site_visitor_token=[^;]+; Path=\/sites\/[^;]+; HttpOnly; SameSite=Lax$/);
  });

  /** A site of two spaces with a page each (`<space> page`), and its site spaces in order. */
  async function siteOfTwoSpaces(
    title: string,
    first: string,
    second: string,
  ): Promise<{ id: string; siteSpaces: Array<{ id: string; path: string }> }> {
    const spaces = [];
    for (const [space, body] of [
      [first, 'Everyone.'],
      [second, 'Some.'],
    ]) {
      const spaceId = await createSpace(space);
      await write(spaceId, [insert(`${space} page`, body)]);
      spaces.push(spaceId);
    }
    const id = ok(await call(people.ada, 'POST', sites(), { title, spaces }), 201).body.id as string;
    const siteSpaces = ok(await call(people.ada, 'GET', `${sites()}/${id}/site-spaces`)).body.items as Array<{ id: string; path: string }>;
    return { id, siteSpaces };
  }

  it('hides a site space whose condition is false for the reader, and its pages', async () => {
    const { id, siteSpaces } = await siteOfTwoSpaces('Adaptive', 'Open', 'Closed');
    ok(await call(people.ada, 'PATCH', `${sites()}/${id}/site-spaces/${siteSpaces[1].id}`, { condition: 'visitor.claims.plan == "pro"' }));
    ok(await call(people.ada, 'POST', `${sites()}/${id}/publish`));
    expect((await get(`/sites/${id}`)).text).not.toContain('Closed');
    expect((await get(`/sites/${id}/${siteSpaces[1].path}/closed-page`)).status).toBe(404);
  });

  it('hides a site space from a reader who read the site before its condition was set', async () => {
    const { id, siteSpaces } = await siteOfTwoSpaces('Adaptive later', 'Always', 'Later');
    ok(await call(people.ada, 'POST', `${sites()}/${id}/publish`));
    expect((await get(`/sites/${id}/${siteSpaces[1].path}/later-page`)).status).toBe(200);
    ok(await call(people.ada, 'PATCH', `${sites()}/${id}/site-spaces/${siteSpaces[1].id}`, { condition: 'visitor.claims.plan == "pro"' }));
    expect((await get(`/sites/${id}`)).text).not.toContain('Later');
    expect((await get(`/sites/${id}/${siteSpaces[1].path}/later-page`)).status).toBe(404);
  });
});

describe('a site on its own hostname', () => {
  it('serves the site at the root of its Host, its links without the /sites prefix', async () => {
    await verifyDomain('html-site.example');
    const id = await publishedSite([handbook], { hostname: 'docs.html-site.example' });
    const response = await get('/getting-started', { host: 'docs.html-site.example' });
    expect(response.status).toBe(200);
    expect(response.text).toContain('<a href="/getting-started/install">install guide</a>');
    expect((await get('/robots.txt', { host: 'docs.html-site.example' })).text).toContain(
      'Sitemap: http://docs.html-site.example/sitemap.xml',
    );
    expect((await get(`/sites/${id}/getting-started`)).status).toBe(200);
  });

  it('answers a path of no page on the hostname with the HTML 404', async () => {
    await verifyDomain('html-missing.example');
    await publishedSite([handbook], { hostname: 'docs.html-missing.example' });
    const response = await get('/no/such/page', { host: 'docs.html-missing.example' });
    expect(response.status).toBe(404);
    expect(response.text).toContain('Page not found');
  });
});

describe('the rest of the service', () => {
  it('still answers an unknown route with the API’s 404 envelope', async () => {
    const response = await get('/nowhere', { host: 'docs.unknown.example' });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text)).toEqual({ error: { code: 404, message: 'no route GET /nowhere' } });
  });

  it('still answers an over-long path parameter of the API with 414', async () => {
    const response = await get(`/v1/orgs/${'a'.repeat(300)}`, { host: 'docs.unknown.example' });
    expect(response.status).toBe(414);
    expect(JSON.parse(response.text).error.code).toBe(414);
  });
});
