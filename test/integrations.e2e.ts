/**
 * Integrations through HTTP against the embedded service: publishing (versions, images, secrets
 * that never come back), visibility and filters, installations and their configuration, space
 * installations, integration events derived from the log, the development tunnel (a local
 * receiver: signed deliveries, retries with the same event id, order), scripts run in the sandbox
 * with their trace, UI render, and deletion uninstalling everywhere.
 *
 * The people: ada administers the publishing organization; otto administers another one.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compressToEncodedURIComponent } from 'lz-string';
import { verifySignature } from '#integrations';
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, ok, startService, until, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
const people: Record<'ada' | 'otto', Person> = {} as never;
let publisher: string;
let other: string;

const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
/** A local receiver standing for a developer's tunnel: records each request; `answers` says what to answer, in turn. */
interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let answers: number[] = [];
/** While set, the receiver holds requests unanswered (a delivery in flight when the service is killed). */
let hold = false;
const held: Array<() => void> = [];
function startReceiver(): Promise<void> {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const answer = () => {
        if (!response.destroyed) response.writeHead(answers.shift() ?? 200).end('ok');
      };
      if (hold) held.push(answer);
      else answer();
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => {
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      resolve();
    }),
  );
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');
let counter = 0;
const uniqueName = () => `test-integration-${process.pid}-${++counter}`;

async function publish(name: string, body: Record<string, unknown> = {}, person = people.ada) {
  return ok(
    await call(person, 'POST', `/v1/integrations/${name}`, { organization: publisher, title: 'Test', visibility: 'public', ...body }),
  ).body;
}

async function installIn(name: string, organizationId = publisher, person = people.ada) {
  return ok(await call(person, 'POST', `/v1/integrations/${name}/installations`, { organization: organizationId }), 201).body;
}

