import { decodeJwt } from 'jose';
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
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

  beforeAll(async () => {
    service = await startService();
    ada = await service.createUser('ada@acme.io', 'Ada Admin');
    organizationId = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Acme' } })).body.id;
    const people = {
      bob: { email: 'bob@acme.io', role: 'read' },
      eve: { email: 'eve@acme.io', role: 'edit' },
      gus: { email: 'gus@acme.io', role: null },
    };
    for (const [name, { email }] of Object.entries(people)) {
      const created = await service.createUser(email, name[0].toUpperCase() + name.slice(1));
      users[name] = { id: created.user.id, token: created.token };
    }
    await joinAs(
      service,
      organizationId,
      ada.token,
      Object.entries(people).map(([name, { email, role }]) => ({ token: users[name].token, email, role })),
    );
  });
  afterAll(cleanUpServices);

  describe('invites', () => {
    it('members join with the role of the invitation they accepted', async () => {
      const members = (await as(ada.token).get('/members?sort=name&order=asc')).body;
      expect(members.items.map((m: { user: { email: string }; role: string | null }) => [m.user.email, m.role])).toEqual([
        ['ada@acme.io', 'admin'],
        ['bob@acme.io', 'read'],
        ['eve@acme.io', 'edit'],
        ['gus@acme.io', null],
      ]);
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
      const desc = (await as(ada.token).get('/members?sort=name')).body.items.map(
        (m: { user: { displayName: string } }) => m.user.displayName,
      );
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
        sso: false,
        spaces: 0,
        teams: 0,
        sites: 0,
      });
      expect(platformSchemaProblem('OrganizationMember', member)).toBeNull();
      // Never seen, no photo: the members are left out rather than sent as null.
      expect(member).not.toHaveProperty('lastSeenAt');
      expect(member.user).not.toHaveProperty('photoURL');
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
      const history = await service.request('GET', `/v1/admin/streams/memberseen-${organizationId}.${users.eve.id}`, {
        token: service.adminToken,
      });
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
        urls: {
          location: `${service.url}/v1/orgs/${organizationId}/link-invites/${created.body.id}`,
          join: `${service.url}/v1/orgs/${organizationId}/invites/${created.body.id}`,
        },
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

  describe('invitations by e-mail: pending until the person accepts', () => {
    let inviting: string;
    const org = (token: string) => ({
      invite: (body: unknown) => service.request('POST', `/v1/orgs/${inviting}/invites`, { token, body }),
      members: () => service.request('GET', `/v1/orgs/${inviting}/members?limit=1000`, { token }),
      pending: (query = '') => service.request('GET', `/v1/orgs/${inviting}/pending-invites${query}`, { token }),
      revoke: (id: string) => service.request('DELETE', `/v1/orgs/${inviting}/pending-invites/${id}`, { token }),
    });
    const mine = (token: string, query = '') => service.request('GET', `/v1/user/invites${query}`, { token });
    const accept = (token: string, id: string) => service.request('POST', `/v1/user/invites/${id}`, { token });
    const decline = (token: string, id: string) => service.request('DELETE', `/v1/user/invites/${id}`, { token });
    const memberIds = async () => (await org(ada.token).members()).body.items.map((m: { id: string }) => m.id).sort();
    const invitationTo = async (token: string) =>
      (await mine(token)).body.items.find((i: { organization: { id: string } }) => i.organization.id === inviting);

    beforeAll(async () => {
      inviting = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Invites Inc' } })).body.id;
    });

    it('answers { invites, invited } alike for an address with an account, one without, a member and one already invited', async () => {
      await service.createUser('has-account@invites.example', 'Has Account');
      const answers = [];
      for (const email of ['has-account@invites.example', 'no-account@invites.example', 'ada@acme.io', 'has-account@invites.example']) {
        const response = await org(ada.token).invite({ emails: [email], role: 'edit' });
        expect(response.status).toBe(200);
        answers.push(response.body);
      }
      for (const answer of answers) expect(answer).toEqual({ invites: [expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/)], invited: 1 });
      // Inviting a pending address again refreshes its invitation under the same id.
      expect(answers[3].invites).toEqual(answers[0].invites);
      expect(await memberIds()).toEqual([ada.user.id]);
    });

    it('creates no account: the address can still register, and the new account sees the invitation', async () => {
      const registered = await service.createUser('no-account@invites.example', 'Late Comer');
      const invitation = await invitationTo(registered.token);
      expect(invitation).toEqual({
        object: 'organization-invite',
        id: expect.any(String),
        organization: { id: inviting, title: 'Invites Inc' },
        role: 'edit',
        sso: false,
        invitedAt: expect.any(String),
      });
      expect(await memberIds()).not.toContain(registered.user.id);
    });

    it('lists the caller’s invitations, matched by e-mail whatever its case, paged like other lists', async () => {
      const zoe = await service.createUser('zoe@invites.example', 'Zoe');
      expect((await mine(zoe.token)).body).toEqual({ count: 0, items: [] });
      await org(ada.token).invite({ emails: ['Zoe@INVITES.example'], role: 'comment', sso: true });
      await service.request('POST', `/v1/orgs/${organizationId}/invites`, { token: ada.token, body: { emails: ['zoe@invites.example'] } });
      const first = (await mine(zoe.token, '?limit=1')).body;
      expect(first).toMatchObject({
        count: 2,
        items: [expect.objectContaining({ object: 'organization-invite' })],
        next: { page: expect.any(String) },
      });
      const second = (await mine(zoe.token, `?limit=1&page=${encodeURIComponent(first.next.page)}`)).body;
      expect(second.next).toBeUndefined();
      expect([first.items[0].organization.id, second.items[0].organization.id].sort()).toEqual([inviting, organizationId].sort());
      const toInviting = [first.items[0], second.items[0]].find((i) => i.organization.id === inviting);
      expect(toInviting).toMatchObject({ role: 'comment', sso: true });
      expectError(await mine(zoe.token, '?limit=-1'), 400, /limit/);
    });

    it('accepting joins the caller with the invited role and answers their Member object; the invitation is then gone', async () => {
      const carl = await service.createUser('carl@invites.example', 'Carl');
      await org(ada.token).invite({ emails: [{ email: 'carl@invites.example', role: 'review' }] });
      const invitation = await invitationTo(carl.token);
      const accepted = await accept(carl.token, invitation.id);
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({
        object: 'member',
        id: carl.user.id,
        role: 'review',
        sso: false,
        user: expect.objectContaining({ id: carl.user.id }),
      });
      expect(await memberIds()).toContain(carl.user.id);
      expect(await invitationTo(carl.token)).toBeUndefined();
      expectError(await accept(carl.token, invitation.id), 404);
    });

    it('accepting or declining someone else’s invitation, or an unknown one, is 404 and changes nothing', async () => {
      const dora = await service.createUser('dora@invites.example', 'Dora');
      const mallory = await service.createUser('mallory@invites.example', 'Mallory');
      await org(ada.token).invite({ emails: ['dora@invites.example'] });
      const invitation = await invitationTo(dora.token);
      expectError(await accept(mallory.token, invitation.id), 404);
      expectError(await decline(mallory.token, invitation.id), 404);
      expectError(await accept(mallory.token, 'noSuchInvitation0000'), 404);
      expectError(await decline(mallory.token, 'noSuchInvitation0000'), 404);
      expect(await memberIds()).not.toContain(mallory.user.id);
      expect((await invitationTo(dora.token)).id).toBe(invitation.id);
    });

    it('declining answers 204; nobody joins and the invitation is gone', async () => {
      const fred = await service.createUser('fred@invites.example', 'Fred');
      await org(ada.token).invite({ emails: ['fred@invites.example'] });
      const invitation = await invitationTo(fred.token);
      const declined = await decline(fred.token, invitation.id);
      expect(declined.status).toBe(204);
      expect(await invitationTo(fred.token)).toBeUndefined();
      expect(await memberIds()).not.toContain(fred.user.id);
      expectError(await accept(fred.token, invitation.id), 404);
    });

    it('admins list pending invitations and revoke them (204); others may not', async () => {
      const hank = await service.createUser('hank@invites.example', 'Hank');
      const sent = (await org(ada.token).invite({ emails: ['hank@invites.example'], role: 'read', sso: true })).body.invites[0];
      const listed = await org(ada.token).pending('?limit=1000');
      expect(listed.status).toBe(200);
      expect(listed.body.items).toContainEqual({
        object: 'pending-invite',
        id: sent,
        email: 'hank@invites.example',
        role: 'read',
        sso: true,
        invitedBy: ada.user.id,
        invitedAt: expect.any(String),
      });
      expectError(await org(hank.token).pending(), 404);
      expectError(await org(hank.token).revoke(sent), 404);
      const revoked = await org(ada.token).revoke(sent);
      expect(revoked.status).toBe(204);
      expect((await org(ada.token).pending('?limit=1000')).body.items.map((i: { id: string }) => i.id)).not.toContain(sent);
      expectError(await accept(hank.token, sent), 404);
      expectError(await org(ada.token).revoke(sent), 404);
      expect(await memberIds()).not.toContain(hank.user.id);
    });

    it('a member below admin may neither list nor revoke pending invitations (403)', async () => {
      const ivy = await service.createUser('ivy@invites.example', 'Ivy');
      await joinAs(service, inviting, ada.token, [{ token: ivy.token, email: 'ivy@invites.example', role: 'edit' }]);
      const sent = (await org(ada.token).invite({ emails: ['someone@invites.example'] })).body.invites[0];
      expectError(await org(ivy.token).pending(), 403);
      expectError(await org(ivy.token).revoke(sent), 403);
    });

    it('leaves an audit event for each step of an invitation, naming the invitation, not the address', async () => {
      const events = (await service.request('GET', `/v1/orgs/${inviting}/audit-events?limit=1000`, { token: ada.token })).body
        .items as Array<{ action: string; target: object }>;
      const actions = new Set(events.map((e) => e.action));
      for (const action of ['member.invited', 'member.invitation_accepted', 'member.invitation_declined', 'member.invitation_revoked'])
        expect(actions).toContain(action);
      for (const event of events.filter((e) => e.action.startsWith('member.invit'))) {
        expect(event.target).toMatchObject({ type: 'invitation', id: expect.any(String) });
        expect(JSON.stringify(event.target)).not.toContain('@');
      }
    });
  });

  describe('If-Match with the organization’s ETag: members and invites live in its stream', () => {
    let preconditions: string;
    let wes: { token: string; user: { id: string } };
    let rue: { token: string; user: { id: string } };
    const url = (path: string) => `/v1/orgs/${preconditions}${path}`;
    const read = (token: string, path: string) => service.request('GET', url(path), { token });
    const write = (token: string, method: string, path: string, ifMatch: string, body?: unknown) =>
      service.request(method, url(path), { token, body, headers: { 'If-Match': ifMatch } });
    const organizationEtag = async () => (await read(ada.token, '')).headers.etag;

    beforeAll(async () => {
      preconditions = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Preconditions' } })).body.id;
      wes = await service.createUser('wes@preconditions.example', 'Wes');
      rue = await service.createUser('rue@preconditions.example', 'Rue');
      await joinAs(service, preconditions, ada.token, [
        { token: wes.token, email: 'wes@preconditions.example', role: 'edit' },
        { token: rue.token, email: 'rue@preconditions.example', role: 'read' },
      ]);
    });

    it('a member answers the organization’s ETag, the one GET /v1/orgs/{organizationId} answers', async () => {
      const member = await read(wes.token, `/members/${rue.user.id}`);
      expect(member.status).toBe(200);
      expect(member.headers.etag).toMatch(/^"\d+"$/);
      expect(member.headers.etag).toBe(await organizationEtag());
    });

    it('PATCH /members/{userId} with a stale ETag is 412, and the role and the ETag stay; with the current one the role changes', async () => {
      const stale = (await read(ada.token, `/members/${rue.user.id}`)).headers.etag;
      expect((await write(ada.token, 'PATCH', `/members/${rue.user.id}`, stale, { role: 'comment' })).status).toBe(200);
      const current = await organizationEtag();
      expectError(await write(ada.token, 'PATCH', `/members/${rue.user.id}`, stale, { role: 'admin' }), 412, /If-Match/);
      const after = await read(ada.token, `/members/${rue.user.id}`);
      expect([after.body.role, after.headers.etag]).toEqual(['comment', current]);
      const changed = await write(ada.token, 'PATCH', `/members/${rue.user.id}`, current, { role: 'read' });
      expect([changed.status, changed.body.role]).toEqual([200, 'read']);
      expect(changed.headers.etag).toBe(await organizationEtag());
      expect(changed.headers.etag).not.toBe(current);
    });

    it('a member below admin gets 403, and someone outside 404, whatever revision If-Match names: a 412 would tell them the revision', async () => {
      const outsider = await service.createUser(undefined, 'Outsider');
      const current = await organizationEtag();
      for (const ifMatch of [current, '"0"']) {
        expectError(await write(wes.token, 'PATCH', `/members/${rue.user.id}`, ifMatch, { role: 'admin' }), 403);
        expectError(await write(wes.token, 'DELETE', `/members/${rue.user.id}`, ifMatch), 403);
        expectError(await write(outsider.token, 'PATCH', `/members/${rue.user.id}`, ifMatch, { role: 'admin' }), 404);
        expectError(await write(outsider.token, 'POST', `/members/${rue.user.id}/sso`, ifMatch), 404);
      }
      expect(await organizationEtag()).toBe(current);
    });

    it('DELETE /link-invites/{inviteId} with a stale ETag is 412 and the invite stays; with the current one 205', async () => {
      const created = await service.request('POST', url('/link-invites'), { token: ada.token, body: { role: 'read' } });
      expect(created.status).toBe(201);
      const invite = await read(ada.token, `/link-invites/${created.body.id}`);
      expect(invite.headers.etag).toBe(created.headers.etag);
      expect(invite.headers.etag).toBe(await organizationEtag());
      const stale = `"${Number(JSON.parse(invite.headers.etag)) - 1}"`;
      expectError(await write(ada.token, 'DELETE', `/link-invites/${created.body.id}`, stale), 412);
      expect((await read(ada.token, `/link-invites/${created.body.id}`)).body).toEqual(invite.body);
      expect((await write(ada.token, 'DELETE', `/link-invites/${created.body.id}`, invite.headers.etag)).status).toBe(205);
      expectError(await read(ada.token, `/link-invites/${created.body.id}`), 404);
    });

    it('DELETE /pending-invites/{inviteId} with a stale ETag is 412 and the invitation stays pending; with the current one 204', async () => {
      const stale = await organizationEtag();
      const sent = (
        await service.request('POST', url('/invites'), { token: ada.token, body: { emails: ['pending@preconditions.example'] } })
      ).body.invites[0] as string;
      const pending = async () =>
        (await read(ada.token, '/pending-invites?limit=1000')).body.items.map((i: { id: string }) => i.id) as string[];
      expectError(await write(ada.token, 'DELETE', `/pending-invites/${sent}`, stale), 412);
      expect(await pending()).toContain(sent);
      expect((await write(ada.token, 'DELETE', `/pending-invites/${sent}`, await organizationEtag())).status).toBe(204);
      expect(await pending()).not.toContain(sent);
    });
  });

  describe('ids named like Object.prototype members', () => {
    const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const stream = async () =>
      (await service.request('GET', `/v1/admin/streams/organization-${organizationId}?limit=1000`, { token: service.adminToken })).body
        .count as number;
    const memberCount = async () => (await as(ada.token).get('/members')).body.count as number;

    it.each(NAMES)('an outsider joining through the link invite %s gets 404 and does not join', async (name) => {
      const outsider = await service.createUser(undefined, 'Outsider');
      const [events, members] = [await stream(), await memberCount()];
      expectError(await as(outsider.token).post(`/invites/${name}`), 404);
      expectError(await as(outsider.token).get(`/members/${outsider.user.id}`), 404);
      expectError(await service.request('GET', `/v1/orgs/${organizationId}`, { token: outsider.token }), 404);
      expect([await stream(), await memberCount()]).toEqual([events, members]);
    });

    it.each(NAMES)('an admin acting on the member, link invite or pending invitation %s gets 404 and nothing is written', async (name) => {
      const events = await stream();
      expectError(await as(ada.token).patch(`/members/${name}`, { role: 'admin' }), 404);
      expectError(await as(ada.token).delete(`/members/${name}`), 404);
      expectError(await as(ada.token).post(`/members/${name}/sso`), 404);
      expectError(await as(ada.token).delete(`/link-invites/${name}`), 404);
      expectError(await as(ada.token).delete(`/pending-invites/${name}`), 404);
      expect(await stream()).toBe(events);
    });

    it.each(NAMES)('answering the invitation %s is 404', async (name) => {
      expectError(await service.request('POST', `/v1/user/invites/${name}`, { token: users.bob.token }), 404);
      expectError(await service.request('DELETE', `/v1/user/invites/${name}`, { token: users.bob.token }), 404);
    });

    it('the organization keeps its admin: a phantom admin cannot let the last one step down', async () => {
      expectError(await as(ada.token).patch('/members/__proto__', { role: 'admin' }), 404);
      expectError(await as(ada.token).patch(`/members/${ada.user.id}`, { role: 'edit' }), 409, /last admin/);
      expectError(await as(ada.token).delete(`/members/${ada.user.id}`), 409, /last admin/);
      expect((await as(ada.token).get('/members?role=admin')).body.items.map((m: { id: string }) => m.id)).toEqual([ada.user.id]);
    });
  });

  it('counts and lists the spaces each member has a role on, with that role', async () => {
    const open = (await service.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: ada.token, body: { title: 'Handbook' } }))
      .body;
    await service.request('PATCH', `/v1/spaces/${open.id}`, { token: ada.token, body: { defaultLevel: 'comment' } });
    const closed = (
      await service.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: ada.token, body: { title: 'Admins only' } })
    ).body;
    const adaSpaces = (await as(ada.token).get(`/members/${ada.user.id}/spaces`)).body;
    expect(adaSpaces.count).toBe(2);
    expect(adaSpaces.items.map((i: { permission: string; space: { id: string } }) => [i.space.id, i.permission])).toEqual([
      [closed.id, 'admin'],
      [open.id, 'admin'],
    ]);
    expect(adaSpaces.items[0].space).toMatchObject({
      object: 'space',
      id: closed.id,
      title: 'Admins only',
      permissions: expect.any(Object),
    });
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
    const secondPage = (await as(ada.token).get(`/members/${ada.user.id}/spaces?limit=1&page=${encodeURIComponent(firstPage.next.page)}`))
      .body;
    expect(secondPage.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([open.id]);
    expect(secondPage.next).toBeUndefined();
    expectError(await as(ada.token).get(`/members/${ada.user.id}/spaces?page=garbage`), 400);
    await service.request('DELETE', `/v1/spaces/${closed.id}`, { token: ada.token });
    expect((await as(ada.token).get(`/members/${ada.user.id}`)).body.spaces).toBe(1);
  });

  it("counts the organization's live sites on every member: every member sees them all", async () => {
    const sitesOfMembers = async () =>
      (await as(ada.token).get('/members')).body.items.map((member: { sites: number }) => member.sites) as number[];
    const site = await service.request('POST', `/v1/orgs/${organizationId}/sites`, { token: ada.token, body: { title: 'Public docs' } });
    expect(site.status).toBe(201);
    const whileLive = await sitesOfMembers();
    expect(whileLive.length).toBeGreaterThan(1);
    expect(whileLive).toEqual(whileLive.map(() => 1));
    expect((await service.request('DELETE', `/v1/orgs/${organizationId}/sites/${site.body.id}`, { token: ada.token })).status).toBe(205);
    expect(await sitesOfMembers()).toEqual(whileLive.map(() => 0));
  });

  it('leaves an audit event for each change', async () => {
    const actions = new Set((await as(ada.token).get('/audit-events?limit=1000')).body.items.map((e: { action: string }) => e.action));
    for (const action of [
      'member.added',
      'member.invited',
      'member.invitation_accepted',
      'member.role_changed',
      'member.removed',
      'member.sso_enabled',
      'invite_link.created',
      'invite_link.deleted',
    ]) {
      expect(actions).toContain(action);
    }
  });
});
