/**
 * Places that go away take their installations along, across streams, through the service in
 * process: a deleted space keeps its installation while it can be restored, and loses it once
 * purged (space_installation_deleted follows).
 */
import { SpacePurgeJob } from '#spaces';
import { apiSpec, type ApiSpec } from '#testing';

const EIGHT_DAYS_MS = 8 * 24 * 60 * 60 * 1000;

describe('given an integration installed on a space, then the space deleted', () => {
  let api: ApiSpec;
  let token: string;
  let name: string;
  let spaces: string;
  let spaceId: string;

  const call = async (method: string, url: string, body?: unknown) => {
    const response = await api.request(method, url, { token, body });
    if (response.status >= 300) throw new Error(`${method} ${url} answered ${response.status}: ${response.text}`);
    return response.body;
  };

  beforeAll(async () => {
    api = await apiSpec();
    ({ token } = await api.createUser('Ada'));
    const organizationId = (await call('POST', '/v1/orgs', { title: 'Lifecycle' })).id;
    name = `flows-${organizationId}`;
    await call('POST', `/v1/integrations/${name}`, { organization: organizationId, title: 'Flows', visibility: 'private' });
    const installation = await call('POST', `/v1/integrations/${name}/installations`, { organization: organizationId });
    spaces = `/v1/integrations/${name}/installations/${installation.id}/spaces`;
    spaceId = (await call('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Soon gone' })).id;
    await call('POST', spaces, { space: spaceId });
    await call('DELETE', `/v1/spaces/${spaceId}`);
  });

  afterAll(() => api.close());

  it('then, while it can be restored, the installation stays', async () => {
    expect((await call('GET', spaces)).items).toEqual([expect.objectContaining({ space: spaceId })]);
  });

  it('then, once purged, the installation is gone and space_installation_deleted follows', async () => {
    await api.service.app.get(SpacePurgeJob).runOnce(new Date(Date.now() + EIGHT_DAYS_MS));
    await api.settled();
    expect((await call('GET', spaces)).items).toEqual([]);
    const types = (
      (await call('GET', `/v1/integrations/${name}/events?limit=100`)).items as Array<{ payload: { type: string; spaceId?: string } }>
    )
      .filter((event) => event.payload.spaceId === spaceId)
      .map((event) => event.payload.type);
    expect(types).toEqual(['space_installation_deleted', 'space_installation_setup']);
  });
});