const eventsOf = async (name: string) =>
  ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events?limit=100`)).body.items as Array<{
    id: string;
    status: string;
    payload: { type: string; [k: string]: unknown };
  }>;

beforeAll(async () => {
  await startReceiver();
  service = await startService({ env: { INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  for (const name of ['ada', 'otto'] as const) {
    const created = await service.createUser(`${name}@integrations.example`, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  publisher = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Publisher' }), 201).body.id;
  other = ok(await call(people.otto, 'POST', '/v1/orgs', { title: 'Other' }), 201).body.id;
});

afterAll(async () => {
  receiver?.close();
  await cleanUpServices();
});

describe('publishing', () => {
  it('publishes, then each publication increments the version and keeps what it does not name', async () => {
    const name = uniqueName();
    const first = await publish(name, { description: 'First', icon: PNG, categories: ['analytics'] });
    expect(first).toMatchObject({
      object: 'integration',
      name,
      version: 1,
      title: 'Test',
      description: 'First',
      owner: { id: publisher },
      permissions: { admin: true },
    });
    const second = await publish(name, { description: 'Second' });
    expect(second).toMatchObject({ version: 2, description: 'Second', categories: ['analytics'] });
    const icon = await service.request('GET', new URL(second.urls.icon).pathname, {});
    expect(icon.headers['content-type']).toBe('image/png');
  });

  it('never returns the secrets, in any answer or audit entry', async () => {
    const name = uniqueName();
    const published = await call(people.ada, 'POST', `/v1/integrations/${name}`, {
      organization: publisher,
      title: 'Secretive',
      secrets: { API_KEY: 'sup3r-s3cret-value' },
    });
    const answers = [
      published,
      await call(people.ada, 'GET', `/v1/integrations/${name}`),
      await call(people.ada, 'GET', '/v1/integrations'),
      await call(people.ada, 'GET', `/v1/orgs/${publisher}/audit-events`),
    ];
    for (const answer of answers) expect(answer.text).not.toContain('sup3r-s3cret-value');
    const { stdout, stderr } = service.output();
    expect(stdout + stderr).not.toContain('sup3r-s3cret-value');
  });

  it('lets only admins of the publishing organization publish or delete (403), and hides private integrations from outsiders (404)', async () => {
    const name = uniqueName();
    await publish(name, { visibility: 'private' });
    expectError(await call(people.otto, 'POST', `/v1/integrations/${name}`, { organization: other, title: 'Taken' }), 409);
    expectError(await call(people.otto, 'GET', `/v1/integrations/${name}`), 404);
    expectError(await call(people.otto, 'DELETE', `/v1/integrations/${name}`), 404);
    expectError(await call(people.ada, 'POST', '/v1/integrations/bad name!', { organization: publisher }), 404);
  });

  it('lists with filters: search, category, owner, blocks', async () => {
    const name = uniqueName();
    await publish(name, {
      title: 'Zebra Finder',
      categories: ['collaboration'],
      blocks: [{ id: 'b', title: 'Block', urlUnfurl: ['https://zebra.example/x'] }],
    });
    const names = async (query: string) =>
      ok(await call(people.otto, 'GET', `/v1/integrations${query}`)).body.items.map((item: { name: string }) => item.name);
    expect(await names('?search=zebra')).toContain(name);
    expect(await names('?category=collaboration')).toEqual([name]);
    expect(await names(`?owner=${publisher}&blocks=true`)).toContain(name);
    expect(await names('?blockDomain=zebra.example')).toEqual([name]);
    expect(await names('?category=none-such')).toEqual([]);
  });
});

describe('installations', () => {
  it('installs in an organization its admin administers, once, and validates the configuration', async () => {
    const name = uniqueName();
    await publish(name, {
      configurations: { account: { properties: { channel: { type: 'string', title: 'Channel' } }, required: ['channel'] } },
    });
    const installation = await installIn(name, other, people.otto);
    expect(installation).toMatchObject({ status: 'active', target: { organization: other }, space_selection: 'selected' });
    expect((await installIn(name, other, people.otto)).id).toBe(installation.id);
    const path = `/v1/integrations/${name}/installations/${installation.id}`;
    expectError(await call(people.otto, 'PATCH', path, { configuration: { channel: 7 } }), 400, /channel/);
    expectError(await call(people.otto, 'PATCH', path, { configuration: {} }), 400, /channel/);
    expect(ok(await call(people.otto, 'PATCH', path, { configuration: { channel: '#docs' } })).body.configuration).toEqual({
      channel: '#docs',
    });
    expectError(
      await call(people.ada, 'GET', `/v1/integrations/${name}/installations/${installation.id}/spaces/NoSuchSpace000000000`),
      404,
    );
  });

  it('installs on spaces of the organization and lists them, as ids or Space objects', async () => {
    const name = uniqueName();
    await publish(name);
    const installation = await installIn(name);
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/spaces`, { title: 'Docs' }), 201).body.id;
    ok(await call(people.ada, 'POST', `/v1/integrations/${name}/installations/${installation.id}/spaces`, { space: spaceId }), 201);
    const ids = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/spaces`)).body.items;
    expect(ids).toEqual([expect.objectContaining({ installation: installation.id, space: spaceId, status: 'active' })]);
    const extended = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/spaces?extended=true`)).body.items;
    expect(extended[0].space).toMatchObject({ object: 'space', id: spaceId });
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/installations/${installation.id}`)).body.spaces).toBe(1);
    const foreign = ok(await call(people.otto, 'POST', `/v1/orgs/${other}/spaces`, { title: 'Theirs' }), 201).body.id;
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${name}/installations/${installation.id}/spaces`, { space: foreign }),
      404,
    );
    ok(await call(people.ada, 'DELETE', `/v1/integrations/${name}/installations/${installation.id}/spaces/${spaceId}`), 204);
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/spaces`)).body.items).toEqual([]);
  });
});

describe('integration events', () => {
  it('derives installation_setup and space_content_updated from the log, for the installations concerned', async () => {
    const name = uniqueName();
    await publish(name);
    const installation = await installIn(name);
    ok(await call(people.ada, 'PATCH', `/v1/integrations/${name}/installations/${installation.id}`, { space_selection: 'all' }));
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/spaces`, { title: 'Docs' }), 201).body.id;
    const written = ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', title: 'A', document: { markdown: 'a' } }],
      }),
    ).body;
    const events = await until('the content event', async () => {
      const all = await eventsOf(name);
      return all.some((event) => event.payload.type === 'space_content_updated') ? all : undefined;
    });
    expect(events.map((event) => event.payload.type).sort()).toEqual(['installation_setup', 'installation_setup', 'space_content_updated']);
    expect(events.find((event) => event.payload.type === 'space_content_updated')!.payload).toMatchObject({
      spaceId,
      revisionId: written.revision,
      updatedBy: [expect.objectContaining({ object: 'user', id: people.ada.id })],
      installationId: installation.id,
    });
    const setup = events.filter((event) => event.payload.type === 'installation_setup');
    expect(setup.map((event) => event.payload.previous)).toContainEqual({ status: 'active', configuration: {} });
  });

  it('delivers events to the development tunnel, signed, retried with the same event id after a 500, in order', async () => {
    const name = uniqueName();
    await publish(name);
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 204);
    const { signingSecret } = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/dev`)).body;
    received.length = 0;
    answers = [500];
    const installation = await installIn(name);
    ok(await call(people.ada, 'PATCH', `/v1/integrations/${name}/installations/${installation.id}`, { status: 'paused' }));
    await until('two deliveries and a retry', async () => (received.length >= 3 ? true : undefined));
    const bodies = received.map((request) => JSON.parse(request.body));
    expect(bodies[0].eventId).toBe(bodies[1].eventId);
    expect(bodies.map((body) => body.previous?.status ?? null)).toEqual([null, null, 'active']);
    for (const request of received)
      expect(verifySignature(signingSecret, String(request.headers['x-integration-signature']), request.body, new Date())).toBe(true);
    const events = await until('the deliveries recorded', async () => {
      const all = await eventsOf(name);
      return all.length === 2 && all.every((event) => event.status === 'success') ? all : undefined;
    });
    const trace = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events/${events[events.length - 1].id}`)).body;
    expect(trace.trace.logs.map((log: { message: string }) => log.message).join('\n')).toMatch(/HTTP 500[\s\S]*HTTP 200/);
  });

  it('hides the tunnel and the events from people outside the owner (404)', async () => {
    const name = uniqueName();
    await publish(name);
    expectError(await call(people.otto, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 404);
    expectError(await call(people.otto, 'GET', `/v1/integrations/${name}/events`), 404);
    expectError(await call(people.otto, 'GET', `/v1/integrations/${name}/dev`), 404);
  });
});

