/**
 * Integrations against hostile publishers, through HTTP against the embedded service:
 * - configuration schemas: many PATCHes of an installation's configuration against a large schema
 *   (each compiled once, not once per request), and schemas beyond the documented limits refused
 *   when published;
 * - scopes: an integration republished asking for `site:views:read` is not delivered readers'
 *   views (`site_view`, with the readers' claims) in an organization that installed it before,
 *   until an admin of that organization accepts the new scope; deliveries are observed on a local
 *   receiver standing for the integrations' development tunnels.
 *
 * The people: ada administers the publishing organization; otto administers another one, which
 * installs ada's integrations.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanUpServices, expectError, ok, startService, until, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
const people: Record<'ada' | 'otto', Person> = {} as never;
let publisher: string;
let installer: string;

const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
/** A local receiver standing for the integrations' development tunnels (`/<integration name>`): the bodies delivered to each. */
let receiver: Server;
let receiverUrl: string;
/** The events each integration's tunnel received (the events themselves, as integrations read them). */
const delivered = new Map<string, Array<Record<string, unknown>>>();
function startReceiver(): Promise<void> {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const name = (request.url ?? '/').slice(1);
      delivered.set(name, [...(delivered.get(name) ?? []), JSON.parse(body) as Record<string, unknown>]);
      response.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => {
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

let counter = 0;
const uniqueName = () => `hostile-integration-${process.pid}-${++counter}`;

const publish = (name: string, body: Record<string, unknown>) =>
  call(people.ada, 'POST', `/v1/integrations/${name}`, { organization: publisher, title: 'Hostile', visibility: 'public', ...body });

/** An account configuration schema of `count` string properties named field0…, the first required. */
const accountSchema = (count: number) => ({
  properties: Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`field${index}`, { type: 'string', title: `Field ${index}` }]),
  ),
  required: ['field0'],
});

