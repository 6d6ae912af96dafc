/**
 * An integration written against the platform's runtime types receives and reads every event type
 * the service emits: a development tunnel on 127.0.0.1, an integration asking for
 * `space:content:read` and `site:views:read` installed on every space and site of an organization,
 * and one action through HTTP for each type. Each delivery is the event itself (what the platform's
 * runtime reads as `event`), signed, and is the platform's `Event` for the platform's types, or
 * the documented shape of the service's own types (the service's OpenAPI document). The same events
 * read back through `GET …/events` validate against the platform's schema of that operation.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Event } from '@gitbook/api';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { verifySignature } from '#integrations';
import { platformOperation, platformResponseProblem, platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, ok, startService, until, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

/** The service's own event types, each with the schema the service documents for it. */
const EXTENSION_SCHEMAS: Record<string, string> = {
  change_request_created: 'ChangeRequestCreatedEvent',
  change_request_status_updated: 'ChangeRequestStatusUpdatedEvent',
  change_request_merged: 'ChangeRequestMergedEvent',
  comment_created: 'CommentCreatedEvent',
  comment_reply_created: 'CommentReplyCreatedEvent',
  comment_resolved: 'CommentResolvedEvent',
};
const PLATFORM_TYPES = [
  'installation_setup',
  'installation_deleted',
  'space_installation_setup',
  'space_installation_deleted',
  'site_installation_setup',
  'site_installation_deleted',
  'site_view',
  'space_content_updated',
  'space_visibility_updated',
];

let service: RunningService;
let ada: Person;
let organizationId: string;
const call = (method: string, path: string, body?: unknown) => service.request(method, path, { token: ada.token, body });
/** A creation's answer (comments answer 200 or 201 as their context decides: not what this file is about). */
const created = (response: Awaited<ReturnType<typeof call>>) => {
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`expected 200 or 201, got ${response.status}: ${response.text.slice(0, 500)}`);
  return response;
};

/** The tunnel: every request it got, answered 200. */
let tunnel: Server;
let tunnelUrl: string;
const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];

/** The service's schemas of its own event types, compiled from its OpenAPI document. */
let extensionValidators: Record<string, ValidateFunction>;

beforeAll(async () => {
  tunnel = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => tunnel.listen(0, '127.0.0.1', resolve));
  tunnelUrl = `http://127.0.0.1:${(tunnel.address() as AddressInfo).port}/events`;
  service = await startService({ env: { INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const created = await service.createUser('ada@events.example', 'Ada');
  ada = { id: created.user.id, token: created.token };
  organizationId = ok(await call('POST', '/v1/orgs', { title: 'Events' }), 201).body.id;
  const document = ok(await service.request('GET', '/v1/openapi.json', {})).body;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'service' });
  extensionValidators = Object.fromEntries(
    Object.entries(EXTENSION_SCHEMAS).map(([type, schema]) => [type, ajv.compile({ $ref: `service#/components/schemas/${schema}` })]),
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => tunnel.close(() => resolve()));
  await cleanUpServices();
});