describe('integration events in the platform’s shapes', () => {
  it('delivers to the tunnel the event itself, as the platform’s runtime reads it, signed, its id in the event-id header', async () => {
    const name = uniqueName();
    await publish(name);
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 204);
    const { signingSecret } = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/dev`)).body;
    received.length = 0;
    const installation = await installIn(name);
    const [request] = await until('the delivery', async () => (received.length >= 1 ? received : undefined));
    const event = JSON.parse(request.body);
    expect(event).toEqual({ eventId: expect.any(String), type: 'installation_setup', installationId: installation.id, status: 'active' });
    expect(platformSchemaProblem('Event', event)).toBeNull();
    expect(request.headers['x-integration-event-id']).toBe(event.eventId);
    expect(verifySignature(signingSecret, String(request.headers['x-integration-signature']), request.body, new Date())).toBe(true);
  });

  it('hands the script’s handler the event itself', async () => {
    const name = uniqueName();
    await publish(name, {
      script:
        "module.exports = { events: { installation_setup: (event) => { console.log(event.type + ' ' + event.installationId + ' ' + event.status + ' ' + ('payload' in event)); } } };",
    });
    const installation = await installIn(name);
    const [event] = await until('the script run', async () => {
      const all = await eventsOf(name);
      return all.length > 0 ? all : undefined;
    });
    const trace = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events/${event.id}`)).body.trace;
    expect(trace.logs.map((log: { message: string }) => log.message)).toContain(`installation_setup ${installation.id} active false`);
  });

  it('shows an event only once delivered, success or failed: never pending (the list leaves it out, the event is 404 meanwhile)', async () => {
    const name = uniqueName();
    await publish(name);
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 204);
    received.length = 0;
    hold = true;
    try {
      await installIn(name);
      const [request] = await until('the delivery in flight', async () => (received.length >= 1 ? received : undefined));
      const { eventId } = JSON.parse(request.body);
      expect(await eventsOf(name)).toEqual([]);
      expectError(await call(people.ada, 'GET', `/v1/integrations/${name}/events/${eventId}`), 404, /still being delivered/);
    } finally {
      hold = false;
      for (const answer of held.splice(0)) answer();
    }
    const [event] = await until('the delivery recorded', async () => {
      const all = await eventsOf(name);
      return all.length > 0 ? all : undefined;
    });
    expect(event.status).toBe('success');
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events/${event.id}`)).body.event).toMatchObject({
      id: event.id,
      status: 'success',
    });
  });

  it('names who updated the space’s content in space_content_updated as a list of the platform’s users', async () => {
    const name = uniqueName();
    await publish(name);
    const installation = await installIn(name);
    ok(await call(people.ada, 'PATCH', `/v1/integrations/${name}/installations/${installation.id}`, { space_selection: 'all' }));
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/spaces`, { title: 'Updated' }), 201).body.id;
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', title: 'A', document: { markdown: 'a' } }],
      }),
    );
    const updated = await until('the content event', async () =>
      (await eventsOf(name)).find((event) => event.payload.type === 'space_content_updated'),
    );
    expect(updated.payload.updatedBy).toEqual([
      {
        object: 'user',
        id: people.ada.id,
        displayName: 'ada',
        urls: { location: expect.stringMatching(new RegExp(`/v1/users/${people.ada.id}$`)) },
      },
    ]);
    expect(platformSchemaProblem('SpaceContentUpdatedEvent', updated.payload)).toBeNull();
  });

  it('gives a first setup no previous, and every deletion the configuration it had as previous', async () => {
    const name = uniqueName();
    await publish(name, { configurations: { space: { properties: { channel: { type: 'string' } } } } });
    const installation = await installIn(name);
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/spaces`, { title: 'Removed' }), 201).body.id;
    const spaces = `/v1/integrations/${name}/installations/${installation.id}/spaces`;
    ok(await call(people.ada, 'POST', spaces, { space: spaceId, configuration: { channel: '#docs' } }), 201);
    ok(await call(people.ada, 'DELETE', `${spaces}/${spaceId}`), 204);
    const events = await until('the deletion', async () => {
      const all = await eventsOf(name);
      return all.some((event) => event.payload.type === 'space_installation_deleted') ? all : undefined;
    });
    const of = (type: string) => events.find((event) => event.payload.type === type)!.payload;
    expect(of('installation_setup')).not.toHaveProperty('previous');
    expect(of('space_installation_setup')).not.toHaveProperty('previous');
    expect(of('space_installation_deleted').previous).toEqual({ configuration: { channel: '#docs' } });
    for (const type of ['installation_setup', 'space_installation_setup', 'space_installation_deleted'])
      expect(platformSchemaProblem('Event', of(type))).toBeNull();
  });

  it('tells change requests and comments (the service’s own types) only to integrations holding space:content:read', async () => {
    const reading = uniqueName();
    const notReading = uniqueName();
    await publish(reading, { scopes: ['space:content:read'] });
    await publish(notReading);
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/spaces`, { title: 'Discussed' }), 201).body.id;
    for (const name of [reading, notReading])
      ok(
        await call(people.ada, 'POST', `/v1/integrations/${name}/installations/${(await installIn(name)).id}/spaces`, { space: spaceId }),
        201,
      );
    const changeRequest = ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'A change' }), 201).body;
    const told = await until('change_request_created', async () =>
      (await eventsOf(reading)).find((event) => event.payload.type === 'change_request_created'),
    );
    expect(told.payload).toEqual({
      eventId: told.id,
      type: 'change_request_created',
      installationId: expect.any(String),
      spaceId,
      changeRequestId: changeRequest.id,
      number: changeRequest.number,
    });
    // Delivered in order: once the reading one is told, the other has been past the change request too.
    expect((await eventsOf(notReading)).map((event) => event.payload.type).sort()).toEqual([
      'installation_setup',
      'space_installation_setup',
    ]);
  });
});