beforeAll(async () => {
  await startReceiver();
  service = await startService({ env: { INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  for (const name of ['ada', 'otto'] as const) {
    const created = await service.createUser(`${name}@integrations-hostile.example`, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  publisher = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Publisher' }), 201).body.id;
  installer = ok(await call(people.otto, 'POST', '/v1/orgs', { title: 'Installer' }), 201).body.id;
});

afterAll(async () => {
  receiver?.close();
  await cleanUpServices();
});

describe('configuration schemas', () => {
  it('answers many PATCHes of a configuration against a 300-property schema, each 200, and still 400 naming the field for one that does not follow it', async () => {
    const name = uniqueName();
    ok(await publish(name, { configurations: { account: accountSchema(300) } }));
    const installation = ok(
      await call(people.otto, 'POST', `/v1/integrations/${name}/installations`, { organization: installer }),
      201,
    ).body;
    const path = `/v1/integrations/${name}/installations/${installation.id}`;
    for (let index = 0; index < 60; index += 1) {
      const configuration = { field0: `value ${index}`, [`field${(index % 299) + 1}`]: 'also' };
      expect(ok(await call(people.otto, 'PATCH', path, { configuration })).body.configuration).toEqual(configuration);
    }
    expectError(await call(people.otto, 'PATCH', path, { configuration: { field0: 7 } }), 400, /configuration\.field0 must be string/);
    expectError(await call(people.otto, 'PATCH', path, { configuration: { field1: 'x' } }), 400, /field0/);
    expectError(await call(people.otto, 'PATCH', path, { configuration: { field0: 'x', field300: 'x' } }), 400, /field300/);
    expectError(
      await call(people.otto, 'PATCH', path, { configuration: JSON.parse('{"field0":"x","__proto__":{"admin":true}}') }),
      400,
      /__proto__/,
    );
  });

  it('refuses at publish (400) a schema with more properties than the limit (500), and publishes nothing', async () => {
    const name = uniqueName();
    expectError(
      await publish(name, { configurations: { account: accountSchema(501) } }),
      400,
      /configurations\.account\.properties must NOT have more than 500 properties/,
    );
    expectError(await call(people.ada, 'GET', `/v1/integrations/${name}`), 404);
    ok(await publish(name, { configurations: { account: accountSchema(500) } }));
  });

  it('refuses at publish (400) configurations nested deeper than the limit (8 levels)', async () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 50; level += 1) deep = { deeper: deep };
    expectError(
      await publish(uniqueName(), { configurations: { account: { properties: { a: { type: 'string', default: deep } } } } }),
      400,
      /configurations is nested deeper than 8 levels/,
    );
  });

  it('refuses at publish (400) what is not a configuration schema, naming the member', async () => {
    expectError(
      await publish(uniqueName(), { configurations: { account: { properties: { a: { type: 'object' } } } } }),
      400,
      /configurations\.account\.properties\.a\.type must be one of string, number, boolean, button/,
    );
    expectError(
      await publish(uniqueName(), { configurations: { account: { properties: { a: { type: 'string', enum: 'x' } } } } }),
      400,
      /configurations\.account\.properties\.a\.enum must be array/,
    );
    expectError(
      await publish(uniqueName(), { configurations: { account: { properties: { a: { type: 'string' } }, required: ['b'] } } }),
      400,
      /configurations\.account\.required names "b"/,
    );
    expectError(
      await publish(uniqueName(), { configurations: { admin: { properties: {} } } }),
      400,
      /configurations must NOT have additional properties \(admin\)/,
    );
  });
});

describe('scopes accepted by the installing organization', () => {
  let organization: string;
  let siteId: string;

  /** Publishes `name` with `scopes`, its development tunnel on the receiver for every organization, and installs it in the organization on every site. */
  async function publishAndInstall(name: string, scopes: string[]): Promise<string> {
    ok(
      await call(people.ada, 'POST', `/v1/integrations/${name}`, { organization: publisher, title: 'Views', visibility: 'public', scopes }),
    );
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: `${receiverUrl}/${name}`, all: true }), 204);
    const installation = ok(await call(people.ada, 'POST', `/v1/integrations/${name}/installations`, { organization }), 201).body;
    const path = `/v1/integrations/${name}/installations/${installation.id}`;
    ok(await call(people.ada, 'PATCH', path, { site_selection: 'all' }));
    return path;
  }

  /** The URLs of the site_view deliveries the tunnel of `name` received, in order. */
  const viewsDelivered = (name: string) =>
    (delivered.get(name) ?? []).filter((event) => event.type === 'site_view').map((event) => String(event.url));
  const read = async (query: string) => expect((await service.request('GET', `/sites/${siteId}/welcome?${query}`, {})).status).toBe(200);

  beforeAll(async () => {
    organization = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Readers' }), 201).body.id;
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organization}/spaces`, { title: 'Guide' }), 201).body.id;
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello.' } }],
      }),
    );
    siteId = ok(await call(people.ada, 'POST', `/v1/orgs/${organization}/sites`, { title: 'Docs', spaces: [spaceId] }), 201).body.id;
    ok(await call(people.ada, 'POST', `/v1/orgs/${organization}/sites/${siteId}/publish`));
  });

  it('delivers no site_view to an integration republished with site:views:read in an installation made before, until an admin accepts it; then it does', async () => {
    // A witness installed with the scope from the start: a view it receives was handed to every installation.
    const witness = uniqueName();
    await publishAndInstall(witness, ['site:views:read']);
    const widening = uniqueName();
    const installation = await publishAndInstall(widening, []);
    ok(await call(people.ada, 'POST', `/v1/integrations/${widening}`, { scopes: ['site:views:read'] }));

    await read('view=before');
    await until('the first view reaching the witness', async () => (viewsDelivered(witness).length === 1 ? true : undefined));
    const accepted = await call(people.ada, 'PATCH', installation, { scopes: ['site:views:read'] });
    await read('view=after');
    await until('the second view reaching both', async () =>
      viewsDelivered(witness).length === 2 && viewsDelivered(widening).length >= 1 ? true : undefined,
    );
    // One installation's deliveries keep their order: had the first view reached it, it would be first here.
    expect(viewsDelivered(widening)).toEqual([expect.stringMatching(/\?view=after$/)]);
    expect(viewsDelivered(witness)).toEqual([expect.stringMatching(/\?view=before$/), expect.stringMatching(/\?view=after$/)]);
    expect(ok(accepted).body).toMatchObject({ scopes: ['site:views:read'], pendingScopes: [] });
  });

  it('shows in the installation the scopes in force and those pending: none pending at install, the new ones after a republication until accepted', async () => {
    const name = uniqueName();
    const installation = await publishAndInstall(name, ['site:views:read']);
    expect(ok(await call(people.ada, 'GET', installation)).body).toMatchObject({ scopes: ['site:views:read'], pendingScopes: [] });
    ok(await call(people.ada, 'POST', `/v1/integrations/${name}`, { scopes: ['site:views:read', 'space:content:read'] }));
    expect(ok(await call(people.ada, 'GET', installation)).body).toMatchObject({
      scopes: ['site:views:read'],
      pendingScopes: ['space:content:read'],
    });
    expect(ok(await call(people.ada, 'PATCH', installation, { scopes: ['site:views:read', 'space:content:read'] })).body).toMatchObject({
      scopes: ['site:views:read', 'space:content:read'],
      pendingScopes: [],
    });
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/installations`)).body.items[0]).toMatchObject({
      scopes: ['site:views:read', 'space:content:read'],
      pendingScopes: [],
    });
  });

  it('refuses to accept a scope the integration does not ask for (400), and lets no one outside the organization accept (404)', async () => {
    const name = uniqueName();
    const installation = await publishAndInstall(name, []);
    expectError(await call(people.ada, 'PATCH', installation, { scopes: ['site:views:read'] }), 400, /does not ask for site:views:read/);
    expectError(await call(people.ada, 'PATCH', installation, { scopes: ['Not A Scope'] }), 400, /scopes/);
    ok(await call(people.ada, 'POST', `/v1/integrations/${name}`, { scopes: ['site:views:read'] }));
    expectError(await call(people.otto, 'PATCH', installation, { scopes: ['site:views:read'] }), 404);
    expect(ok(await call(people.ada, 'GET', installation)).body).toMatchObject({ scopes: [], pendingScopes: ['site:views:read'] });
  });
});
