/**
 * The space's lifecycle meets content, across streams, through the service in process: a duplicate
 * takes its source's content along (sharing blobs), and a purge removes the blobs that only the
 * purged space's revisions named.
 */
import { SpacePurgeJob } from '#spaces';
import { apiSpec, type ApiSpec } from '#testing';

const EIGHT_DAYS_MS = 8 * 24 * 60 * 60 * 1000;

describe('given a space with content, duplicated, then written to and purged', () => {
  let api: ApiSpec;
  let token: string;
  let source: string;
  let copy: string;
  let sharedBody: string;
  let ownBody: string;

  const call = (method: string, url: string, body?: unknown) => api.request(method, url, { token, body });
  const write = async (spaceId: string, changes: unknown[]) => {
    const response = await call('POST', `/v1/spaces/${spaceId}/content`, { changes });
    if (response.status !== 200) throw new Error(`write answered ${response.status}: ${response.text}`);
    return response.body as { changes: Array<{ page: { id: string } }> };
  };
  const bodyOf = async (spaceId: string, pageId: string) =>
    (await call('GET', `/v1/spaces/${spaceId}/content/page/${pageId}`)).body.documentId as string;
  const stored = (hash: string) => api.service.runtime.stores.blobs.stat(hash);

  beforeAll(async () => {
    api = await apiSpec();
    ({ token } = await api.createUser('Ada'));
    const organizationId = (await call('POST', '/v1/orgs', { title: 'Lifecycle' })).body.id;
    source = (await call('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Source' })).body.id;
    const shared = (await write(source, [{ operation: 'insert_page', title: 'Shared', document: { markdown: 'Text both spaces hold.' } }]))
      .changes[0].page.id;
    sharedBody = await bodyOf(source, shared);
    copy = (await call('POST', `/v1/spaces/${source}/duplicate`)).body.id;
    const own = (
      await write(source, [{ operation: 'insert_page', title: 'Own', document: { markdown: 'Text only the source ever held.' } }])
    ).changes[0].page.id;
    ownBody = await bodyOf(source, own);
    await call('DELETE', `/v1/spaces/${source}`);
    await api.service.app.get(SpacePurgeJob).runOnce(new Date(Date.now() + EIGHT_DAYS_MS));
    await api.settled();
  });

  afterAll(() => api.close());

  it('then the duplicate holds the source’s pages as they were when it was made', async () => {
    const pages = (await call('GET', `/v1/spaces/${copy}/content/pages`)).body.pages;
    expect(pages.map((page: { title: string }) => page.title)).toEqual(['Shared']);
  });

  it('then a body only the purged space held is removed from the blob store', async () => {
    expect(await stored(ownBody)).toBeNull();
  });

  it('then a body the duplicate still names is kept, and the duplicate reads it', async () => {
    expect(await stored(sharedBody)).not.toBeNull();
    const page = (await call('GET', `/v1/spaces/${copy}/content/pages`)).body.pages[0];
    const read = await call('GET', `/v1/spaces/${copy}/content/page/${page.id}?format=markdown`);
    expect(read.body.markdown).toContain('Text both spaces hold.');
  });

  it('then the purged space’s content is not found', async () => {
    expect((await call('GET', `/v1/spaces/${source}/content`)).status).toBe(404);
  });
});