describe('the platform’s integration shapes', () => {
  it('turns development mode off with 205', async () => {
    const name = uniqueName();
    await publish(name);
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 204);
    const cleared = await call(people.ada, 'DELETE', `/v1/integrations/${name}/dev`);
    expect(cleared.status).toBe(205);
    expect(cleared.text).toBe('');
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/dev`)).body.tunnelUrl).toBeNull();
  });

  it('publishes with runtime v2, and answers the runtime published', async () => {
    const name = uniqueName();
    expect(await publish(name, { runtime: 'v2' })).toMatchObject({ runtime: 'v2' });
    expect(await publish(name, { description: 'Kept' })).toMatchObject({ runtime: 'v2' });
    expectError(await call(people.ada, 'POST', `/v1/integrations/${name}`, { runtime: 'v3' }), 400, /runtime must be one of v1, v2/);
  });

  it('takes contentSecurityPolicy as an object of directives: answered as the policy’s text (the interface’s type), and sent as the header of render answers', async () => {
    const name = uniqueName();
    const policy = { 'default-src': "'none'", 'connect-src': 'https://api.example.com' };
    const script = "module.exports = { components: { hello: () => ({ type: 'block', children: [], controls: [] }) } };";
    expect((await publish(name, { script, contentSecurityPolicy: policy })).contentSecurityPolicy).toBe(
      "default-src 'none'; connect-src https://api.example.com",
    );
    const rendered = ok(await call(people.otto, 'POST', `/v1/integrations/${name}/render`, { componentId: 'hello' }));
    expect(rendered.headers['content-security-policy']).toBe("default-src 'none'; connect-src https://api.example.com");
  });

  it('refuses a contentSecurityPolicy object naming what is not a directive, or a value that would add one (400 naming it)', async () => {
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Bad policy',
        contentSecurityPolicy: { 'connect-sauce': '*' },
      }),
      400,
      /contentSecurityPolicy\.connect-sauce is not a directive/,
    );
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Bad policy',
        contentSecurityPolicy: { 'connect-src': "*; script-src 'unsafe-inline'" },
      }),
      400,
      /contentSecurityPolicy\.connect-src may not contain/,
    );
  });

  it('answers urls.publicContentEndpoint, equal to publicEndpoint, on integrations, installations and space and site installations', async () => {
    const name = uniqueName();
    const integration = await publish(name);
    expect(integration.urls.publicContentEndpoint).toBe(integration.urls.publicEndpoint);
    const installation = await installIn(name);
    expect(installation.urls.publicContentEndpoint).toBe(installation.urls.publicEndpoint);
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/spaces`, { title: 'Endpoints' }), 201).body.id;
    const onSpace = ok(
      await call(people.ada, 'POST', `/v1/integrations/${name}/installations/${installation.id}/spaces`, { space: spaceId }),
      201,
    ).body;
    expect(onSpace.urls.publicContentEndpoint).toBe(onSpace.urls.publicEndpoint);
    const siteId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/sites`, { title: 'Endpoints', spaces: [spaceId] }), 201).body
      .id;
    const onSite = ok(
      await call(people.ada, 'POST', `/v1/integrations/${name}/installations/${installation.id}/sites`, { site: siteId }),
      201,
    ).body;
    expect(onSite.urls.publicContentEndpoint).toBe(onSite.urls.publicEndpoint);
  });

  it('embeds the owner with the caller’s permissions there: an admin’s for its admin, a guest’s for someone outside it', async () => {
    const name = uniqueName();
    await publish(name);
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}`)).body.owner).toMatchObject({
      object: 'organization',
      id: publisher,
      permissions: { admin: true },
    });
    expect(ok(await call(people.otto, 'GET', `/v1/integrations/${name}`)).body.owner).toMatchObject({
      object: 'organization',
      id: publisher,
      permissions: { admin: false, listMembers: false },
    });
  });

  it("takes only the platform's scopes and categories (400 naming the member)", async () => {
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Scoped',
        scopes: ['space:everything'],
      }),
      400,
      /scopes must be one of/,
    );
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Sorted',
        categories: ['zebras'],
      }),
      400,
      /categories must be one of/,
    );
  });

  it("refuses blocks, content sources and external links that are not the platform's shapes (400 naming the member)", async () => {
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Blocks',
        blocks: [{ id: 'b' }],
      }),
      400,
      /blocks\.0 must have required property 'title'/,
    );
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Sources',
        contentSources: [{ id: 'c', title: 'Source' }],
      }),
      400,
      /contentSources\.0 must have required property 'configuration'/,
    );
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Links',
        externalLinks: [{ url: 'javascript:alert(1)', label: 'x' }],
      }),
      400,
      /externalLinks\.0\.url/,
    );
  });

  it('takes at most 20 secrets, each text (400 naming the secret)', async () => {
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, {
        organization: publisher,
        title: 'Secrets',
        secrets: { TOKEN: 42 },
      }),
      400,
      /secrets\.TOKEN must be text/,
    );
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`S${index}`, 'x']));
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, { organization: publisher, title: 'Secrets', secrets: many }),
      400,
      /at most 20 secrets/,
    );
  });

  it('needs a title (2 to 30 characters) to publish a new integration (400)', async () => {
    expectError(await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, { organization: publisher }), 400, /title is required/);
    expectError(
      await call(people.ada, 'POST', `/v1/integrations/${uniqueName()}`, { organization: publisher, title: 'T'.repeat(31) }),
      400,
      /title must be 2 to 30 characters/,
    );
  });
});