describe('an integration on the platform’s runtime types, with a development tunnel on 127.0.0.1', () => {
  const name = `every-event-${process.pid}`;
  let signingSecret: string;
  let installation: string;
  let spaceId: string;
  let siteId: string;
  /** The deliveries, parsed, in the order received. */
  let events: Event[];

  beforeAll(async () => {
    ok(
      await call('POST', `/v1/integrations/${name}`, {
        organization: organizationId,
        title: 'Every event',
        visibility: 'private',
        scopes: ['space:content:read', 'site:views:read'],
      }),
    );
    ok(await call('PUT', `/v1/integrations/${name}/dev`, { tunnelUrl }), 204);
    signingSecret = ok(await call('GET', `/v1/integrations/${name}/dev`)).body.signingSecret;
    spaceId = ok(await call('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Guide' }), 201).body.id;
    ok(
      await call('POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello.' } }],
      }),
    );
    siteId = ok(await call('POST', `/v1/orgs/${organizationId}/sites`, { title: 'Docs', spaces: [spaceId] }), 201).body.id;
    ok(await call('POST', `/v1/orgs/${organizationId}/sites/${siteId}/publish`));

    // installation_setup, twice: installed, then set on every space and site.
    installation = `/v1/integrations/${name}/installations/${ok(await call('POST', `/v1/integrations/${name}/installations`, { organization: organizationId }), 201).body.id}`;
    ok(await call('PATCH', installation, { space_selection: 'all', site_selection: 'all' }));
    ok(await call('POST', `${installation}/spaces`, { space: spaceId }), 201);
    ok(await call('POST', `${installation}/sites`, { site: siteId }), 201);
    const written = ok(
      await call('POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', title: 'More', document: { markdown: 'More.' } }],
      }),
    ).body;
    ok(await call('PATCH', `/v1/spaces/${spaceId}`, { visibility: 'unlisted' }));
    const changeRequest = ok(await call('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'A change' }), 201).body;
    ok(await call('PATCH', `/v1/spaces/${spaceId}/change-requests/${changeRequest.id}`, { status: 'archived' }));
    ok(await call('PATCH', `/v1/spaces/${spaceId}/change-requests/${changeRequest.id}`, { status: 'open' }));
    ok(await call('POST', `/v1/spaces/${spaceId}/change-requests/${changeRequest.id}/merge`));
    const comment = created(
      await call('POST', `/v1/spaces/${spaceId}/comments`, { page: written.changes[0].page.id, body: { markdown: 'A comment' } }),
    ).body;
    created(await call('POST', `/v1/spaces/${spaceId}/comments/${comment.id}/replies`, { body: { markdown: 'A reply' } }));
    ok(await call('PUT', `/v1/spaces/${spaceId}/comments/${comment.id}`, { resolved: true }));
    const read = await service.request('GET', `/sites/${siteId}/welcome?ref=docs`, {
      headers: {
        'user-agent': 'EventsTest/1.0',
        referer: 'https://search.example/find?q=private+words',
        cookie: 'session=customer-app-secret',
      },
    });
    expect(read.status).toBe(200);
    await until('the site_view delivered', async () =>
      received.some((request) => JSON.parse(request.body).type === 'site_view') ? true : undefined,
    );
    ok(await call('DELETE', `${installation}/sites/${siteId}`), 204);
    ok(await call('DELETE', `${installation}/spaces/${spaceId}`), 204);
    ok(await call('DELETE', installation), 204);
    events = await until('the installation_deleted delivered', async () => {
      const parsed = received.map((request) => JSON.parse(request.body) as Event);
      return parsed.some((event) => event.type === 'installation_deleted') ? parsed : undefined;
    });
  });

  it('receives every event type the service emits', () => {
    expect([...new Set(events.map((event) => event.type as string))].sort()).toEqual(
      [...PLATFORM_TYPES, ...Object.keys(EXTENSION_SCHEMAS)].sort(),
    );
  });

  it("receives each of the platform's types as the platform's Event", () => {
    const platform = events.filter((event) => PLATFORM_TYPES.includes(event.type));
    expect(platform.map((event) => ({ type: event.type, problem: platformSchemaProblem('Event', event) }))).toEqual(
      platform.map((event) => ({ type: event.type, problem: null })),
    );
  });

  it("receives each of the service's own types in its documented shape", () => {
    const own = events.filter((event) => (event.type as string) in EXTENSION_SCHEMAS);
    expect(
      own.map((event) => ({
        type: event.type,
        valid: extensionValidators[event.type](event),
        errors: extensionValidators[event.type].errors ?? null,
      })),
    ).toEqual(own.map((event) => ({ type: event.type, valid: true, errors: null })));
  });

  it('receives each event signed, its id in the event-id header', () => {
    for (const request of received) {
      const event = JSON.parse(request.body) as Event;
      expect(verifySignature(signingSecret, String(request.headers['x-integration-signature']), request.body, new Date())).toBe(true);
      expect(request.headers['x-integration-event-id']).toBe(event.eventId);
    }
  });

  it('reads who updated the content as the platform’s users', () => {
    const updated = events.find(
      (event): event is Extract<Event, { type: 'space_content_updated' }> => event.type === 'space_content_updated',
    )!;
    expect(updated.updatedBy).toEqual([
      { object: 'user', id: ada.id, displayName: 'Ada', urls: { location: expect.stringContaining(`/v1/users/${ada.id}`) } },
    ]);
  });

  it('reads a site_view with the referrer’s origin and path, and a visitor with a pseudonym, the user agent, a truncated address and no cookies', () => {
    const view = events.find((event): event is Extract<Event, { type: 'site_view' }> => event.type === 'site_view')!;
    expect(view).toMatchObject({
      siteId,
      spaceId,
      url: expect.stringMatching(new RegExp(`/sites/${siteId}/welcome\\?ref=docs$`)),
      referrer: 'https://search.example/find',
    });
    expect(view.visitor).toEqual({
      anonymousId: expect.stringMatching(/^[0-9a-f]{32}$/),
      cookies: {},
      userAgent: 'EventsTest/1.0',
      ip: '127.0.0.0',
      claims: {},
    });
  });

  it('reads the previous configuration in every deletion, and no previous in a first setup', () => {
    const byType = (type: string) => events.filter((event) => event.type === type) as Array<Event & { previous?: unknown }>;
    for (const type of ['installation_deleted', 'space_installation_deleted', 'site_installation_deleted'])
      expect(byType(type)).toEqual([expect.objectContaining({ previous: { configuration: {} } })]);
    for (const type of ['space_installation_setup', 'site_installation_setup']) expect(byType(type)[0]).not.toHaveProperty('previous');
    expect(byType('installation_setup').map((event) => event.previous)).toEqual([undefined, { status: 'active', configuration: {} }]);
  });

  it("lists the same events in the platform's shape (GET …/events)", async () => {
    const listed = ok(await call('GET', `/v1/integrations/${name}/events?limit=100`)).body;
    // Views are not listed (they stay out of the log); every other delivery is.
    expect(listed.items.map((event: { id: string }) => event.id).sort()).toEqual(
      events
        .filter((event) => event.type !== 'site_view')
        .map((event) => event.eventId)
        .sort(),
    );
    const withoutOwnTypes = {
      ...listed,
      items: listed.items.filter((event: { payload: Event }) => !((event.payload.type as string) in EXTENSION_SCHEMAS)),
    };
    expect(
      platformResponseProblem(platformOperation('GET', '/v1/integrations/{integrationName}/events')!, 200, withoutOwnTypes),
    ).toBeNull();
  });
});
