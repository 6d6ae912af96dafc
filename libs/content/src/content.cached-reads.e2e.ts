/**
 * Pages read by id or by path are answered from the response cache until a commit writes
 * something the answer read: the space's head, the space itself, or the caller's standing.
 */
import { apiSpec, type ApiSpec } from '#testing';

describe('a page answered from the response cache', () => {
  let api: ApiSpec;
  let ada: { token: string; id: string; email: string };
  let bob: { token: string; id: string; email: string };
  let organizationId: string;
  let spaceId: string;
  let otherSpaceId: string;
  let pageId: string;

  const get = (token: string, url: string) => api.request('GET', url, { token });
  const write = async (space: string, changes: unknown[]) => {
    const response = await api.request('POST', `/v1/spaces/${space}/content`, { token: ada.token, body: { changes } });
    if (response.status !== 200) throw new Error(`write answered ${response.status}: ${response.text}`);
    return response.body as { changes: Array<{ page: { id: string } }> };
  };
  /** Lookups answered from the cache so far (`http_response_cache_lookups`). */
  const hits = async (): Promise<number> => {
    const text = (await api.request('GET', '/metrics')).text;
    return Number(/^http_response_cache_lookups\{outcome="hit"\} (\S+)$/m.exec(text)?.[1] ?? NaN);
  };

  beforeAll(async () => {
    api = await apiSpec();
    ada = await api.createUser('Ada');
    bob = await api.createUser('Bob');
    organizationId = (await api.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Cached pages' } })).body.id;
    const invited = await api.request('POST', `/v1/orgs/${organizationId}/invites`, {
      token: ada.token,
      body: { emails: [{ email: bob.email, role: 'read' }] },
    });
    expect(invited.status).toBe(200);
    const pending = await api.request('GET', '/v1/user/invites', { token: bob.token });
    const invitation = pending.body.items.find((item: { organization: { id: string } }) => item.organization.id === organizationId);
    expect((await api.request('POST', `/v1/user/invites/${invitation.id}`, { token: bob.token })).status).toBe(200);
    spaceId = (await api.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: ada.token, body: { title: 'Docs' } })).body.id;
    otherSpaceId = (await api.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: ada.token, body: { title: 'Other' } })).body.id;
    pageId = (await write(spaceId, [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'First words.' } }])).changes[0].page
      .id;
    await api.settled();
  });

  afterAll(() => api.close());

  it('given a page read by path, when it is read again, then the cache answers it with the same body and ETag', async () => {
    const first = await get(ada.token, `/v1/spaces/${spaceId}/content/path/guide`);
    const before = await hits();
    const second = await get(ada.token, `/v1/spaces/${spaceId}/content/path/guide`);
    expect(await hits()).toBe(before + 1);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it('given a page read by id, when another space is written, then the cache still answers it', async () => {
    await get(ada.token, `/v1/spaces/${spaceId}/content/page/${pageId}`);
    await write(otherSpaceId, [{ operation: 'insert_page', title: 'Elsewhere', document: { markdown: 'Not here.' } }]);
    await api.settled();
    const before = await hits();
    expect((await get(ada.token, `/v1/spaces/${spaceId}/content/page/${pageId}`)).status).toBe(200);
    expect(await hits()).toBe(before + 1);
  });

  it('given a cached page, when its body is rewritten, then the next read answers the new body and a new ETag', async () => {
    const url = `/v1/spaces/${spaceId}/content/path/guide?format=markdown`;
    const old = await get(ada.token, url);
    expect(old.body.markdown).toContain('First words.');
    await write(spaceId, [{ operation: 'update_page', page: pageId, document: { markdown: 'Second words.' } }]);
    await api.settled();
    const fresh = await get(ada.token, url);
    expect(fresh.body.markdown).toContain('Second words.');
    expect(fresh.headers.etag).not.toBe(old.headers.etag);
  });

  it('given a cached page, when the page moves to another path, then the old path answers 404', async () => {
    await get(ada.token, `/v1/spaces/${spaceId}/content/path/guide`);
    await write(spaceId, [{ operation: 'update_page', page: pageId, slug: 'handbook' }]);
    await api.settled();
    expect((await get(ada.token, `/v1/spaces/${spaceId}/content/path/guide`)).status).toBe(404);
    expect((await get(ada.token, `/v1/spaces/${spaceId}/content/path/handbook`)).status).toBe(200);
  });

  it('given a member’s page answer cached, when the member is removed, then it is not served to them', async () => {
    const url = `/v1/spaces/${spaceId}/content/page/${pageId}`;
    expect((await get(bob.token, url)).status).toBe(200);
    expect((await api.request('DELETE', `/v1/orgs/${organizationId}/members/${bob.id}`, { token: ada.token })).status).toBe(204);
    await api.settled();
    expect([403, 404]).toContain((await get(bob.token, url)).status);
  });
});
