import { cleanUpServices, expectError, startService, type RunningService } from './support/service';

/** The audit log and stream history, through HTTP: every change leaves an audit event with actor, source and target. */
describe('audit events and stream history', () => {
  let service: RunningService;
  let ada: { token: string; user: { id: string } };
  let bob: { token: string; user: { id: string } };
  let organizationId: string;

  beforeAll(async () => {
    service = await startService();
    ada = await service.createUser('ada@acme.io', 'Ada');
    bob = await service.createUser('bob@else.io', 'Bob');
    const created = await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Acme' } });
    organizationId = created.body.id;
    await service.request('PATCH', `/v1/orgs/${organizationId}`, { token: ada.token, body: { title: 'Acme Inc' } });
    await service.request('PATCH', `/v1/orgs/${organizationId}`, { token: ada.token, body: { ai: true } });
  });
  afterAll(cleanUpServices);

  const audit = (query = '', token = ada.token) => service.request('GET', `/v1/orgs/${organizationId}/audit-events${query}`, { token });

  it('lists an audit event for each change, newest first, with actor, source and target', async () => {
    const response = await audit();
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(4);
    expect(response.body.items.map((e: { action: string }) => e.action)).toEqual([
      'organization.updated',
      'organization.updated',
      'member.added',
      'organization.created',
    ]);
    const [latest] = response.body.items;
    expect(latest).toEqual({
      object: 'audit-event',
      id: expect.any(String),
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      action: 'organization.updated',
      actor: { type: 'user', id: ada.user.id, label: 'Ada' },
      source: 'api',
      target: { type: 'organization', id: organizationId, label: 'Acme Inc' },
      urls: { location: `${service.url}/v1/orgs/${organizationId}/audit-events/${latest.id}` },
    });
  });

  it('reads one audit event by id, and 404 for an unknown one', async () => {
    const [first] = (await audit('?limit=1')).body.items;
    expect((await service.request('GET', `/v1/orgs/${organizationId}/audit-events/${first.id}`, { token: ada.token })).body).toEqual(first);
    expectError(await service.request('GET', `/v1/orgs/${organizationId}/audit-events/nope`, { token: ada.token }), 404);
  });

  it('filters by action, actor, target and time, and pages', async () => {
    expect((await audit('?action=organization.created')).body.count).toBe(1);
    expect((await audit(`?actor=${ada.user.id}`)).body.count).toBe(4);
    expect((await audit(`?actor=${bob.user.id}`)).body.count).toBe(0);
    expect((await audit(`?target=${ada.user.id}`)).body.items.map((e: { action: string }) => e.action)).toEqual(['member.added']);
    expect((await audit('?from=2999-01-01T00:00:00Z')).body.count).toBe(0);
    expect((await audit('?to=2000-01-01T00:00:00Z')).body.count).toBe(0);
    expectError(await audit('?from=yesterday'), 400, /from/);
    const seen: string[] = [];
    let page = await audit('?limit=3');
    seen.push(...page.body.items.map((e: { id: string }) => e.id));
    page = await audit(`?limit=3&page=${encodeURIComponent(page.body.next.page)}`);
    seen.push(...page.body.items.map((e: { id: string }) => e.id));
    expect(page.body.next).toBeUndefined();
    expect(new Set(seen).size).toBe(4);
    expectError(await audit('?page=not-a-cursor'), 400);
  });

  it('is 404 for people outside the organization and 401 without a token', async () => {
    expectError(await audit('', bob.token), 404);
    expectError(await service.request('GET', `/v1/orgs/${organizationId}/audit-events`), 401);
  });

  it('a PATCH that changes nothing leaves no audit event', async () => {
    await service.request('PATCH', `/v1/orgs/${organizationId}`, { token: ada.token, body: { title: 'Acme Inc' } });
    expect((await audit()).body.count).toBe(4);
  });

  it('shows a stream history to the admin token only', async () => {
    const history = await service.request('GET', `/v1/admin/streams/organization-${organizationId}`, { token: service.adminToken });
    expect(history.status).toBe(200);
    expect(history.body.items.map((e: { type: string }) => e.type)).toEqual([
      'OrganizationCreated',
      'MemberAdded',
      'OrganizationUpdated',
      'OrganizationUpdated',
    ]);
    expect(history.body.items[2]).toMatchObject({
      object: 'event',
      revision: 2,
      data: { organizationId, changes: { title: 'Acme Inc' } },
      metadata: { actor: { type: 'user', id: ada.user.id, label: 'Ada' }, source: 'api', schemaVersion: 1, requestId: expect.any(String) },
    });
    expectError(await service.request('GET', `/v1/admin/streams/organization-${organizationId}`, { token: ada.token }), 403);
    expectError(await service.request('GET', '/v1/admin/streams/organization-unknown', { token: service.adminToken }), 404);
  });

  it('keeps the audit log across a restart', async () => {
    const before = (await audit()).body;
    await service.restart();
    expect((await audit()).body).toEqual(before);
  });
});
