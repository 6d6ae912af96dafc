/**
 * A published page reads its space's pages through content's SITE_CONTENT port, kept per revision:
 * its cost does not grow with the space once the revision has been read, and a new revision is read
 * afresh.
 */
import { RevisionTree } from './tree/revision-tree';
import { apiSpec, type ApiSpec } from '#testing';

describe('given a published site over a space of twenty pages', () => {
  let api: ApiSpec;
  let token: string;
  let spaceId: string;
  let siteId: string;
  const call = (method: string, url: string, body?: unknown) => api.request(method, url, { token, body });

  beforeAll(async () => {
    api = await apiSpec();
    ({ token } = await api.createUser('Ada'));
    const organizationId = (await call('POST', '/v1/orgs', { title: 'Published' })).body.id;
    spaceId = (await call('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Handbook' })).body.id;
    const changes = Array.from({ length: 20 }, (_, i) => ({
      operation: 'insert_page',
      title: `Page ${i}`,
      document: { markdown: `Text ${i}.` },
    }));
    expect((await call('POST', `/v1/spaces/${spaceId}/content`, { changes })).status).toBe(200);
    siteId = (await call('POST', `/v1/orgs/${organizationId}/sites`, { title: 'Handbook site', spaces: [spaceId] })).body.id;
    expect((await call('POST', `/v1/orgs/${organizationId}/sites/${siteId}/publish`)).status).toBe(200);
  });

  afterAll(() => api.close());

  it('when a page is read again at the same revision, then no view of the space’s pages is built again', async () => {
    expect((await api.request('GET', `/sites/${siteId}/page-3`)).status).toBe(200);
    const views = jest.spyOn(RevisionTree.prototype, 'pages');
    try {
      const again = await api.request('GET', `/sites/${siteId}/page-7`);
      expect({ status: again.status, title: again.text.includes('<h1>Page 7</h1>'), views: views.mock.calls.length }).toEqual({
        status: 200,
        title: true,
        views: 0,
      });
    } finally {
      views.mockRestore();
    }
  });

  it('when the space gets a new revision, then its new page is served and listed', async () => {
    const changes = [{ operation: 'insert_page', title: 'Added later', document: { markdown: 'New text.' } }];
    expect((await call('POST', `/v1/spaces/${spaceId}/content`, { changes })).status).toBe(200);
    const added = await api.request('GET', `/sites/${siteId}/added-later`);
    const other = await api.request('GET', `/sites/${siteId}/page-1`);
    expect({
      added: added.status,
      text: added.text.includes('New text.'),
      listed: other.text.includes(`href="/sites/${siteId}/added-later"`),
    }).toEqual({ added: 200, text: true, listed: true });
  });
});
