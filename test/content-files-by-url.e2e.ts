/**
 * Files of a content write named by URL (`insert_files` with `url`) are fetched by the service, so
 * they obey the same outbound guard as imports: a private or loopback address is refused with 400
 * unless IMPORT_ALLOW_PRIVATE_NETWORKS is set, and then the file is stored. The file is served by a
 * local server on 127.0.0.1, which also counts that a refused write never reached it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiSpec, type ApiSpec } from '#testing';

let files: Server;
let fileUrl: string;
let requests = 0;

beforeAll(async () => {
  files = createServer((_request, response) => {
    requests++;
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end('hello');
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  fileUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/notes.txt`;
});

afterAll(async () => {
  await new Promise((resolve) => files.close(resolve));
});

/** A space of a fresh organization in `api`, and its owner's token. */
async function spaceIn(api: ApiSpec): Promise<{ spaceId: string; token: string }> {
  const { token } = await api.createUser('Writer');
  const organizationId = (await api.request('POST', '/v1/orgs', { token, body: { title: 'Files by URL' } })).body.id;
  const spaceId = (await api.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body: { title: 'Space' } })).body.id;
  return { spaceId, token };
}

/** A content write adding one file named by URL. */
const withUrl = (url: string) => ({ changes: [{ operation: 'insert_files', files: [{ name: 'notes.txt', url }] }] });

// Mutation pinned: passing `allowPrivateNetworks: true` (or dropping the setting) on the insert_files download.
describe('insert_files by URL without IMPORT_ALLOW_PRIVATE_NETWORKS', () => {
  let api: ApiSpec;
  beforeAll(async () => {
    api = await apiSpec();
  }, 60_000);
  afterAll(() => api.close());

  it('refuses a loopback address with 400, fetches nothing and stores nothing', async () => {
    const { spaceId, token } = await spaceIn(api);
    const before = requests;
    const refused = await api.request('POST', `/v1/spaces/${spaceId}/content`, { token, body: withUrl(fileUrl) });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: { error: { code: 400, message: expect.stringMatching(/private|loopback/) } },
    });
    expect(requests).toBe(before);
    expect((await api.request('GET', `/v1/spaces/${spaceId}/content`, { token })).body.files).toEqual([]);
  });
});

describe('insert_files by URL with IMPORT_ALLOW_PRIVATE_NETWORKS=true', () => {
  let api: ApiSpec;
  beforeAll(async () => {
    api = await apiSpec({ env: { IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' } });
  }, 60_000);
  afterAll(() => api.close());

  it('fetches the file from the loopback address and stores it', async () => {
    const { spaceId, token } = await spaceIn(api);
    const response = await api.request('POST', `/v1/spaces/${spaceId}/content`, { token, body: withUrl(fileUrl) });
    expect(response.status).toBeLessThan(300);
    const stored = (await api.request('GET', `/v1/spaces/${spaceId}/content`, { token })).body.files;
    expect(stored).toEqual([expect.objectContaining({ name: 'notes.txt', size: 5 })]);
  });
});