describe('a crash mid-delivery', () => {
  it('delivers the event again after the service is killed while the tunnel had not answered, with the same event id', async () => {
    const name = uniqueName();
    await publish(name);
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 204);
    received.length = 0;
    hold = true;
    await installIn(name);
    await until('the delivery in flight', async () => (received.length >= 1 ? true : undefined));
    const inFlight = JSON.parse(received[0].body).eventId;
    await service.kill();
    hold = false;
    for (const answer of held.splice(0)) answer();
    await service.restart();
    await until('the delivery after the restart', async () =>
      received.some((request, index) => index > 0 && JSON.parse(request.body).eventId === inFlight) ? true : undefined,
    );
    const events = await until('the delivery recorded', async () => {
      const all = await eventsOf(name);
      return all.length > 0 && all.every((event) => event.status === 'success') ? all : undefined;
    });
    expect(events.map((event) => event.id)).toEqual([inFlight]);
  });
});

describe('scripts and render', () => {
  const script = `
    module.exports = {
      events: {
        installation_setup: async (event, context) => { console.log('setup of ' + event.installationId + ' with ' + Object.keys(context.environment.secrets).join(',')); },
      },
      components: {
        counter: ({ props, state, action }) => ({ type: 'block', children: [{ type: 'text', children: ['Count: ' + ((state.count || 0) + (action ? 1 : 0))] }], controls: [], state: { count: (state.count || 0) + (action ? 1 : 0) } }),
      },
    };`;

  it('runs the script’s handler when there is no tunnel, with its console output in the trace', async () => {
    const name = uniqueName();
    await publish(name, { script, secrets: { TOKEN: 'x' } });
    await installIn(name);
    const events = await until('the script run', async () => {
      const all = await eventsOf(name);
      return all.length > 0 && all[0].status !== 'pending' ? all : undefined;
    });
    expect(events[0].status).toBe('success');
    const trace = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events/${events[0].id}`)).body.trace;
    expect(trace.logs).toContainEqual(
      expect.objectContaining({ level: 'info', message: expect.stringMatching(/^setup of \w+ with TOKEN$/) }),
    );
  });

  it('stops a script that loops forever, records it failed, and stays healthy', async () => {
    const name = uniqueName();
    await publish(name, { script: 'module.exports = { events: { installation_setup: () => { while (true) {} } } };' });
    await installIn(name);
    const events = await until('the stopped script', async () => {
      const all = await eventsOf(name);
      return all.length > 0 && all[0].status !== 'pending' ? all : undefined;
    });
    expect(events[0].status).toBe('failed');
    const trace = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events/${events[0].id}`)).body.trace;
    expect(trace.logs.map((log: { message: string }) => log.message).join('\n')).toMatch(/time limit/);
    ok(await call(null, 'GET', '/health'));
  });

  it('renders a component by POST and by GET with an lz-string request, with the policy as a header', async () => {
    const name = uniqueName();
    await publish(name, { script, contentSecurityPolicy: "connect-src 'none'" });
    const rendered = await call(people.otto, 'POST', `/v1/integrations/${name}/render`, {
      componentId: 'counter',
      props: { a: 1 },
      state: { count: 2 },
      context: {},
      action: { action: 'increment' },
    });
    expect(ok(rendered).body).toEqual({
      type: 'element',
      element: { type: 'block', children: [{ type: 'text', children: ['Count: 3'] }], controls: [] },
      state: { count: 3 },
      props: { a: 1 },
    });
    expect(rendered.headers['content-security-policy']).toBe("connect-src 'none'");
    const request = compressToEncodedURIComponent(JSON.stringify({ componentId: 'counter', props: {}, state: {}, context: {} }));
    expect(ok(await call(people.otto, 'GET', `/v1/integrations/${name}/render?request=${request}`)).body.state).toEqual({ count: 0 });
    expectError(await call(people.otto, 'POST', `/v1/integrations/${name}/render`, { componentId: 'missing' }), 422);
    expectError(await call(people.otto, 'GET', `/v1/integrations/${name}/render?request=garbage`), 400);
  });
});

