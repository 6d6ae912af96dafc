/**
 * The read areas of the API benchmark: one GET per area of the API, each on data seeded through
 * the HTTP API at start, compared uncached against a bare Fastify route answering the same body.
 */
import { call, expectStatus, poster, stringField } from './http';

export interface Area {
  /** What the table calls it. */
  name: string;
  /** The service's URL path (and query) of the GET. */
  path: string;
  /** The reference's route pattern, of the service's route shape (parameters where it has them). */
  route: string;
  /** Sent with the GET: the owner's token for /v1 routes, none for the published site. */
  token: string | null;
  /** The body the service answered (captured once, served by the reference). */
  body?: string;
  /** Its content type (JSON or the published site's HTML). */
  contentType?: string;
}

/** The fixture integration's icon (a 1×1 PNG) and script (one UI component). */
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');
const SCRIPT =
  "module.exports = { components: { counter: ({ state }) => ({ type: 'block', children: [], controls: [], state: { count: (state.count || 0) + 1 } }) } };";
const OPENAPI =
  'openapi: 3.0.3\ninfo: { title: Bench, version: "1" }\npaths:\n  /pets:\n    get:\n      responses:\n        "200": { description: ok }\n';

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * An organization with one of each thing the areas read, made through the HTTP API by `token`'s
 * user (its owner), and a few more members so that the member list is not a list of one.
 */
export async function seedAreas(baseUrl: string, adminToken: string, token: string, runId: string): Promise<Area[]> {
  const post = poster(baseUrl, token);
  const org = await post('/v1/orgs', { title: `Bench areas ${runId}` });
  const organizationId = stringField(org, 'id', 'POST /v1/orgs');
  const base = `/v1/orgs/${organizationId}`;
  await expectStatus(200, call('PATCH', `${baseUrl}${base}`, { token, body: { inviteLinks: true } }), 'PATCH organization');

  // Members: a few users joining through a link invite.
  const invite = await post(`${base}/link-invites`, { role: 'read' });
  for (let i = 0; i < 5; i++) {
    const user = await post(
      '/v1/admin/users',
      { email: `bench-member-${i}-${runId}@example.com`, displayName: `Member ${i}` },
      201,
      adminToken,
    );
    await post(`${base}/invites/${stringField(invite, 'id', 'link invite')}`, undefined, 200, stringField(user, 'token', 'user'));
  }

  const spaceId = stringField(await post(`${base}/spaces`, { title: 'Handbook' }), 'id', 'space');
  const collectionId = stringField(await post(`${base}/collections`, { title: 'Guides' }), 'id', 'collection');
  const written = await post(
    `/v1/spaces/${spaceId}/content`,
    {
      changes: [
        {
          operation: 'insert_page',
          title: 'Getting started',
          document: { markdown: '## Welcome\n\nRead the [install guide](./install.md) first.' },
          ref: 'start',
        },
        {
          operation: 'insert_page',
          title: 'Install',
          document: { markdown: 'Run `npm install` with **care**.\n\n```js\nconst a = 1 < 2;\n```' },
          ref: 'install',
          into: 'start',
        },
      ],
    },
    200,
  );
  const pageId = String(written.changes[0].page.id);
  const pagePath = String(written.changes[1].page.path);
  const changeRequestId = stringField(
    await post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Bench change' }),
    'id',
    'change request',
  );
  for (let i = 0; i < 3; i++) await post(`/v1/spaces/${spaceId}/comments`, { page: pageId, body: { markdown: `Comment ${i}` } });

  const site = await post(`${base}/sites`, { title: 'Bench site', spaces: [spaceId] });
  const siteId = stringField(site, 'id', 'site');
  await post(`${base}/sites/${siteId}/publish`, undefined, 200);
  const integrationName = `bench-${runId}`;
  await post(
    `/v1/integrations/${integrationName}`,
    { organization: organizationId, title: 'Bench', visibility: 'public', icon: PNG, script: SCRIPT },
    200,
  );
  const slug = `bench-${runId}`;
  await post(`${base}/openapi`, { slug, source: { text: OPENAPI } });
  // The spec's processing runs after the write answers.
  for (let attempt = 0; attempt < 200; attempt++) {
    const version = await call('GET', `${baseUrl}${base}/openapi/${slug}/versions/latest`, { token });
    if (version.status === 200) break;
    await sleep(25);
  }

  return [
    { name: 'organization', path: base, route: '/v1/orgs/:organizationId', token },
    { name: 'member list', path: `${base}/members`, route: '/v1/orgs/:organizationId/members', token },
    { name: 'space', path: `/v1/spaces/${spaceId}`, route: '/v1/spaces/:spaceId', token },
    { name: 'collection', path: `/v1/collections/${collectionId}`, route: '/v1/collections/:collectionId', token },
    { name: 'page by path', path: `/v1/spaces/${spaceId}/content/path/${pagePath}`, route: '/v1/spaces/:spaceId/content/path/*', token },
    {
      name: 'change request',
      path: `/v1/spaces/${spaceId}/change-requests/${changeRequestId}`,
      route: '/v1/spaces/:spaceId/change-requests/:changeRequestId',
      token,
    },
    { name: 'comment list', path: `/v1/spaces/${spaceId}/comments`, route: '/v1/spaces/:spaceId/comments', token },
    { name: 'site', path: `${base}/sites/${siteId}`, route: '/v1/orgs/:organizationId/sites/:siteId', token },
    { name: 'published site page', path: `/sites/${siteId}/${pagePath}`, route: '/sites/:siteId/*', token: null },
    { name: 'integration', path: `/v1/integrations/${integrationName}`, route: '/v1/integrations/:integrationName', token },
    { name: 'OpenAPI spec', path: `${base}/openapi/${slug}`, route: '/v1/orgs/:organizationId/openapi/:specSlug', token },
  ];
}

/** Captures each area's body and content type with one GET (200 expected). */
export async function captureAreas(baseUrl: string, areas: Area[]): Promise<void> {
  for (const area of areas) {
    const response = await fetch(`${baseUrl}${area.path}`, {
      headers: area.token ? { authorization: `Bearer ${area.token}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(`GET ${area.path} (${area.name}): expected 200, got ${response.status} ${text.slice(0, 500)}`);
    area.body = text;
    area.contentType = response.headers.get('content-type') ?? 'application/json; charset=utf-8';
  }
}
