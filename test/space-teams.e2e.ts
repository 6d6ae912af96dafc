import { joinAs } from './support/members';
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

/**
 * Team access on spaces (extension): `GET|PUT|DELETE /v1/spaces/{spaceId}/teams…`, the effective
 * role it gives team members, the Team object's `spaces` count and the audit log, through HTTP.
 */
describe('team access on spaces', () => {
  let service: RunningService;
  let organizationId: string;
  const people: Record<string, { id: string; token: string }> = {};
  let teamId: string;
  let spaceId: string;

  const call = (token: string, method: string, path: string, body?: unknown): Promise<Response> =>
    service.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
  const memberSpaces = async (userId: string) =>
    (await call(people.ada.token, 'GET', `/v1/orgs/${organizationId}/members/${userId}/spaces`)).body.items as Array<{
      permission: string;
      space: { id: string };
    }>;

  beforeAll(async () => {
    service = await startService();
    const ada = await service.createUser('ada@space-teams.example', 'Ada Admin');
    people.ada = { id: ada.user.id, token: ada.token };
    organizationId = (await call(ada.token, 'POST', '/v1/orgs', { title: 'Acme' })).body.id;
    const [ritaUser, eveUser] = [
      await service.createUser('rita@space-teams.example', 'Rita'),
      await service.createUser('eve@space-teams.example', 'Eve'),
    ];
    await joinAs(service, organizationId, ada.token, [
      { token: ritaUser.token, email: 'rita@space-teams.example', role: 'read' },
      { token: eveUser.token, email: 'eve@space-teams.example', role: 'edit' },
    ]);
    const [rita, eve] = [ritaUser.user.id, eveUser.user.id];
    people.rita = { id: rita, token: ritaUser.token };
    people.eve = { id: eve, token: eveUser.token };
    const team = await call(ada.token, 'PUT', `/v1/orgs/${organizationId}/teams`, { title: 'Writers', members: [rita] });
    expect(team.status).toBe(201);
    teamId = team.body.id;
    const space = await call(ada.token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Handbook' });
    expect(space.status).toBe(201);
    spaceId = space.body.id;
  });
  afterAll(cleanUpServices);

  it('starts with no team access: a read member reads, without edit', async () => {
    expect((await call(people.ada.token, 'GET', `/v1/spaces/${spaceId}/teams`)).body).toEqual({ count: 0, items: [] });
    const read = await call(people.rita.token, 'GET', `/v1/spaces/${spaceId}`);
    expect(read.status).toBe(200);
    expect(read.body.permissions).toMatchObject({ view: true, edit: false });
    expect((await memberSpaces(people.rita.id)).find((item) => item.space.id === spaceId)?.permission).toBe('read');
  });

  it('only admins of the space grant access (403), to live teams of its organization (400), with a role (400); unknown spaces are 404', async () => {
    expectError(await call(people.eve.token, 'PUT', `/v1/spaces/${spaceId}/teams/${teamId}`, { role: 'edit' }), 403);
    expectError(await call(people.ada.token, 'PUT', `/v1/spaces/${spaceId}/teams/nosuchteam0000000000`, { role: 'edit' }), 400, /teamId/);
    expectError(await call(people.ada.token, 'PUT', `/v1/spaces/${spaceId}/teams/${teamId}`, { role: null }), 400, /role/);
    expectError(await call(people.ada.token, 'PUT', `/v1/spaces/${spaceId}/teams/${teamId}`, { role: 'owner' }), 400, /role/);
    expectError(await call(people.ada.token, 'PUT', `/v1/spaces/nosuchspace000000000/teams/${teamId}`, { role: 'edit' }), 404);
    expectError(await call(people.ada.token, 'DELETE', `/v1/spaces/${spaceId}/teams/${teamId}`), 404);
  });

  it('a read member in a team granted edit edits the space; the team counts the space', async () => {
    const set = await call(people.ada.token, 'PUT', `/v1/spaces/${spaceId}/teams/${teamId}`, { role: 'edit' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ count: 1, items: [{ team: teamId, role: 'edit' }] });
    const again = await call(people.ada.token, 'PUT', `/v1/spaces/${spaceId}/teams/${teamId}`, { role: 'edit' });
    expect(again.body).toEqual(set.body);
    expect((await call(people.eve.token, 'GET', `/v1/spaces/${spaceId}/teams`)).body).toEqual(set.body);

    const read = await call(people.rita.token, 'GET', `/v1/spaces/${spaceId}`);
    expect(read.body.permissions).toMatchObject({ view: true, edit: true, comment: true, admin: false });
    const listed = (await call(people.rita.token, 'GET', `/v1/orgs/${organizationId}/spaces`)).body.items as Array<{
      id: string;
      permissions: { edit: boolean };
    }>;
    expect(listed.find((item) => item.id === spaceId)?.permissions).toMatchObject({ view: true, edit: true, admin: false });
    expect((await memberSpaces(people.rita.id)).find((item) => item.space.id === spaceId)?.permission).toBe('edit');
    expect((await call(people.rita.token, 'PATCH', `/v1/spaces/${spaceId}`, { title: 'Handbook 2' })).status).toBe(200);
    expect((await call(people.ada.token, 'GET', `/v1/orgs/${organizationId}/teams/${teamId}`)).body).toMatchObject({
      id: teamId,
      spaces: 1,
    });
    // Still not an admin of the space: team access stays with admins.
    expectError(await call(people.rita.token, 'DELETE', `/v1/spaces/${spaceId}/teams/${teamId}`), 403);
  });

  it('removing the grant (204) returns the member to read, and the team to no spaces', async () => {
    const removed = await call(people.ada.token, 'DELETE', `/v1/spaces/${spaceId}/teams/${teamId}`);
    expect(removed.status).toBe(204);
    expect((await call(people.ada.token, 'GET', `/v1/spaces/${spaceId}/teams`)).body).toEqual({ count: 0, items: [] });
    expect((await call(people.rita.token, 'GET', `/v1/spaces/${spaceId}`)).body.permissions).toMatchObject({ view: true, edit: false });
    const listed = (await call(people.rita.token, 'GET', `/v1/orgs/${organizationId}/spaces`)).body.items as Array<{
      id: string;
      permissions: { edit: boolean };
    }>;
    expect(listed.find((item) => item.id === spaceId)?.permissions).toMatchObject({ view: true, edit: false });
    expect((await memberSpaces(people.rita.id)).find((item) => item.space.id === spaceId)?.permission).toBe('read');
    expect((await call(people.ada.token, 'GET', `/v1/orgs/${organizationId}/teams/${teamId}`)).body).toMatchObject({ spaces: 0 });
    expectError(await call(people.ada.token, 'DELETE', `/v1/spaces/${spaceId}/teams/${teamId}`), 404);
  });

  it('lists team access in the list envelope, page by page', async () => {
    const second = await call(people.ada.token, 'PUT', `/v1/orgs/${organizationId}/teams`, { title: 'Second' });
    const third = await call(people.ada.token, 'PUT', `/v1/orgs/${organizationId}/teams`, { title: 'Third' });
    const space = await call(people.ada.token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Paged' });
    const teams = [teamId, second.body.id as string, third.body.id as string];
    for (const team of teams)
      expect((await call(people.ada.token, 'PUT', `/v1/spaces/${space.body.id}/teams/${team}`, { role: 'read' })).status).toBe(200);
    const put = await call(people.ada.token, 'PUT', `/v1/spaces/${space.body.id}/teams/${teamId}`, { role: 'comment' });
    expect(put.body).toMatchObject({ count: 3 });
    const seen: string[] = [];
    let page: string | undefined;
    for (let i = 0; i < 5; i++) {
      const listed = await call(people.ada.token, 'GET', `/v1/spaces/${space.body.id}/teams?limit=2${page ? `&page=${page}` : ''}`);
      expect(listed.status).toBe(200);
      expect(listed.body.count).toBe(3);
      seen.push(...listed.body.items.map((item: { team: string }) => item.team));
      page = listed.body.next?.page;
      if (page === undefined) break;
    }
    expect(seen).toEqual([...teams].sort());
    expectError(await call(people.ada.token, 'GET', `/v1/spaces/${space.body.id}/teams?page=nonsense`), 400, /cursor/);
    expectError(await call(people.ada.token, 'GET', `/v1/spaces/${space.body.id}/teams?limit=-1`), 400, /limit/);
  });

  it("counts in each Member object the spaces the member has a role on: every live space with an organization role, a guest's through their teams", async () => {
    const gusUser = await service.createUser('gus@space-teams.example', 'Gus');
    await joinAs(service, organizationId, people.ada.token, [{ token: gusUser.token, email: 'gus@space-teams.example', role: null }]);
    const team = await call(people.ada.token, 'PUT', `/v1/orgs/${organizationId}/teams`, { title: 'Guests', members: [gusUser.user.id] });
    const granted = await call(people.ada.token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Shared with guests' });
    await call(people.ada.token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Not shared' });
    const spacesOf = async (userId: string) =>
      (await call(people.ada.token, 'GET', `/v1/orgs/${organizationId}/members/${userId}`)).body.spaces as number;
    const live = (await call(people.ada.token, 'GET', `/v1/orgs/${organizationId}/spaces`)).body.count as number;
    expect({ rita: await spacesOf(people.rita.id), gus: await spacesOf(gusUser.user.id) }).toEqual({ rita: live, gus: 0 });
    expect((await call(people.ada.token, 'PUT', `/v1/spaces/${granted.body.id}/teams/${team.body.id}`, { role: 'read' })).status).toBe(200);
    expect({ rita: await spacesOf(people.rita.id), gus: await spacesOf(gusUser.user.id) }).toEqual({ rita: live, gus: 1 });
    const listed = (await call(people.ada.token, 'GET', `/v1/orgs/${organizationId}/members?limit=1000`)).body.items as Array<{
      id: string;
      spaces: number;
    }>;
    expect(listed.find((member) => member.id === gusUser.user.id)?.spaces).toBe(1);
    expect((await call(people.ada.token, 'DELETE', `/v1/spaces/${granted.body.id}`)).status).toBe(204);
    expect({ rita: await spacesOf(people.rita.id), gus: await spacesOf(gusUser.user.id) }).toEqual({ rita: live - 1, gus: 0 });
  });

  it('records the changes in the audit log', async () => {
    const log = await call(people.ada.token, 'GET', `/v1/orgs/${organizationId}/audit-events?target=${spaceId}&limit=100`);
    expect(log.status).toBe(200);
    const actions = (log.body.items as Array<{ action: string }>).map((item) => item.action).sort();
    expect(actions).toEqual(['space.created', 'space.team_access_removed', 'space.team_access_set', 'space.updated']);
  });

  it("a collection's space list shows the role a team of the caller is granted on a space in it", async () => {
    const collection = (await call(people.ada.token, 'POST', `/v1/orgs/${organizationId}/collections`, { title: 'Guides' })).body;
    const inside = (await call(people.ada.token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Guide', parent: collection.id }))
      .body;
    expect((await call(people.ada.token, 'PUT', `/v1/spaces/${inside.id}/teams/${teamId}`, { role: 'edit' })).status).toBe(200);
    const listed = (await call(people.rita.token, 'GET', `/v1/collections/${collection.id}/spaces`)).body.items as Array<{
      id: string;
      permissions: { edit: boolean };
    }>;
    expect(listed.find((item) => item.id === inside.id)?.permissions).toMatchObject({ view: true, edit: true, admin: false });
  });

  describe('If-Match with the space’s ETag: team access lives in the space’s stream', () => {
    const withIfMatch = (token: string, method: string, path: string, ifMatch: string, body?: unknown) =>
      service.request(method, path, { token, body, headers: { 'If-Match': ifMatch } });
    const newSpace = async (title: string) =>
      (await call(people.ada.token, 'POST', `/v1/orgs/${organizationId}/spaces`, { title })).body.id as string;
    const etagOf = async (space: string) => (await call(people.ada.token, 'GET', `/v1/spaces/${space}`)).headers.etag;
    const access = async (space: string) => (await call(people.ada.token, 'GET', `/v1/spaces/${space}/teams`)).body;

    it('PUT with a stale ETag is 412 and grants nothing; with the current one it grants, and the space’s ETag moves on', async () => {
      const space = await newSpace('Conditional grants');
      const current = await etagOf(space);
      const stale = `"${Number(JSON.parse(current)) + 1}"`;
      expectError(
        await withIfMatch(people.ada.token, 'PUT', `/v1/spaces/${space}/teams/${teamId}`, stale, { role: 'edit' }),
        412,
        /If-Match/,
      );
      expect(await access(space)).toEqual({ count: 0, items: [] });
      expect(await etagOf(space)).toBe(current);
      const granted = await withIfMatch(people.ada.token, 'PUT', `/v1/spaces/${space}/teams/${teamId}`, current, { role: 'edit' });
      expect({ status: granted.status, body: granted.body }).toEqual({
        status: 200,
        body: { count: 1, items: [{ team: teamId, role: 'edit' }] },
      });
      expect(await etagOf(space)).not.toBe(current);
    });

    it('DELETE with a stale ETag is 412 and the grant stays; with the current one 204', async () => {
      const space = await newSpace('Conditional removal');
      const beforeGrant = await etagOf(space);
      expect((await call(people.ada.token, 'PUT', `/v1/spaces/${space}/teams/${teamId}`, { role: 'read' })).status).toBe(200);
      expectError(await withIfMatch(people.ada.token, 'DELETE', `/v1/spaces/${space}/teams/${teamId}`, beforeGrant), 412);
      expect(await access(space)).toEqual({ count: 1, items: [{ team: teamId, role: 'read' }] });
      expect((await withIfMatch(people.ada.token, 'DELETE', `/v1/spaces/${space}/teams/${teamId}`, await etagOf(space))).status).toBe(204);
      expect(await access(space)).toEqual({ count: 0, items: [] });
    });

    it('answers a member below admin of the space 403 whatever revision If-Match names: a 412 would answer someone who may not grant', async () => {
      const space = await newSpace('Not theirs to grant');
      const current = await etagOf(space);
      for (const ifMatch of [current, '"7"']) {
        expectError(await withIfMatch(people.eve.token, 'PUT', `/v1/spaces/${space}/teams/${teamId}`, ifMatch, { role: 'admin' }), 403);
        expectError(await withIfMatch(people.rita.token, 'DELETE', `/v1/spaces/${space}/teams/${teamId}`, ifMatch), 403);
      }
      expect(await etagOf(space)).toBe(current);
    });
  });
});
