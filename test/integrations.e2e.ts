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
import { verifySignature } from '../libs/integrations/src';
import { cleanUpServices, expectError, ok, startService, until, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
const people: Record<'ada' | 'otto', Person> = {} as never;
let publisher: string;
let other: string;

const call = (person: Person | null, method: string, path: string, body?: unknown) => service.request(method, path, { token: person?.token, body });
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
  return new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => {
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    resolve();
  }));
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');
let counter = 0;
const uniqueName = () => `test-integration-${process.pid}-${++counter}`;

async function publish(name: string, body: Record<string, unknown> = {}, person = people.ada) {
  return ok(await call(person, 'POST', `/v1/integrations/${name}`, { organization: publisher, title: 'Test', visibility: 'public', ...body })).body;
}

async function installIn(name: string, organizationId = publisher, person = people.ada) {
  return ok(await call(person, 'POST', `/v1/integrations/${name}/installations`, { organization: organizationId }), 201).body;
}

const eventsOf = async (name: string) => ok(await call(people.ada, 'GET', `/v1/integrations/${name}/events?limit=100`)).body.items as Array<{ id: string; status: string; payload: { type: string; [k: string]: unknown } }>;

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
    expect(first).toMatchObject({ object: 'integration', name, version: 1, title: 'Test', description: 'First', owner: { id: publisher }, permissions: { admin: true } });
    const second = await publish(name, { description: 'Second' });
    expect(second).toMatchObject({ version: 2, description: 'Second', categories: ['analytics'] });
    const icon = await service.request('GET', new URL(second.urls.icon).pathname, {});
    expect(icon.headers['content-type']).toBe('image/png');
  });

  it('never returns the secrets, in any answer or audit entry', async () => {
    const name = uniqueName();
    const published = await call(people.ada, 'POST', `/v1/integrations/${name}`, { organization: publisher, title: 'Secretive', secrets: { API_KEY: 'sup3r-s3cret-value' } });
    const answers = [published, await call(people.ada, 'GET', `/v1/integrations/${name}`), await call(people.ada, 'GET', '/v1/integrations'), await call(people.ada, 'GET', `/v1/orgs/${publisher}/audit-events`)];
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
    await publish(name, { title: 'Zebra Finder', categories: ['zebras'], blocks: [{ id: 'b', title: 'Block', urlUnfurl: ['https://zebra.example/x'] }] });
    const names = async (query: string) => ok(await call(people.otto, 'GET', `/v1/integrations${query}`)).body.items.map((item: { name: string }) => item.name);
    expect(await names('?search=zebra')).toContain(name);
    expect(await names('?category=zebras')).toEqual([name]);
    expect(await names(`?owner=${publisher}&blocks=true`)).toContain(name);
    expect(await names('?blockDomain=zebra.example')).toEqual([name]);
    expect(await names('?category=none-such')).toEqual([]);
  });
});

