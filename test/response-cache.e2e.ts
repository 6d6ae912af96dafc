import { joinAs } from './support/members';
import { cleanUpServices, ok, startService, type RunningService } from './support/service';

/**
 * The response cache through HTTP: an answer is kept until a commit writes something it read, and
 * only that; what it read includes the caller's standing (their token, their membership).
 */
describe('the response cache', () => {
  let service: RunningService;
  let ada: { token: string; user: { id: string } };
  let bob: { token: string; user: { id: string } };
  let organizationId: string;
  let otherOrganizationId: string;

  /** Lookups answered from the cache so far (`http_response_cache_lookups`, /metrics). */
  const hits = async (): Promise<number> => {
    const text = (await service.request('GET', '/metrics')).text;
    return Number(/^http_response_cache_lookups\{outcome="hit"\} (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  const get = (token: string, path: string) => service.request('GET', path, { token });

  beforeAll(async () => {
    service = await startService();
    ada = await service.createUser('ada@cache.io', 'Ada');
    bob = await service.createUser('bob@cache.io', 'Bob');
    organizationId = ok(await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Cached' } }), 201).body.id;
    otherOrganizationId = ok(await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Elsewhere' } }), 201).body.id;
    await joinAs(service, organizationId, ada.token, [{ token: bob.token, email: 'bob@cache.io', role: 'read' }]);
  });
  afterAll(cleanUpServices);

  it('given a cached organization, when another organization is written, then the answer is still served from the cache', async () => {
    ok(await get(ada.token, `/v1/orgs/${organizationId}`));
    ok(await service.request('PATCH', `/v1/orgs/${otherOrganizationId}`, { token: ada.token, body: { title: 'Elsewhere, renamed' } }));
    const before = await hits();
    expect(ok(await get(ada.token, `/v1/orgs/${organizationId}`)).body.title).toBe('Cached');
    expect(await hits()).toBe(before + 1);
  });

  it('given a cached organization, when it is renamed, then the next GET answers the new title', async () => {
    ok(await get(ada.token, `/v1/orgs/${organizationId}`));
    ok(await service.request('PATCH', `/v1/orgs/${organizationId}`, { token: ada.token, body: { title: 'Cached, renamed' } }));
    expect(ok(await get(ada.token, `/v1/orgs/${organizationId}`)).body.title).toBe('Cached, renamed');
  });

  it('given a cached member list, when someone joins, then the next list has them', async () => {
    expect(ok(await get(ada.token, `/v1/orgs/${organizationId}/members`)).body.count).toBe(2);
    const cat = await service.createUser('cat@cache.io', 'Cat');
    await joinAs(service, organizationId, ada.token, [{ token: cat.token, email: 'cat@cache.io', role: 'read' }]);
    expect(ok(await get(ada.token, `/v1/orgs/${organizationId}/members`)).body.count).toBe(3);
  });

  it('given a cached member list, when a member joins a team, then the next list counts it in their teams', async () => {
    const teams = async () =>
      ok(await get(ada.token, `/v1/orgs/${organizationId}/members`)).body.items.find((m: { id: string }) => m.id === bob.user.id).teams;
    expect(await teams()).toBe(0);
    ok(
      await service.request('PUT', `/v1/orgs/${organizationId}/teams`, {
        token: ada.token,
        body: { title: 'Readers', members: [bob.user.id] },
      }),
      201,
    );
    expect(await teams()).toBe(1);
  });

  it('given a member’s answer cached, when the member is removed, then it is not served to them: they are refused', async () => {
    expect(ok(await get(bob.token, `/v1/orgs/${organizationId}`)).body.id).toBe(organizationId);
    ok(await get(bob.token, `/v1/orgs/${organizationId}`));
    expect((await service.request('DELETE', `/v1/orgs/${organizationId}/members/${bob.user.id}`, { token: ada.token })).status).toBe(204);
    expect((await get(bob.token, `/v1/orgs/${organizationId}`)).status).toBe(404);
  });
});
