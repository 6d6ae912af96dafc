/**
 * A flow across streams through the real service in process: deleting a collection with spaces
 * and a collection inside. The request is answered once the cascade is done (read-your-writes), so
 * the events are asserted after the response, whichever part of the service appended them.
 */
import { apiSpec, type ApiResponse, type ApiSpec, type AppendedEvent } from '#testing';
import { collectionStream } from './collection.decider';
import { spaceStream } from './space.decider';

describe('given a collection with spaces and a collection inside, when an admin deletes it', () => {
  let api: ApiSpec;
  let token: string;
  let organizationId: string;
  let guides: string;
  let spaces: string[];
  let advanced: string;
  let response: ApiResponse;
  let appended: AppendedEvent[];

  const created = async (url: string, body: object): Promise<string> => {
    const answer = await api.request('POST', url, { token, body });
    if (answer.status !== 201) throw new Error(`POST ${url} answered ${answer.status}: ${answer.text}`);
    return answer.body.id;
  };
  const onStream = (streamId: string) => appended.filter((event) => event.streamId === streamId);

  beforeAll(async () => {
    api = await apiSpec();
    ({ token } = await api.createUser('Ada'));
    organizationId = await created('/v1/orgs', { title: 'Acme' });
    guides = await created(`/v1/orgs/${organizationId}/collections`, { title: 'Guides' });
    spaces = [
      await created(`/v1/orgs/${organizationId}/spaces`, { title: 'Intro', parent: guides }),
      await created(`/v1/orgs/${organizationId}/spaces`, { title: 'Setup', parent: guides }),
    ];
    advanced = await created(`/v1/orgs/${organizationId}/collections`, { title: 'Advanced', parent: guides });
    const since = await api.position();
    response = await api.request('DELETE', `/v1/collections/${guides}`, { token });
    appended = await api.appendedEvents(since);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('then it answers 204', () => {
    expect(response.status).toBe(204);
  });

  it('then the collection’s stream records its deletion', () => {
    expect(onStream(collectionStream(guides))).toEqual([
      expect.objectContaining({ type: 'CollectionDeleted', data: expect.objectContaining({ collectionId: guides, organizationId }) }),
    ]);
  });

  it('then each space inside moves to the top level, private, because its collection was deleted', () => {
    for (const spaceId of spaces) {
      expect(onStream(spaceStream(spaceId))).toEqual([
        expect.objectContaining({
          type: 'SpaceMoved',
          data: expect.objectContaining({ spaceId, parent: null, visibility: 'private', reason: 'collection-deleted' }),
        }),
      ]);
    }
  });

  it('then the collection inside moves to the top level', () => {
    expect(onStream(collectionStream(advanced))).toEqual([
      expect.objectContaining({
        type: 'CollectionMoved',
        data: expect.objectContaining({ collectionId: advanced, parent: null, reason: 'collection-deleted' }),
      }),
    ]);
  });

  it('then no other space or collection is touched', () => {
    const touched = new Set(appended.filter((event) => /^(space|collection)-/.test(event.streamId)).map((event) => event.streamId));
    expect(touched).toEqual(new Set([collectionStream(guides), collectionStream(advanced), ...spaces.map(spaceStream)]));
  });

  it('then GET the collection answers 404', async () => {
    expect((await api.request('GET', `/v1/collections/${guides}`, { token })).status).toBe(404);
  });

  it('then GET each space answers it at the top level, private', async () => {
    for (const spaceId of spaces) {
      const { status, body } = await api.request('GET', `/v1/spaces/${spaceId}`, { token });
      expect({ status, parent: body.parent, visibility: body.visibility }).toEqual({
        status: 200,
        parent: undefined,
        visibility: 'private',
      });
    }
  });

  it('then GET the collection inside answers it at the top level', async () => {
    const { status, body } = await api.request('GET', `/v1/collections/${advanced}`, { token });
    expect({ status, parent: body.parent }).toEqual({ status: 200, parent: undefined });
  });

  it('then the organization lists only the collection that was inside', async () => {
    const { body } = await api.request('GET', `/v1/orgs/${organizationId}/collections`, { token });
    expect(body.items.map((item: { id: string }) => item.id)).toEqual([advanced]);
  });
});