describe('installations', () => {
  it('installs in an organization its admin administers, once, and validates the configuration', async () => {
    const name = uniqueName();
    await publish(name, { configurations: { account: { properties: { channel: { type: 'string', title: 'Channel' } }, required: ['channel'] } } });
    const installation = await installIn(name, other, people.otto);
    expect(installation).toMatchObject({ status: 'active', target: { organization: other }, space_selection: 'selected' });
    expect((await installIn(name, other, people.otto)).id).toBe(installation.id);
    const path = `/v1/integrations/${name}/installations/${installation.id}`;
    expectError(await call(people.otto, 'PATCH', path, { configuration: { channel: 7 } }), 400, /channel/);
    expectError(await call(people.otto, 'PATCH', path, { configuration: {} }), 400, /channel/);
    expect(ok(await call(people.otto, 'PATCH', path, { configuration: { channel: '#docs' } })).body.configuration).toEqual({ channel: '#docs' });
    expectError(await call(people.ada, 'GET', `/v1/integrations/${name}/installations/${installation.id}/spaces/NoSuchSpace000000000`), 404);
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
    expectError(await call(people.ada, 'POST', `/v1/integrations/${name}/installations/${installation.id}/spaces`, { space: foreign }), 404);
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
    const written = ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes: [{ operation: 'insert_page', title: 'A', document: { markdown: 'a' } }] })).body;
    const events = await until('the content event', async () => {
      const all = await eventsOf(name);
      return all.some((event) => event.payload.type === 'space_content_updated') ? all : undefined;
    });
    expect(events.map((event) => event.payload.type).sort()).toEqual(['installation_setup', 'installation_setup', 'space_content_updated']);
    expect(events.find((event) => event.payload.type === 'space_content_updated')!.payload).toMatchObject({ spaceId, revisionId: written.revision, updatedBy: people.ada.id, installationId: installation.id });
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
    expect(bodies[0].payload.eventId).toBe(bodies[1].payload.eventId);
    expect(bodies.map((body) => body.payload.previous?.status ?? null)).toEqual([null, null, 'active']);
    for (const request of received) expect(verifySignature(signingSecret, String(request.headers['x-integration-signature']), request.body, new Date())).toBe(true);
    const events = await until('the deliveries recorded', async () => {
      const all = await eventsOf(name);
      return all.every((event) => event.status === 'success') ? all : undefined;
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

describe('a crash mid-delivery', () => {
  it('delivers the event again after the service is killed while the tunnel had not answered, with the same event id', async () => {
    const name = uniqueName();
    await publish(name);
    ok(await call(people.ada, 'PUT', `/v1/integrations/${name}/dev`, { tunnelUrl: receiverUrl }), 204);
    received.length = 0;
    hold = true;
    await installIn(name);
    await until('the delivery in flight', async () => (received.length >= 1 ? true : undefined));
    const inFlight = JSON.parse(received[0].body).payload.eventId;
    await service.kill();
    hold = false;
    for (const answer of held.splice(0)) answer();
    await service.restart();
    await until('the delivery after the restart', async () => (received.some((request, index) => index > 0 && JSON.parse(request.body).payload.eventId === inFlight) ? true : undefined));
    const events = await until('the delivery recorded', async () => {
      const all = await eventsOf(name);
      return all.every((event) => event.status === 'success') ? all : undefined;
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
    expect(trace.logs).toContainEqual(expect.objectContaining({ level: 'info', message: expect.stringMatching(/^setup of \w+ with TOKEN$/) }));
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
    const rendered = await call(people.otto, 'POST', `/v1/integrations/${name}/render`, { componentId: 'counter', props: { a: 1 }, state: { count: 2 }, context: {}, action: { action: 'increment' } });
    expect(ok(rendered).body).toEqual({ type: 'element', element: { type: 'block', children: [{ type: 'text', children: ['Count: 3'] }], controls: [] }, state: { count: 3 }, props: { a: 1 } });
    expect(rendered.headers['content-security-policy']).toBe("connect-src 'none'");
    const request = compressToEncodedURIComponent(JSON.stringify({ componentId: 'counter', props: {}, state: {}, context: {} }));
    expect(ok(await call(people.otto, 'GET', `/v1/integrations/${name}/render?request=${request}`)).body.state).toEqual({ count: 0 });
    expectError(await call(people.otto, 'POST', `/v1/integrations/${name}/render`, { componentId: 'missing' }), 422);
    expectError(await call(people.otto, 'GET', `/v1/integrations/${name}/render?request=garbage`), 400);
  });
});

describe('deletion', () => {
  it('uninstalls the integration everywhere', async () => {
    const name = uniqueName();
    await publish(name);
    const installation = await installIn(name, other, people.otto);
    ok(await call(people.ada, 'DELETE', `/v1/integrations/${name}`), 204);
    expectError(await call(people.ada, 'GET', `/v1/integrations/${name}`), 404);
    await until('the uninstall', async () => ((await call(people.otto, 'GET', `/v1/integrations/${name}/installations/${installation.id}`)).status === 404 ? true : undefined));
  });
});
