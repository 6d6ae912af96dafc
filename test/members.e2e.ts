import { decodeJwt } from 'jose';
import { cleanUpServices, expectError, startService, type RunningService } from './support/service';

/** Members, invites, link invites, ping, and the permission rules around them, through HTTP. */
describe('members and invites', () => {
  let service: RunningService;
  let ada: { token: string; user: { id: string } };
  let organizationId: string;
  const users: Record<string, { id: string; token: string }> = {};

  const as = (token: string) => ({
    get: (path: string) => service.request('GET', `/v1/orgs/${organizationId}${path}`, { token }),
    post: (path: string, body?: unknown) => service.request('POST', `/v1/orgs/${organizationId}${path}`, { token, body }),
    patch: (path: string, body: unknown) => service.request('PATCH', `/v1/orgs/${organizationId}${path}`, { token, body }),
    delete: (path: string) => service.request('DELETE', `/v1/orgs/${organizationId}${path}`, { token }),
  });
  const tokenFor = async (userId: string) => (await service.request('POST', `/v1/admin/users/${userId}/tokens`, { token: service.adminToken })).body.token as string;

  beforeAll(async () => {
    service = await startService();
    ada = await service.createUser('ada@acme.io', 'Ada Admin');
    organizationId = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Acme' } })).body.id;
    const invited = await as(ada.token).post('/invites', {
      emails: ['bob@acme.io', { email: 'eve@acme.io', role: 'edit' }, { email: 'gus@acme.io', role: null }],
      role: 'read',
    });
    expect(invited.status).toBe(200);
    expect(invited.body).toEqual({ users: [expect.any(String), expect.any(String), expect.any(String)], invited: 3 });
    const [bob, eve, gus] = invited.body.users as string[];
    for (const [name, id] of Object.entries({ bob, eve, gus })) users[name] = { id, token: await tokenFor(id) };
  });
  afterAll(cleanUpServices);

  describe('invites', () => {
    it('creates unknown users by e-mail and gives each the role asked for', async () => {
      const members = (await as(ada.token).get('/members?sort=name&order=asc')).body;
      expect(members.items.map((m: { user: { email: string }; role: string | null }) => [m.user.email, m.role])).toEqual([
        ['ada@acme.io', 'admin'],
        ['bob@acme.io', 'read'],
        ['eve@acme.io', 'edit'],
        ['gus@acme.io', null],
      ]);
    });

    it('inviting people already in the organization invites nobody', async () => {
      expect((await as(ada.token).post('/invites', { emails: ['bob@acme.io'] })).body).toEqual({ users: [users.bob.id], invited: 0 });
    });

    it('refuses bad bodies and non-admins', async () => {
      expectError(await as(ada.token).post('/invites', { emails: [] }), 400, /emails/);
      expectError(await as(ada.token).post('/invites', { emails: ['not-an-email'] }), 400, /email/);
      expectError(await as(ada.token).post('/invites', { emails: ['x@acme.io'], role: 'owner' }), 400, /role/);
      expectError(await as(users.eve.token).post('/invites', { emails: ['x@acme.io'] }), 403);
    });
  });

  describe('member list and reads', () => {
    it('filters by role, searches name and e-mail case-insensitively, and orders', async () => {
      expect((await as(ada.token).get('/members?role=edit')).body.items.map((m: { id: string }) => m.id)).toEqual([users.eve.id]);
      expect((await as(ada.token).get('/members?role=guest')).body.items.map((m: { id: string }) => m.id)).toEqual([users.gus.id]);
      expect((await as(ada.token).get('/members?search=ADMIN')).body.items.map((m: { id: string }) => m.id)).toEqual([ada.user.id]);
      expect((await as(ada.token).get('/members?search=EVE@ACME')).body.count).toBe(1);
      const desc = (await as(ada.token).get('/members?sort=name')).body.items.map((m: { user: { displayName: string } }) => m.user.displayName);
      expect(desc).toEqual([...desc].sort().reverse());
      expectError(await as(ada.token).get('/members?sort=height'), 400, /sort/);
      expectError(await as(ada.token).get('/members?order=up'), 400, /order/);
    });

    it('pages over more than one page', async () => {
      const seen: string[] = [];
      let path = '/members?limit=1';
      for (;;) {
        const page = (await as(ada.token).get(path)).body;
        expect(page.count).toBe(4);
        seen.push(...page.items.map((m: { id: string }) => m.id));
        if (!page.next) break;
        path = `/members?limit=1&page=${encodeURIComponent(page.next.page)}`;
      }
      expect(new Set(seen).size).toBe(4);
    });

    it('returns a member with every field', async () => {
      const member = (await as(users.bob.token).get(`/members/${users.eve.id}`)).body;
      expect(member).toEqual({
        object: 'member',
        id: users.eve.id,
        role: 'edit',
        user: expect.objectContaining({ object: 'user', id: users.eve.id, email: 'eve@acme.io' }),
        disabled: false,
        joinedAt: expect.any(String),
        lastSeenAt: null,
        sso: false,
        spaces: 0,
        teams: 0,
      });
      expect((await as(users.bob.token).get(`/members/${users.eve.id}/spaces`)).body).toEqual({ count: 0, items: [] });
    });

    it('guests see themselves but may not list members; outsiders get 404', async () => {
      expectError(await as(users.gus.token).get('/members'), 403);
      expect((await as(users.gus.token).get(`/members/${users.gus.id}`)).status).toBe(200);
      expectError(await as(users.gus.token).get(`/members/${users.bob.id}`), 403);
      const outsider = await service.createUser('out@else.io', 'Outsider');
      expectError(await as(outsider.token).get('/members'), 404);
      expectError(await as(ada.token).get('/members/unknown'), 404);
    });
  });

  describe('ping', () => {
    it('records the caller as seen, lists seen members by lastSeenAt, and returns signed visitor claims', async () => {
      const before = (await as(ada.token).get('/members?sort=lastSeenAt')).body.count;
      const pinged = await as(users.bob.token).post('/ping');
      expect(pinged.status).toBe(200);
      const claims = decodeJwt(pinged.body.serviceVisitorClaims);
      expect(claims).toMatchObject({ sub: users.bob.id, org: organizationId, email: 'bob@acme.io', iss: service.url });
      expect(claims.exp! - claims.iat!).toBe(3600);
      const seen = (await as(ada.token).get('/members?sort=lastSeenAt')).body;
      expect(seen.count).toBe(before + 1);
      expect(seen.items.find((m: { id: string }) => m.id === users.bob.id).lastSeenAt).toEqual(expect.any(String));
    });

    it('records at most one seen-event per member per minute', async () => {
      await as(users.eve.token).post('/ping');
      await as(users.eve.token).post('/ping');
      await as(users.eve.token).post('/ping');
      const history = await service.request('GET', `/v1/admin/streams/memberseen-${organizationId}.${users.eve.id}`, { token: service.adminToken });
      expect(history.body.count).toBe(1);
    });

    it('is 404 for people outside the organization', async () => {
      const outsider = await service.createUser('pinger@else.io', 'Pinger');
      expectError(await as(outsider.token).post('/ping'), 404);
    });
  });

  describe('roles, removal and SSO flag', () => {
    it('admins change roles; others may not; the last admin cannot be demoted', async () => {
      expect((await as(ada.token).patch(`/members/${users.bob.id}`, { role: 'comment' })).body.role).toBe('comment');
      expect((await as(ada.token).patch(`/members/${users.bob.id}`, { role: null })).body.role).toBeNull();
      expectError(await as(ada.token).patch(`/members/${users.bob.id}`, { role: 'owner' }), 400, /role/);
      expectError(await as(users.eve.token).patch(`/members/${users.bob.id}`, { role: 'admin' }), 403);
      expectError(await as(ada.token).patch(`/members/${ada.user.id}`, { role: 'edit' }), 409, /last admin/);
      await as(ada.token).patch(`/members/${users.bob.id}`, { role: 'read' });
    });

    it('POST /members/{userId}/sso marks a member as an SSO member (admins only)', async () => {
      expectError(await as(users.eve.token).post(`/members/${users.bob.id}/sso`), 403);
      const marked = await as(ada.token).post(`/members/${users.bob.id}/sso`);
      expect(marked.status).toBe(200);
      expect(marked.body.sso).toBe(true);
    });

    it('removes members with 204; members may leave; never the last admin', async () => {
      expectError(await as(ada.token).delete(`/members/${ada.user.id}`), 409, /last admin/);
      expectError(await as(users.eve.token).delete(`/members/${users.bob.id}`), 403);
      const left = await as(users.gus.token).delete(`/members/${users.gus.id}`);
      expect(left.status).toBe(204);
      expectError(await as(users.gus.token).get(`/members/${users.gus.id}`), 404);
      expect((await as(ada.token).get('/members')).body.count).toBe(3);
    });
  });

  describe('link invites', () => {
    it('creates (201), lists, reads, and deletes (205) link invites, admins only', async () => {
      const created = await as(ada.token).post('/link-invites', { role: 'comment' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        object: 'link-invite',
        id: expect.any(String),
        role: 'comment',
        createdAt: expect.any(String),
        urls: { location: `${service.url}/v1/orgs/${organizationId}/link-invites/${created.body.id}`, join: `${service.url}/v1/orgs/${organizationId}/invites/${created.body.id}` },
      });
      expect((await as(ada.token).get('/link-invites')).body.items.map((i: { id: string }) => i.id)).toContain(created.body.id);
      expect((await as(ada.token).get(`/link-invites/${created.body.id}`)).body).toEqual(created.body);
      expectError(await as(users.eve.token).post('/link-invites', {}), 403);
      expectError(await as(users.eve.token).get('/link-invites'), 403);
      const deleted = await as(ada.token).delete(`/link-invites/${created.body.id}`);
      expect(deleted.status).toBe(205);
      expectError(await as(ada.token).get(`/link-invites/${created.body.id}`), 404);
    });

    it('lets someone join through a link, and not once links are disabled or the invite is gone', async () => {
      const invite = (await as(ada.token).post('/link-invites', { role: 'comment' })).body;
      const newcomer = await service.createUser('new@else.io', 'Newcomer');
      const joined = await as(newcomer.token).post(`/invites/${invite.id}`);
      expect(joined.status).toBe(200);
      expect(joined.body).toMatchObject({ object: 'member', id: newcomer.user.id, role: 'comment' });
      await service.request('PATCH', `/v1/orgs/${organizationId}`, { token: ada.token, body: { inviteLinks: false } });
      const late = await service.createUser('late@else.io', 'Late');
      expectError(await as(late.token).post(`/invites/${invite.id}`), 403, /link/);
      await service.request('PATCH', `/v1/orgs/${organizationId}`, { token: ada.token, body: { inviteLinks: true } });
      await as(ada.token).delete(`/link-invites/${invite.id}`);
      expectError(await as(late.token).post(`/invites/${invite.id}`), 404);
    });
  });

  it("counts and lists the spaces each member has a role on, with that role", async () => {
    const open = (await service.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: ada.token, body: { title: 'Handbook' } })).body;
    await service.request('PATCH', `/v1/spaces/${open.id}`, { token: ada.token, body: { defaultLevel: 'comment' } });
    const closed = (await service.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: ada.token, body: { title: 'Admins only' } })).body;
    const adaSpaces = (await as(ada.token).get(`/members/${ada.user.id}/spaces`)).body;
    expect(adaSpaces.count).toBe(2);
    expect(adaSpaces.items.map((i: { permission: string; space: { id: string } }) => [i.space.id, i.permission])).toEqual([
      [closed.id, 'admin'],
      [open.id, 'admin'],
    ]);
    expect(adaSpaces.items[0].space).toMatchObject({ object: 'space', id: closed.id, title: 'Admins only', permissions: expect.any(Object) });
    // bob (read): his organization role on every space, raised to comment where that is the space's default level
    const bobSpaces = (await as(ada.token).get(`/members/${users.bob.id}/spaces?order=asc`)).body;
    expect(bobSpaces.items.map((i: { permission: string; space: { id: string } }) => [i.space.id, i.permission])).toEqual([
      [open.id, 'comment'],
      [closed.id, 'read'],
    ]);
    expect((await as(ada.token).get(`/members/${users.bob.id}`)).body.spaces).toBe(2);
    expect((await as(ada.token).get(`/members/${ada.user.id}`)).body.spaces).toBe(2);
    const firstPage = (await as(ada.token).get(`/members/${ada.user.id}/spaces?limit=1`)).body;
    expect(firstPage.items).toHaveLength(1);
    const secondPage = (await as(ada.token).get(`/members/${ada.user.id}/spaces?limit=1&page=${encodeURIComponent(firstPage.next.page)}`)).body;
    expect(secondPage.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([open.id]);
    expect(secondPage.next).toBeUndefined();
    expectError(await as(ada.token).get(`/members/${ada.user.id}/spaces?page=garbage`), 400);
    await service.request('DELETE', `/v1/spaces/${closed.id}`, { token: ada.token });
    expect((await as(ada.token).get(`/members/${ada.user.id}`)).body.spaces).toBe(1);
  });

  it('leaves an audit event for each change', async () => {
    const actions = new Set((await as(ada.token).get('/audit-events?limit=1000')).body.items.map((e: { action: string }) => e.action));
    for (const action of ['member.added', 'member.role_changed', 'member.removed', 'member.sso_enabled', 'invite_link.created', 'invite_link.deleted']) {
      expect(actions).toContain(action);
    }
  });
});