describe('If-Match: an integration and its /dev are versioned by the integration, space and site installations by their installation', () => {
  const conditional = (person: Person, method: string, path: string, ifMatch: string, body?: unknown) =>
    service.request(method, path, { token: person.token, body, headers: { 'if-match': ifMatch } });
  /** A well-formed tag naming another revision than `etag`: what a client read before a change. */
  const previous = (etag: string) => `"${Number(etag.replace(/"/g, '')) - 1}"`;

  it('republishes an integration with its current ETag, and refuses a stale one (412) changing nothing', async () => {
    const name = uniqueName();
    await publish(name, { description: 'First' });
    await publish(name, { description: 'Second' });
    const read = ok(await call(people.ada, 'GET', `/v1/integrations/${name}`));
    const etag = read.headers.etag;
    expect(etag).toMatch(/^"\d+"$/);
    expectError(await conditional(people.ada, 'POST', `/v1/integrations/${name}`, previous(etag), { description: 'Lost update' }), 412);
    const after = ok(await call(people.ada, 'GET', `/v1/integrations/${name}`));
    expect({ etag: after.headers.etag, body: after.body }).toEqual({ etag, body: read.body });
    const republished = ok(await conditional(people.ada, 'POST', `/v1/integrations/${name}`, etag, { description: 'Third' }));
    expect(republished.body).toMatchObject({ version: 3, description: 'Third' });
    expect(republished.headers.etag).not.toBe(etag);
    expect(republished.headers.etag).toBe(ok(await call(people.ada, 'GET', `/v1/integrations/${name}`)).headers.etag);
  });

  it('sets the development tunnel with the ETag of /dev (the integration’s), and refuses a stale one (412) leaving the tunnel as it was', async () => {
    const name = uniqueName();
    await publish(name);
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 204);
    const read = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/dev`));
    expect(read.headers.etag).toBe(ok(await call(people.ada, 'GET', `/v1/integrations/${name}`)).headers.etag);
    expectError(
      await conditional(people.ada, 'PUT', `/v1/integrations/${name}/dev`, previous(read.headers.etag), {
        tunnelUrl: `${receiverUrl}/other`,
      }),
      412,
    );
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/dev`)).body).toEqual(read.body);
    expect((await conditional(people.ada, 'DELETE', `/v1/integrations/${name}/dev`, read.headers.etag)).status).toBe(205);
    expect(ok(await call(people.ada, 'GET', `/v1/integrations/${name}/dev`)).body.tunnelUrl).toBeNull();
  });

  it('changes an installation with its current ETag, and refuses a stale one (412) changing nothing', async () => {
    const name = uniqueName();
    await publish(name);
    const installation = await installIn(name, other, people.otto);
    const path = `/v1/integrations/${name}/installations/${installation.id}`;
    const read = ok(await call(people.otto, 'GET', path));
    expectError(await conditional(people.otto, 'PATCH', path, '"7"', { status: 'paused' }), 412);
    const after = ok(await call(people.otto, 'GET', path));
    expect({ etag: after.headers.etag, body: after.body }).toEqual({ etag: read.headers.etag, body: read.body });
    const paused = ok(await conditional(people.otto, 'PATCH', path, read.headers.etag, { status: 'paused' }));
    expect(paused.body.status).toBe('paused');
    expect(paused.headers.etag).not.toBe(read.headers.etag);
  });

  it('removes a space installation with the ETag of the installation it lives in, and refuses a stale one (412) leaving it installed', async () => {
    const name = uniqueName();
    await publish(name);
    const installation = await installIn(name);
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${publisher}/spaces`, { title: 'Conditional' }), 201).body.id;
    const before = ok(await call(people.ada, 'GET', `/v1/integrations/${name}/installations/${installation.id}`)).headers.etag;
    const path = `/v1/integrations/${name}/installations/${installation.id}/spaces/${spaceId}`;
    const installed = ok(
      await call(people.ada, 'POST', `/v1/integrations/${name}/installations/${installation.id}/spaces`, { space: spaceId }),
      201,
    );
    const read = ok(await call(people.ada, 'GET', path));
    expect(read.headers.etag).toBe(installed.headers.etag);
    expect(read.headers.etag).toBe(
      ok(await call(people.ada, 'GET', `/v1/integrations/${name}/installations/${installation.id}`)).headers.etag,
    );
    expectError(await conditional(people.ada, 'DELETE', path, before), 412);
    expect(ok(await call(people.ada, 'GET', path)).body).toEqual(read.body);
    ok(await conditional(people.ada, 'DELETE', path, read.headers.etag), 204);
    expectError(await call(people.ada, 'GET', path), 404);
  });

  it('answers 404 to someone outside the organization and 403 to a member below admin before comparing If-Match: a 412 reveals no revision', async () => {
    const name = uniqueName();
    await publish(name, { visibility: 'private' });
    const installation = await installIn(name);
    const reader = await service.createUser(`reader-${name}@integrations.example`, 'Reader');
    await joinAs(service, publisher, people.ada.token, [
      { token: reader.token, email: `reader-${name}@integrations.example`, role: 'read' },
    ]);
    const readerPerson = { id: reader.user.id, token: reader.token };
    // Well-formed, and not the current revision of anything here.
    const stale = '"99"';
    expectError(await conditional(people.otto, 'DELETE', `/v1/integrations/${name}`, stale), 404);
    expectError(await conditional(people.otto, 'PUT', `/v1/integrations/${name}/dev`, stale, { tunnelUrl: receiverUrl }), 404);
    expectError(
      await conditional(people.otto, 'PATCH', `/v1/integrations/${name}/installations/${installation.id}`, stale, { status: 'paused' }),
      404,
    );
    expectError(await conditional(readerPerson, 'DELETE', `/v1/integrations/${name}`, stale), 403);
    expectError(await conditional(readerPerson, 'DELETE', `/v1/integrations/${name}/dev`, stale), 403);
    expectError(
      await conditional(readerPerson, 'PATCH', `/v1/integrations/${name}/installations/${installation.id}`, stale, { status: 'paused' }),
      403,
    );
    expectError(
      await conditional(
        people.ada,
        'DELETE',
        `/v1/integrations/${name}/installations/${installation.id}/sites/NoSuchSite0000000000`,
        stale,
      ),
      404,
    );
  });
});

describe('deletion', () => {
  it('uninstalls the integration everywhere', async () => {
    const name = uniqueName();
    await publish(name);
    const installation = await installIn(name, other, people.otto);
    ok(await call(people.ada, 'DELETE', `/v1/integrations/${name}`), 204);
    expectError(await call(people.ada, 'GET', `/v1/integrations/${name}`), 404);
    await until('the uninstall', async () =>
      (await call(people.otto, 'GET', `/v1/integrations/${name}/installations/${installation.id}`)).status === 404 ? true : undefined,
    );
  });
});
