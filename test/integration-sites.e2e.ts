/**
 * Integrations on docs sites: installing on a site of the installation's organization, reading,
 * changing and removing it, the lists (by installation, by integration, ids or Site objects), the
 * installation's `site_selection`, a deleted site taking its installations along, the integration
 * events of it all, and readers' views delivered as `site_view` (to a local tunnel) only to
 * integrations that receive them, without entering the event log.
 *
 * The people: ada administers the organization that publishes and installs; otto administers another.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiSpec, type ApiSpec } from '#testing';
import type { IntegrationsForSites } from '#integrations';
import { SITE_VIEWS } from '#sites';
import { cleanUpServices, expectError, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
const people: Record<'ada' | 'otto', Person> = {} as never;
let organizationId: string;
let otherId: string;

const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
let counter = 0;
const uniqueName = () => `site-integration-${process.pid}-${++counter}`;
const siteConfiguration = { site: { properties: { trackingId: { type: 'string', title: 'Tracking id' } }, required: ['trackingId'] } };

async function site(person: Person, organization: string, title = 'Docs'): Promise<string> {
  const spaceId = ok(await call(person, 'POST', `/v1/orgs/${organization}/spaces`, { title: `${title} space` }), 201).body.id;
  return ok(await call(person, 'POST', `/v1/orgs/${organization}/sites`, { title, spaces: [spaceId] }), 201).body.id;
}

/** A published integration installed in ada's organization: its name and the installation's paths. */
async function installed(definition: Record<string, unknown> = {}) {
  const name = uniqueName();
  ok(
    await call(people.ada, 'POST', `/v1/integrations/${name}`, {
      organization: organizationId,
      title: 'Analytics',
      visibility: 'public',
      configurations: siteConfiguration,
      ...definition,
    }),
  );
  const installation = ok(
    await call(people.ada, 'POST', `/v1/integrations/${name}/installations`, { organization: organizationId }),
    201,
  ).body;
  const base = `/v1/integrations/${name}/installations/${installation.id}`;
  return { name, installationId: installation.id as string, base, sites: `${base}/sites` };
}

const eventTypes = async (name: string) =>
  (
    ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events?limit=100`)).body.items as Array<{
      payload: { type: string; siteId?: string };
    }>
  ).map((event) => event.payload);

beforeAll(async () => {
  service = await startService();
  for (const name of ['ada', 'otto'] as const) {
    const created = await service.createUser(`${name}@integration-sites.example`, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Sites and integrations' }), 201).body.id;
  otherId = ok(await call(people.otto, 'POST', '/v1/orgs', { title: 'Elsewhere' }), 201).body.id;
});

afterAll(cleanUpServices);

describe('installing on a site', () => {
  it('installs on a site of the organization (201): the site installation, active, with its URLs', async () => {
    const { name, installationId, sites } = await installed();
    const siteId = await site(people.ada, organizationId);
    const created = ok(await call(people.ada, 'POST', sites, { site: siteId, configuration: { trackingId: 'UA-1' } }), 201).body;
    expect(created).toEqual({
      object: 'integration-site-installation',
      integration: name,
      installation: installationId,
      status: 'active',
      configuration: { trackingId: 'UA-1' },
      externalIds: [],
      urls: {
        location: expect.stringMatching(new RegExp(`/v1/integrations/${name}/installations/${installationId}/sites/${siteId}$`)),
        publicEndpoint: expect.stringMatching(/\/public$/),
        publicContentEndpoint: expect.stringMatching(/\/public$/),
      },
      site: siteId,
    });
    expect(ok(await call(people.ada, 'GET', `${sites}/${siteId}`)).body).toEqual(created);
  });

  it('refuses a site of another organization, and one that does not exist (404)', async () => {
    const { sites } = await installed();
    const theirs = await site(people.otto, otherId, 'Theirs');
    expectError(await call(people.ada, 'POST', sites, { site: theirs }), 404, /no site/);
    expectError(await call(people.ada, 'POST', sites, { site: 'NoSuchSite0000000000' }), 404, /no site/);
  });

  it('validates the configuration against the integration’s site configuration (400)', async () => {
    const { sites } = await installed();
    const siteId = await site(people.ada, organizationId);
    expectError(await call(people.ada, 'POST', sites, { site: siteId, configuration: { trackingId: 7 } }), 400, /trackingId/);
    expectError(await call(people.ada, 'POST', sites, { site: '__proto__' }), 400, /site must be a site id/);
  });

  it('is for admins of the installation’s organization: others do not see the installation (404)', async () => {
    const { sites } = await installed();
    const siteId = await site(people.ada, organizationId);
    expectError(await call(people.otto, 'POST', sites, { site: siteId }), 404);
  });
});

describe('site installations', () => {
  it('lists an installation’s sites, and the integration’s across installations, as ids or Site objects', async () => {
    const { name, installationId, sites } = await installed();
    const [first, second] = [await site(people.ada, organizationId, 'First'), await site(people.ada, organizationId, 'Second')];
    for (const siteId of [first, second])
      ok(await call(people.ada, 'POST', sites, { site: siteId, configuration: { trackingId: siteId } }), 201);
    const byInstallation = ok(await call(people.ada, 'GET', sites)).body;
    expect(byInstallation.count).toBe(2);
    expect(byInstallation.items.map((item: { site: string }) => item.site).sort()).toEqual([first, second].sort());
    const byIntegration = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/sites`)).body.items;
    expect(byIntegration.every((item: { installation: string }) => item.installation === installationId)).toBe(true);
    const extended = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/sites?extended=true`)).body.items;
    expect(extended.map((item: { site: { object: string; id: string } }) => [item.site.object, item.site.id]).sort()).toEqual(
      [
        ['site', first],
        ['site', second],
      ].sort(),
    );
    const page = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/sites?limit=1`)).body;
    expect(page.items).toHaveLength(1);
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/sites?limit=1&page=${page.next.page}`)).body.items).toHaveLength(1);
  });

  it('shows another organization’s admin none of them', async () => {
    const { name, sites } = await installed();
    ok(await call(people.ada, 'POST', sites, { site: await site(people.ada, organizationId), configuration: { trackingId: 'x' } }), 201);
    expect(ok(await call(people.otto, 'GET', `/v1/integrations/${name}/sites`)).body).toEqual({ count: 0, items: [] });
  });

  it('changes the configuration and the status (PATCH)', async () => {
    const { sites } = await installed();
    const siteId = await site(people.ada, organizationId);
    ok(await call(people.ada, 'POST', sites, { site: siteId, configuration: { trackingId: 'UA-1' } }), 201);
    const changed = ok(
      await call(people.ada, 'PATCH', `${sites}/${siteId}`, { configuration: { trackingId: 'UA-2' }, status: 'paused' }),
    ).body;
    expect(changed).toMatchObject({ configuration: { trackingId: 'UA-2' }, status: 'paused' });
    expectError(
      await call(people.ada, 'PATCH', `${sites}/${siteId}`, { configuration: { trackingId: 'UA-3', unknown: true } }),
      400,
      /unknown/,
    );
  });

  it('uninstalls from the site (204), after which it is gone', async () => {
    const { sites } = await installed();
    const siteId = await site(people.ada, organizationId);
    ok(await call(people.ada, 'POST', sites, { site: siteId, configuration: { trackingId: 'UA-1' } }), 201);
    ok(await call(people.ada, 'DELETE', `${sites}/${siteId}`), 204);
    expectError(await call(people.ada, 'GET', `${sites}/${siteId}`), 404);
    expectError(await call(people.ada, 'DELETE', `${sites}/${siteId}`), 404);
    expect(ok(await call(people.ada, 'GET', sites)).body.items).toEqual([]);
  });

  it('lets the installation select every site (site_selection)', async () => {
    const { base } = await installed();
    expect(ok(await call(people.ada, 'GET', base)).body.site_selection).toBe('selected');
    expect(ok(await call(people.ada, 'PATCH', base, { site_selection: 'all' })).body).toMatchObject({
      site_selection: 'all',
      space_selection: 'selected',
    });
    expectError(await call(people.ada, 'PATCH', base, { site_selection: 'some' }), 400, /site_selection/);
  });

  it('loses the installations of a deleted site', async () => {
    const { sites } = await installed();
    const siteId = await site(people.ada, organizationId);
    ok(await call(people.ada, 'POST', sites, { site: siteId, configuration: { trackingId: 'UA-1' } }), 201);
    ok(await call(people.ada, 'DELETE', `/v1/orgs/${organizationId}/sites/${siteId}`), 205);
    expectError(await call(people.ada, 'GET', `${sites}/${siteId}`), 404);
    expect(ok(await call(people.ada, 'GET', sites)).body.items).toEqual([]);
  });
});

describe('integration events of site installations', () => {
  it('derives site_installation_setup and site_installation_deleted, a deleted site’s included', async () => {
    const { name, sites } = await installed();
    const [kept, deleted] = [await site(people.ada, organizationId, 'Kept'), await site(people.ada, organizationId, 'Deleted')];
    for (const siteId of [kept, deleted])
      ok(await call(people.ada, 'POST', sites, { site: siteId, configuration: { trackingId: 'x' } }), 201);
    ok(await call(people.ada, 'DELETE', `${sites}/${kept}`), 204);
    ok(await call(people.ada, 'DELETE', `/v1/orgs/${organizationId}/sites/${deleted}`), 205);
    const events = await eventTypes(name);
    const about = (siteId: string) => events.filter((event) => event.siteId === siteId).map((event) => event.type);
    expect(about(kept)).toEqual(['site_installation_deleted', 'site_installation_setup']);
    expect(about(deleted)).toEqual(['site_installation_deleted', 'site_installation_setup']);
  });
});

describe('readers’ views (in process, through SITE_VIEWS)', () => {
  let api: ApiSpec;
  let ada: { token: string };
  let organization: string;
  /** A local receiver standing for the integrations' development tunnel: every delivery it got. */
  let tunnel: Server;
  let tunnelUrl: string;
  const delivered: Array<{ integrationId: string; payload: Record<string, unknown> }> = [];

  const request = async (method: string, url: string, body?: unknown, status = 200) => {
    const answer = await api.request(method, url, { token: ada.token, body });
    if (answer.status !== status)
      throw new Error(`${method} ${url}: expected ${status}, got ${answer.status}: ${answer.text.slice(0, 500)}`);
    return answer.body;
  };
  const publishAndInstall = async (scopes: string[]) => {
    const name = uniqueName();
    await request('POST', `/v1/integrations/${name}`, { organization, title: 'Views', visibility: 'public', scopes });
    await request('PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: `${tunnelUrl}/${name}` }, 204);
    const installation = await request('POST', `/v1/integrations/${name}/installations`, { organization }, 201);
    return { name, base: `/v1/integrations/${name}/installations/${installation.id}` };
  };
  const views = () => api.service.app.get(SITE_VIEWS, { strict: false }) as IntegrationsForSites;
  const view = (siteId: string, spaceId: string) => ({
    organizationId: organization,
    siteId,
    spaceId,
    pageId: null,
    url: `https://docs.example.com/${siteId}/guide`,
    visitor: { claims: { plan: 'pro' } },
  });
  async function viewed(...seen: Array<Parameters<IntegrationsForSites['viewed']>[0]>) {
    for (const one of seen) await views().viewed(one);
    await views().settled();
  }
  const siteViews = (name: string) =>
    delivered
      .filter((delivery) => delivery.integrationId === name && delivery.payload.type === 'site_view')
      .map((delivery) => delivery.payload);

  beforeAll(async () => {
    tunnel = createServer((incoming, answer) => {
      let body = '';
      incoming.on('data', (chunk) => (body += chunk));
      incoming.on('end', () => {
        // A delivery is the event itself: which integration it is for is the tunnel's path (`…/hook/<name>`).
        delivered.push({ integrationId: String(incoming.url).split('/').pop()!, payload: JSON.parse(body) });
        answer.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => tunnel.listen(0, '127.0.0.1', resolve));
    tunnelUrl = `http://127.0.0.1:${(tunnel.address() as AddressInfo).port}/hook`;
    api = await apiSpec({ env: { INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' } });
    ada = await api.createUser('Ada');
    organization = (await request('POST', '/v1/orgs', { title: 'Readers' }, 201)).id;
  });

  afterAll(async () => {
    await api.close();
    await new Promise<void>((resolve) => tunnel.close(() => resolve()));
  });

  it('becomes site_view for an installation on the site whose integration has site:views:read, and for no other', async () => {
    const spaceId = (await request('POST', `/v1/orgs/${organization}/spaces`, { title: 'Guide' }, 201)).id;
    const siteId = (await request('POST', `/v1/orgs/${organization}/sites`, { title: 'Docs', spaces: [spaceId] }, 201)).id;
    const subscribed = await publishAndInstall(['site:views:read']);
    const unsubscribed = await publishAndInstall([]);
    const notOnTheSite = await publishAndInstall(['site:views:read']);
    for (const { base } of [subscribed, unsubscribed]) await request('POST', `${base}/sites`, { site: siteId }, 201);
    await viewed(view(siteId, spaceId));
    expect(siteViews(subscribed.name)).toEqual([
      expect.objectContaining({
        type: 'site_view',
        siteId,
        spaceId,
        url: `https://docs.example.com/${siteId}/guide`,
        visitor: expect.objectContaining({ claims: { plan: 'pro' } }),
      }),
    ]);
    expect(siteViews(unsubscribed.name)).toEqual([]);
    expect(siteViews(notOnTheSite.name)).toEqual([]);
  });

  it('reaches an installation with site_selection all, on every site of the organization', async () => {
    const spaceId = (await request('POST', `/v1/orgs/${organization}/spaces`, { title: 'Other guide' }, 201)).id;
    const siteId = (await request('POST', `/v1/orgs/${organization}/sites`, { title: 'Other docs', spaces: [spaceId] }, 201)).id;
    const everywhere = await publishAndInstall(['site:views:read']);
    await request('PATCH', everywhere.base, { site_selection: 'all' });
    await viewed(view(siteId, spaceId));
    expect(siteViews(everywhere.name)).toEqual([expect.objectContaining({ siteId })]);
  });

  it('delivers a reader’s view of a page of the published HTML site, with the page', async () => {
    const spaceId = (await request('POST', `/v1/orgs/${organization}/spaces`, { title: 'Read guide' }, 201)).id;
    const written = await request('POST', `/v1/spaces/${spaceId}/content`, {
      changes: [{ operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello.' } }],
    });
    const pageId = written.changes[0].page.id as string;
    const siteId = (await request('POST', `/v1/orgs/${organization}/sites`, { title: 'Read docs', spaces: [spaceId] }, 201)).id;
    await request('POST', `/v1/orgs/${organization}/sites/${siteId}/publish`);
    const reading = await publishAndInstall(['site:views:read']);
    await request('POST', `${reading.base}/sites`, { site: siteId }, 201);
    expect((await api.request('GET', `/sites/${siteId}/welcome`)).status).toBe(200);
    await views().settled();
    expect(siteViews(reading.name)).toEqual([
      expect.objectContaining({ type: 'site_view', siteId, spaceId, pageId, url: expect.stringContaining(`/sites/${siteId}/welcome`) }),
    ]);
  });

  it('appends nothing to the event log for a view, received or not, and never fails the reader on a bad view', async () => {
    const spaceId = (await request('POST', `/v1/orgs/${organization}/spaces`, { title: 'Logged' }, 201)).id;
    const siteId = (await request('POST', `/v1/orgs/${organization}/sites`, { title: 'Logged docs', spaces: [spaceId] }, 201)).id;
    const receiving = await publishAndInstall(['site:views:read']);
    await request('POST', `${receiving.base}/sites`, { site: siteId }, 201);
    // An organization of its own: the installations above that select every site do not reach it.
    const quiet = (await request('POST', '/v1/orgs', { title: 'Quiet readers' }, 201)).id;
    const quietSpace = (await request('POST', `/v1/orgs/${quiet}/spaces`, { title: 'Quiet' }, 201)).id;
    const quietSite = (await request('POST', `/v1/orgs/${quiet}/sites`, { title: 'Quiet docs', spaces: [quietSpace] }, 201)).id;
    await api.settled();
    const since = await api.position();
    await viewed(
      view(siteId, spaceId),
      { ...view(quietSite, quietSpace), organizationId: quiet },
      { ...view('__proto__', spaceId) },
      null as never,
    );
    expect(siteViews(receiving.name)).toHaveLength(1);
    // What the integrations worker records of the installations' own events meanwhile is no view.
    expect(await api.appendedEvents(since, { streamId: /^(?!integrationdelivery-)/ })).toEqual([]);
  });
});
