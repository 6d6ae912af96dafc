/**
 * Teams through HTTP against the embedded service: `/v1/orgs/{organizationId}/teams…`, the team
 * members, `GET /members/{userId}/teams`, and how teams follow members leaving the organization.
 *
 * The people: ada creates the organization (admin); olga (role create), mia (edit), eve (read)
 * and gus (guest, role null) are invited (POST /invites) and accept; zed is outside.
 */
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

const ID = /^[A-Za-z0-9_-]{1,64}$/;

interface Team {
  object: 'team';
  id: string;
  title: string;
  members: number;
  spaces: number;
  createdAt: string;
  permissions: { admin: boolean; view: boolean };
}
interface List<T> {
  next?: { page: string };
  count: number;
  items: T[];
}
interface MembershipItem {
  organization: { object: 'member'; id: string; role: string | null; user: { object: 'user'; id: string; email: string }; teams: number };
  team: { role: 'owner' | 'member' };
  permissions: { view: boolean };
}
interface MemberTeamItem {
  team: Team;
  member: { role: 'owner' | 'member' };
}
interface Person {
  id: string;
  token: string;
  email: string;
}

let service: RunningService;
let organizationId: string;
const people: Record<'ada' | 'olga' | 'mia' | 'eve' | 'gus' | 'zed', Person> = {} as never;
/** zed's own organization. */
let otherOrganizationId: string;

const as = (person: Person, organization = () => organizationId) => {
  const url = (path: string) => `/v1/orgs/${organization()}${path}`;
  const { token } = person;
  return {
    get: (path: string) => service.request('GET', url(path), { token }),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => service.request('PUT', url(path), { token, body, headers }),
    patch: (path: string, body: unknown, headers?: Record<string, string>) => service.request('PATCH', url(path), { token, body, headers }),
    delete: (path: string, headers?: Record<string, string>) => service.request('DELETE', url(path), { token, headers }),
  };
};

let counter = 0;
const unique = (label: string) => `${label} ${(++counter).toString(36)}`;

function expectStatus(response: Response, status: number): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: status === 204 ? '' : expect.anything() });
}

async function createTeam(by: Person, title: string, members?: string[]): Promise<Team> {
  const response = await as(by).put('/teams', { title, ...(members ? { members } : {}) });
  if (response.status !== 201) throw new Error(`PUT /teams answered ${response.status}: ${response.text.slice(0, 1000)}`);
  return response.body;
}

const getTeam = async (teamId: string, by: Person = people.ada): Promise<Team> => {
  const response = await as(by).get(`/teams/${teamId}`);
  expectStatus(response, 200);
  return response.body;
};

/** The team's members as [userId, role], in the order they joined. */
async function membersOf(teamId: string, by: Person = people.ada): Promise<Array<[string, string]>> {
  const response = await as(by).get(`/teams/${teamId}/members?limit=1000`);
  expectStatus(response, 200);
  return (response.body as List<MembershipItem>).items.map((item) => [item.organization.id, item.team.role]);
}

/** Follows `next.page` until it is absent; fails on a non-200 or when it never ends. */
async function allPages<T>(by: Person, path: string, limit: number): Promise<Array<List<T>>> {
  const pages: Array<List<T>> = [];
  let page: string | undefined;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const response = await as(by).get(`${path}${separator}limit=${limit}${page !== undefined ? `&page=${encodeURIComponent(page)}` : ''}`);
    expectStatus(response, 200);
    pages.push(response.body);
    page = response.body.next?.page;
    if (pages.length > 50) throw new Error('more than 50 pages: next.page never ends');
  } while (page !== undefined);
  return pages;
}

function expectTeamShape(team: Team): void {
  expect(Object.keys(team).sort()).toEqual(['createdAt', 'id', 'members', 'object', 'permissions', 'spaces', 'title']);
  expect(team.object).toBe('team');
  expect(team.id).toMatch(ID);
  expect(typeof team.title).toBe('string');
  expect(Number.isInteger(team.members)).toBe(true);
  expect(team.spaces).toBe(0);
  expect(new Date(team.createdAt).toISOString()).toBe(team.createdAt);
  expect(Object.keys(team.permissions).sort()).toEqual(['admin', 'view']);
}

beforeAll(async () => {
  service = await startService();
  const ada = await service.createUser('ada@teams.example', 'Ada Admin');
  const zed = await service.createUser('zed@elsewhere.example', 'Zed Outside');
  people.ada = { id: ada.user.id, token: ada.token, email: 'ada@teams.example' };
  people.zed = { id: zed.user.id, token: zed.token, email: 'zed@elsewhere.example' };
  organizationId = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Teams Inc' } })).body.id;
  otherOrganizationId = (await service.request('POST', '/v1/orgs', { token: zed.token, body: { title: 'Elsewhere' } })).body.id;
  const invitations = [
    { name: 'olga', email: 'olga@teams.example', role: 'create' },
    { name: 'mia', email: 'mia@teams.example', role: 'edit' },
    { name: 'eve', email: 'eve@teams.example', role: 'read' },
    { name: 'gus', email: 'gus@teams.example', role: null },
  ] as const;
  for (const { name, email } of invitations) {
    const created = await service.createUser(email, name);
    people[name] = { id: created.user.id, token: created.token, email };
  }
  await joinAs(
    service,
    organizationId,
    ada.token,
    invitations.map(({ name, email, role }) => ({ token: people[name].token, email, role })),
  );
});

afterAll(cleanUpServices);

// ---- PUT /teams (create) ---------------------------------------------------------------------------

describe('PUT /teams (create)', () => {
  it('answers 201 with a Team, an ETag, the creator as its only (owner) member and admin permissions', async () => {
    const response = await as(people.ada).put('/teams', { title: 'Writers' });
    expect(response.status).toBe(201);
    expect(response.headers.etag).toMatch(/^"\d+"$/);
    const team: Team = response.body;
    expectTeamShape(team);
    expect(team).toMatchObject({ title: 'Writers', members: 1, spaces: 0, permissions: { admin: true, view: true } });
    expect(await membersOf(team.id)).toEqual([[people.ada.id, 'owner']]);
    expect(await getTeam(team.id)).toEqual(team);
  });

  it('adds `members` as members (the creator once, as owner) and counts them', async () => {
    const team = await createTeam(people.olga, unique('With members'), [people.mia.id, people.eve.id, people.olga.id, people.mia.id]);
    expect(team.members).toBe(3);
    expect(await membersOf(team.id)).toEqual([
      [people.olga.id, 'owner'],
      [people.mia.id, 'member'],
      [people.eve.id, 'member'],
    ]);
  });

  it.each([
    ['1 character', 'x'],
    ['64 characters', 't'.repeat(64)],
  ])('accepts a title of %s', async (_, title) => {
    const response = await as(people.ada).put('/teams', { title });
    expect(response.status).toBe(201);
    expect(response.body.title).toBe(title);
  });

  it.each([
    ['0 characters', ''],
    ['65 characters', 't'.repeat(65)],
    ['only white space', '   '],
    ['a number', 42],
    ['null', null],
  ])('answers a title of %s with 400 naming title, and creates nothing', async (_, title) => {
    const before = (await as(people.ada).get('/teams')).body.count;
    expectError(await as(people.ada).put('/teams', { title }), 400, /title/);
    expect((await as(people.ada).get('/teams')).body.count).toBe(before);
  });

  it('answers a missing title, an unknown body member or a bad members list with 400', async () => {
    expectError(await as(people.ada).put('/teams', {}), 400, /title/);
    expectError(await as(people.ada).put('/teams', { title: 'T', color: 'red' }), 400, /color/);
    expectError(await as(people.ada).put('/teams', { title: 'T', members: 'mia' }), 400, /members/);
    expectError(await as(people.ada).put('/teams', { title: 'T', members: ['not an id!'] }), 400, /members/);
  });

  it('answers unknown members and users outside the organization with 400 naming them, and creates nothing', async () => {
    const title = unique('Refused');
    const unknown = await as(people.ada).put('/teams', { title, members: [people.mia.id, 'nobody123'] });
    expectError(unknown, 400, /nobody123/);
    const outsider = await as(people.ada).put('/teams', { title, members: [people.zed.id] });
    expectError(outsider, 400, new RegExp(people.zed.id));
    expect((await as(people.ada).get(`/teams?title=${encodeURIComponent(title)}`)).body.count).toBe(0);
  });

  it('lets members with role create or admin create teams: 403 for edit, read and guests; 404 outside', async () => {
    expect((await as(people.olga).put('/teams', { title: unique('By olga') })).status).toBe(201);
    expectError(await as(people.mia).put('/teams', { title: 'No' }), 403);
    expectError(await as(people.eve).put('/teams', { title: 'No' }), 403);
    expectError(await as(people.gus).put('/teams', { title: 'No' }), 403);
    expectError(await as(people.zed).put('/teams', { title: 'No' }), 404);
    // A refused caller learns nothing about the users they name.
    expectError(await as(people.mia).put('/teams', { title: 'No', members: ['nobody123'] }), 403);
  });

  it('answers without a token with 401, and an unknown organization with 404', async () => {
    expectError(await service.request('PUT', `/v1/orgs/${organizationId}/teams`, { body: { title: 'T' } }), 401);
    expectError(await service.request('PUT', '/v1/orgs/unknownOrg/teams', { token: people.ada.token, body: { title: 'T' } }), 404);
  });
});

// ---- GET /teams/{teamId} -----------------------------------------------------------------------------

describe('GET /teams/{teamId}', () => {
  let team: Team;
  beforeAll(async () => {
    team = await createTeam(people.olga, unique('Visible'), [people.mia.id]);
  });

  it('answers each member of the organization with their permissions', async () => {
    expect((await getTeam(team.id, people.ada)).permissions).toEqual({ admin: true, view: true }); // organization admin
    expect((await getTeam(team.id, people.olga)).permissions).toEqual({ admin: true, view: true }); // team owner
    expect((await getTeam(team.id, people.mia)).permissions).toEqual({ admin: false, view: true }); // team member
    expect((await getTeam(team.id, people.eve)).permissions).toEqual({ admin: false, view: true }); // other member
  });

  it('answers a guest outside the team with 403, and a guest in it with 200', async () => {
    expectError(await as(people.gus).get(`/teams/${team.id}`), 403);
    const withGuest = await createTeam(people.ada, unique('With guest'), [people.gus.id]);
    expect((await getTeam(withGuest.id, people.gus)).permissions).toEqual({ admin: false, view: true });
  });

  it('answers people outside the organization, unknown teams and teams of another organization with 404', async () => {
    expectError(await as(people.zed).get(`/teams/${team.id}`), 404);
    expectError(await as(people.ada).get('/teams/unknownTeam'), 404);
    expectError(await as(people.ada).get('/teams/not%20an%20id'), 404);
    const elsewhere = await as(people.zed, () => otherOrganizationId).put('/teams', { title: 'Zed team' });
    expect(elsewhere.status).toBe(201);
    // Through zed's organization it exists; through ada's it does not, for ada or for zed.
    expect((await as(people.zed, () => otherOrganizationId).get(`/teams/${elsewhere.body.id}`)).status).toBe(200);
    expectError(await as(people.zed).get(`/teams/${elsewhere.body.id}`), 404);
    expectError(await as(people.ada).get(`/teams/${elsewhere.body.id}`), 404);
    expectError(await as(people.ada).patch(`/teams/${elsewhere.body.id}`, { title: 'Taken over' }), 404);
  });
});

// ---- PATCH /teams/{teamId} ---------------------------------------------------------------------------

describe('PATCH /teams/{teamId}', () => {
  let team: Team;
  beforeAll(async () => {
    team = await createTeam(people.olga, unique('Patched'), [people.mia.id]);
  });

  it('renames the team: 200 with the Team and a new ETag', async () => {
    const before = await as(people.ada).get(`/teams/${team.id}`);
    const response = await as(people.olga).patch(`/teams/${team.id}`, { title: 'Renamed by owner' });
    expectStatus(response, 200);
    expectTeamShape(response.body);
    expect(response.body).toMatchObject({ id: team.id, title: 'Renamed by owner', members: 2 });
    expect(response.headers.etag).toMatch(/^"\d+"$/);
    expect(response.headers.etag).not.toBe(before.headers.etag);
    expect((await getTeam(team.id)).title).toBe('Renamed by owner');
    expect((await as(people.ada).patch(`/teams/${team.id}`, { title: 'Renamed by admin' })).body.title).toBe('Renamed by admin');
  });

  it.each([
    ['1 character', 'y'],
    ['64 characters', 'p'.repeat(64)],
  ])('accepts a title of %s', async (_, title) => {
    expect((await as(people.ada).patch(`/teams/${team.id}`, { title })).body.title).toBe(title);
  });

  it.each([
    ['0 characters', { title: '' }],
    ['65 characters', { title: 'p'.repeat(65) }],
    ['no title', {}],
    ['an unknown member', { title: 'Fine', members: [] }],
  ])('answers %s with 400, and nothing changes', async (_, body) => {
    const before = await getTeam(team.id);
    expectError(await as(people.ada).patch(`/teams/${team.id}`, body), 400);
    expect(await getTeam(team.id)).toEqual(before);
  });

  it('answers a plain team member and other members with 403, outsiders and unknown teams with 404', async () => {
    expectError(await as(people.mia).patch(`/teams/${team.id}`, { title: 'Mine' }), 403);
    expectError(await as(people.eve).patch(`/teams/${team.id}`, { title: 'Mine' }), 403);
    expectError(await as(people.gus).patch(`/teams/${team.id}`, { title: 'Mine' }), 403);
    expectError(await as(people.zed).patch(`/teams/${team.id}`, { title: 'Mine' }), 404);
    expectError(await as(people.ada).patch('/teams/unknownTeam', { title: 'Mine' }), 404);
  });

  it('takes If-Match: the current ETag works, a stale one is 412 and nothing changes', async () => {
    const current = await as(people.ada).get(`/teams/${team.id}`);
    const renamed = await as(people.ada).patch(`/teams/${team.id}`, { title: 'With ETag' }, { 'If-Match': current.headers.etag });
    expectStatus(renamed, 200);
    expectError(await as(people.ada).patch(`/teams/${team.id}`, { title: 'Stale' }, { 'If-Match': current.headers.etag }), 412);
    expect((await getTeam(team.id)).title).toBe('With ETag');
  });
});

// ---- DELETE /teams/{teamId} --------------------------------------------------------------------------

describe('DELETE /teams/{teamId}', () => {
  it('answers 204; the team is gone from reads, lists and member lists, and refuses every change with 404', async () => {
    const team = await createTeam(people.olga, unique('Doomed'), [people.mia.id]);
    expectError(await as(people.mia).delete(`/teams/${team.id}`), 403);
    expectError(await as(people.eve).delete(`/teams/${team.id}`), 403);
    expectError(await as(people.zed).delete(`/teams/${team.id}`), 404);
    expectStatus(await as(people.olga).delete(`/teams/${team.id}`), 204);
    expectError(await as(people.ada).get(`/teams/${team.id}`), 404);
    expectError(await as(people.ada).get(`/teams/${team.id}/members`), 404);
    expect((await as(people.ada).get(`/teams?title=${encodeURIComponent(team.title)}`)).body.count).toBe(0);
    expect((await as(people.ada).get(`/members/${people.mia.id}/teams?title=${encodeURIComponent(team.title)}`)).body.count).toBe(0);
    expectError(await as(people.ada).patch(`/teams/${team.id}`, { title: 'Back' }), 404);
    expectError(await as(people.ada).delete(`/teams/${team.id}`), 404);
    expectError(await as(people.ada).put(`/teams/${team.id}/members/${people.eve.id}`), 404);
    expectError(await as(people.ada).put(`/teams/${team.id}/members`, { add: [people.eve.id] }), 404);
    expectError(await as(people.mia).delete(`/teams/${team.id}/members/${people.mia.id}`), 404);
  });

  it('lets an organization admin delete any team', async () => {
    const team = await createTeam(people.olga, unique('Admin deletes'));
    expectStatus(await as(people.ada).delete(`/teams/${team.id}`), 204);
  });
});

// ---- GET /teams ---------------------------------------------------------------------------------------

describe('GET /teams', () => {
  const prefix = `Paged ${Date.now().toString(36)}`;
  const teams: Team[] = [];
  beforeAll(async () => {
    for (const suffix of ['e', 'B', 'a', 'D', 'c']) teams.push(await createTeam(people.olga, `${prefix} ${suffix}`));
    await as(people.ada).put(`/teams/${teams[0].id}/members`, {
      memberships: { [people.mia.id]: { role: 'owner' } },
      add: [people.gus.id],
    });
  });

  it('pages through the teams by title, case-insensitively, with a stable count and no repeats', async () => {
    const pages = await allPages<Team>(people.ada, `/teams?title=${encodeURIComponent(prefix)}`, 2);
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
    for (const page of pages) expect(page.count).toBe(5);
    expect(pages.flatMap((page) => page.items.map((team) => team.title))).toEqual(
      ['a', 'B', 'c', 'D', 'e'].map((suffix) => `${prefix} ${suffix}`),
    );
    for (const team of pages.flatMap((page) => page.items)) expectTeamShape(team);
  });

  it('filters by title: case-insensitive contains, regular-expression characters taken literally', async () => {
    expect(
      (await as(people.ada).get(`/teams?title=${encodeURIComponent(prefix.toUpperCase())}%20d`)).body.items.map((t: Team) => t.id),
    ).toEqual([teams[3].id]);
    expect((await as(people.ada).get('/teams?title=.*')).body.count).toBe(0);
  });

  it('shows each caller their permissions on each team', async () => {
    const items = async (person: Person) =>
      (await as(person).get(`/teams?title=${encodeURIComponent(prefix)}&limit=10`)).body.items as Team[];
    expect((await items(people.ada)).every((team) => team.permissions.admin)).toBe(true);
    expect((await items(people.olga)).every((team) => team.permissions.admin)).toBe(true);
    const seenByMia = await items(people.mia);
    expect(seenByMia.filter((team) => team.permissions.admin).map((team) => team.id)).toEqual([teams[0].id]);
    expect(seenByMia.every((team) => team.permissions.view)).toBe(true);
  });

  it('lists a guest only the teams they are in', async () => {
    const seenByGus = (await as(people.gus).get(`/teams?title=${encodeURIComponent(prefix)}`)).body as List<Team>;
    expect(seenByGus.items.map((team) => [team.id, team.permissions])).toEqual([[teams[0].id, { admin: false, view: true }]]);
  });

  it('with owner: all teams for an organization admin, owned teams for others, none for people outside', async () => {
    const ids = async (owner: string) =>
      ((await as(people.eve).get(`/teams?title=${encodeURIComponent(prefix)}&owner=${owner}&limit=10`)).body as List<Team>).items.map(
        (t) => t.id,
      );
    expect(await ids(people.ada.id)).toHaveLength(5); // admin: manages every team
    expect(await ids(people.olga.id)).toHaveLength(5); // owner of all five
    expect(await ids(people.mia.id)).toEqual([teams[0].id]); // owner of one
    expect(await ids(people.eve.id)).toEqual([]);
    expect(await ids(people.zed.id)).toEqual([]);
    expect(await ids('unknownUser')).toEqual([]);
  });

  it('answers bad limits, cursors and unknown parameters with 400', async () => {
    expectError(await as(people.ada).get('/teams?limit=-1'), 400, /limit/);
    expectError(await as(people.ada).get('/teams?limit=1001'), 400, /limit/);
    expectError(await as(people.ada).get('/teams?page=not-a-cursor'), 400);
    expectError(await as(people.ada).get('/teams?colour=red'), 400, /colour/);
    expectError(await as(people.ada).get('/teams?title=' + 'x'.repeat(65)), 400, /title/);
    expect((await as(people.ada).get('/teams?limit=1000')).status).toBe(200);
  });

  it('answers people outside the organization with 404 and no token with 401', async () => {
    expectError(await as(people.zed).get('/teams'), 404);
    expectError(await service.request('GET', `/v1/orgs/${organizationId}/teams`), 401);
  });
});

// ---- team members ----------------------------------------------------------------------------------

describe('GET /teams/{teamId}/members', () => {
  let team: Team;
  beforeAll(async () => {
    team = await createTeam(people.olga, unique('Listed'), [people.mia.id, people.eve.id]);
  });

  it('lists Team membership items: the Member object, the team role and the caller’s view permission', async () => {
    const response = await as(people.eve).get(`/teams/${team.id}/members`);
    expectStatus(response, 200);
    const list = response.body as List<MembershipItem>;
    expect(list.count).toBe(3);
    expect(list.items.map((item) => [item.organization.id, item.organization.role, item.team.role])).toEqual([
      [people.olga.id, 'create', 'owner'],
      [people.mia.id, 'edit', 'member'],
      [people.eve.id, 'read', 'member'],
    ]);
    for (const item of list.items) {
      expect(Object.keys(item).sort()).toEqual(['organization', 'permissions', 'team']);
      expect(item.organization.object).toBe('member');
      expect(item.organization.user).toMatchObject({ object: 'user', id: item.organization.id });
      expect(item.permissions).toEqual({ view: true });
    }
  });

  it("embeds each member as the platform's OrganizationMember, its sites count included", async () => {
    const response = await as(people.eve).get(`/teams/${team.id}/members`);
    const items = (response.body as List<MembershipItem>).items;
    expect(items.map((item) => platformSchemaProblem('OrganizationMember', item.organization))).toEqual(items.map(() => null));
  });

  it('pages over more than one page', async () => {
    const pages = await allPages<MembershipItem>(people.ada, `/teams/${team.id}/members`, 2);
    expect(pages.map((page) => page.items.length)).toEqual([2, 1]);
    expect(new Set(pages.flatMap((page) => page.items.map((item) => item.organization.id))).size).toBe(3);
  });

  it('answers a guest outside the team with 403, people outside the organization and unknown teams with 404', async () => {
    expectError(await as(people.gus).get(`/teams/${team.id}/members`), 403);
    expectError(await as(people.zed).get(`/teams/${team.id}/members`), 404);
    expectError(await as(people.ada).get('/teams/unknownTeam/members'), 404);
  });
});

describe('PUT /teams/{teamId}/members/{userId}', () => {
  let team: Team;
  beforeAll(async () => {
    team = await createTeam(people.olga, unique('Single'));
  });

  it('adds a member as `member` by default (204), keeps the role of someone already in, changes it when given', async () => {
    expectStatus(await as(people.olga).put(`/teams/${team.id}/members/${people.mia.id}`), 204);
    expect(await membersOf(team.id)).toEqual([
      [people.olga.id, 'owner'],
      [people.mia.id, 'member'],
    ]);
    expect((await getTeam(team.id)).members).toBe(2);
    expectStatus(await as(people.olga).put(`/teams/${team.id}/members/${people.mia.id}`, { role: 'owner' }), 204);
    expectStatus(await as(people.olga).put(`/teams/${team.id}/members/${people.mia.id}`, {}), 204);
    expect(await membersOf(team.id)).toEqual([
      [people.olga.id, 'owner'],
      [people.mia.id, 'owner'],
    ]);
    expectStatus(await as(people.ada).put(`/teams/${team.id}/members/${people.eve.id}`, { role: 'member' }), 204);
    expect((await getTeam(team.id)).members).toBe(3);
    // mia, now an owner, manages the team.
    expect((await getTeam(team.id, people.mia)).permissions.admin).toBe(true);
    expectStatus(await as(people.mia).put(`/teams/${team.id}/members/${people.mia.id}`, { role: 'member' }), 204);
    expect((await getTeam(team.id, people.mia)).permissions.admin).toBe(false);
  });

  it('answers a bad role with 400, unknown users and users outside the organization with 400 naming them', async () => {
    expectError(await as(people.olga).put(`/teams/${team.id}/members/${people.mia.id}`, { role: 'admin' }), 400, /role/);
    expectError(await as(people.olga).put(`/teams/${team.id}/members/nobody00000000000123`), 400, /nobody00000000000123/);
    expectError(await as(people.olga).put(`/teams/${team.id}/members/${people.zed.id}`), 400, new RegExp(people.zed.id));
    expect(await membersOf(team.id)).not.toContainEqual([people.zed.id, expect.anything()]);
  });

  it('answers plain members with 403 and people outside with 404', async () => {
    expectError(await as(people.eve).put(`/teams/${team.id}/members/${people.eve.id}`, { role: 'owner' }), 403);
    expectError(await as(people.gus).put(`/teams/${team.id}/members/${people.gus.id}`), 403);
    expectError(await as(people.zed).put(`/teams/${team.id}/members/${people.zed.id}`), 404);
    expectError(await as(people.ada).put(`/teams/unknownTeam/members/${people.eve.id}`), 404);
  });
});

describe('DELETE /teams/{teamId}/members/{userId}', () => {
  it('removes a member (204) and the count follows; a member may leave; removing others needs the right to manage', async () => {
    const team = await createTeam(people.olga, unique('Removals'), [people.mia.id, people.eve.id]);
    expectError(await as(people.mia).delete(`/teams/${team.id}/members/${people.eve.id}`), 403);
    expectStatus(await as(people.olga).delete(`/teams/${team.id}/members/${people.eve.id}`), 204);
    expect((await getTeam(team.id)).members).toBe(2);
    expectStatus(await as(people.mia).delete(`/teams/${team.id}/members/${people.mia.id}`), 204);
    expect(await membersOf(team.id)).toEqual([[people.olga.id, 'owner']]);
    expect((await getTeam(team.id)).members).toBe(1);
  });

  it('answers someone not in the team with 404, and people outside the organization with 404', async () => {
    const team = await createTeam(people.olga, unique('Removals 404'));
    expectError(await as(people.olga).delete(`/teams/${team.id}/members/${people.eve.id}`), 404);
    expectError(await as(people.zed).delete(`/teams/${team.id}/members/${people.olga.id}`), 404);
  });
});

describe('PUT /teams/{teamId}/members (bulk)', () => {
  let team: Team;
  beforeEach(async () => {
    team = await createTeam(people.olga, unique('Bulk'), [people.mia.id]);
  });

  it('adds by id and e-mail, sets roles with memberships, removes; 204; the count follows', async () => {
    const response = await as(people.olga).put(`/teams/${team.id}/members`, {
      add: [people.eve.id, people.gus.email],
      remove: [people.mia.email],
      memberships: { [people.ada.email]: { role: 'owner' } },
    });
    expectStatus(response, 204);
    expect(await membersOf(team.id)).toEqual([
      [people.olga.id, 'owner'],
      [people.ada.id, 'owner'],
      [people.eve.id, 'member'],
      [people.gus.id, 'member'],
    ]);
    expect((await getTeam(team.id)).members).toBe(4);
  });

  it('removes a user who is in both add and remove (by id or by e-mail)', async () => {
    expectStatus(
      await as(people.olga).put(`/teams/${team.id}/members`, {
        add: [people.eve.id, people.mia.id],
        remove: [people.eve.email, people.mia.id],
      }),
      204,
    );
    expect(await membersOf(team.id)).toEqual([[people.olga.id, 'owner']]);
    expect((await getTeam(team.id)).members).toBe(1);
  });

  it('lets remove win over memberships too, and an empty body change nothing', async () => {
    expectStatus(
      await as(people.olga).put(`/teams/${team.id}/members`, {
        memberships: { [people.mia.id]: { role: 'owner' } },
        remove: [people.mia.id],
      }),
      204,
    );
    expect(await membersOf(team.id)).toEqual([[people.olga.id, 'owner']]);
    const before = await as(people.ada).get(`/teams/${team.id}`);
    expectStatus(await as(people.olga).put(`/teams/${team.id}/members`, {}), 204);
    expectStatus(await as(people.olga).put(`/teams/${team.id}/members`, { remove: [people.eve.id] }), 204);
    expect((await as(people.ada).get(`/teams/${team.id}`)).headers.etag).toBe(before.headers.etag);
  });

  it('answers unknown users and e-mail addresses with 400 naming them, and nothing changes', async () => {
    const before = await membersOf(team.id);
    const response = await as(people.olga).put(`/teams/${team.id}/members`, {
      add: [people.eve.id, 'nobody@teams.example'],
      remove: ['ghost123', people.mia.id],
      memberships: { 'phantom@teams.example': { role: 'owner' } },
    });
    expectError(response, 400, /nobody@teams\.example/);
    expect(response.body.error.message).toMatch(/ghost123/);
    expect(response.body.error.message).toMatch(/phantom@teams\.example/);
    expect(await membersOf(team.id)).toEqual(before);
  });

  it('answers users outside the organization with 400 naming them, and nothing changes; removing them is no error', async () => {
    const before = await membersOf(team.id);
    expectError(
      await as(people.olga).put(`/teams/${team.id}/members`, { add: [people.eve.id, people.zed.email] }),
      400,
      /zed@elsewhere\.example/,
    );
    expectError(
      await as(people.olga).put(`/teams/${team.id}/members`, { memberships: { [people.zed.id]: { role: 'member' } } }),
      400,
      new RegExp(people.zed.id),
    );
    expect(await membersOf(team.id)).toEqual(before);
    expectStatus(await as(people.olga).put(`/teams/${team.id}/members`, { add: [people.zed.id], remove: [people.zed.id] }), 204);
  });

  it('validates the body: 400 naming the member', async () => {
    expectError(await as(people.olga).put(`/teams/${team.id}/members`, { add: people.eve.id }), 400, /add/);
    expectError(await as(people.olga).put(`/teams/${team.id}/members`, { remove: [''] }), 400, /remove/);
    expectError(await as(people.olga).put(`/teams/${team.id}/members`, { memberships: [] }), 400, /memberships/);
    expectError(
      await as(people.olga).put(`/teams/${team.id}/members`, { memberships: { [people.eve.id]: { role: 'boss' } } }),
      400,
      /memberships.*role/,
    );
    expectError(await as(people.olga).put(`/teams/${team.id}/members`, { memberships: { [people.eve.id]: 'owner' } }), 400, /memberships/);
    expectError(await as(people.olga).put(`/teams/${team.id}/members`, { members: [] }), 400, /members/);
  });

  it('answers plain members with 403 (even naming unknown users), people outside with 404; takes If-Match', async () => {
    expectError(await as(people.mia).put(`/teams/${team.id}/members`, { add: [people.eve.id] }), 403);
    expectError(await as(people.mia).put(`/teams/${team.id}/members`, { add: ['nobody@teams.example'] }), 403);
    expectError(await as(people.eve).put(`/teams/${team.id}/members`, { add: [people.eve.id] }), 403);
    expectError(await as(people.zed).put(`/teams/${team.id}/members`, { add: [people.zed.id] }), 404);
    const current = await as(people.ada).get(`/teams/${team.id}`);
    expectStatus(
      await as(people.ada).put(`/teams/${team.id}/members`, { add: [people.eve.id] }, { 'If-Match': current.headers.etag }),
      204,
    );
    expectError(await as(people.ada).put(`/teams/${team.id}/members`, { add: [people.gus.id] }, { 'If-Match': current.headers.etag }), 412);
    expect(await membersOf(team.id)).not.toContainEqual([people.gus.id, expect.anything()]);
  });
});

// ---- GET /members/{userId}/teams -------------------------------------------------------------------

describe('GET /members/{userId}/teams', () => {
  const prefix = `Mine ${Date.now().toString(36)}`;
  let owned: Team;
  beforeAll(async () => {
    owned = await createTeam(people.olga, `${prefix} Owned`, [people.eve.id]);
    await createTeam(people.ada, `${prefix} joined b`, [people.eve.id]);
    await createTeam(people.ada, `${prefix} Joined a`, [people.eve.id]);
    await as(people.ada).put(`/teams/${owned.id}/members/${people.eve.id}`, { role: 'owner' });
  });

  it('lists the member’s teams by title with their role in each, and the caller’s permissions', async () => {
    const response = await as(people.mia).get(`/members/${people.eve.id}/teams?title=${encodeURIComponent(prefix)}`);
    expectStatus(response, 200);
    const list = response.body as List<MemberTeamItem>;
    expect(list.count).toBe(3);
    expect(list.items.map((item) => [item.team.title, item.member.role])).toEqual([
      [`${prefix} Joined a`, 'member'],
      [`${prefix} joined b`, 'member'],
      [`${prefix} Owned`, 'owner'],
    ]);
    for (const item of list.items) {
      expect(Object.keys(item).sort()).toEqual(['member', 'team']);
      expectTeamShape(item.team);
      expect(item.team.permissions).toEqual({ admin: false, view: true }); // as mia sees them
    }
    const ownView = (await as(people.eve).get(`/members/${people.eve.id}/teams?title=${encodeURIComponent(prefix)}`))
      .body as List<MemberTeamItem>;
    expect(ownView.items.map((item) => item.team.permissions.admin)).toEqual([false, false, true]);
  });

  it('filters by title, case-insensitively, and pages', async () => {
    expect(
      (await as(people.ada).get(`/members/${people.eve.id}/teams?title=${encodeURIComponent(`${prefix} JOINED`.toLowerCase())}`)).body
        .count,
    ).toBe(2);
    const pages = await allPages<MemberTeamItem>(people.ada, `/members/${people.eve.id}/teams?title=${encodeURIComponent(prefix)}`, 2);
    expect(pages.map((page) => page.items.length)).toEqual([2, 1]);
  });

  it('answers someone without teams with an empty list', async () => {
    expect((await as(people.ada).get(`/members/${people.eve.id}/teams?title=no-such-team`)).body).toEqual({ count: 0, items: [] });
  });

  it('answers callers outside the organization and users not in it with 404; guests may list only their own teams', async () => {
    expectError(await as(people.zed).get(`/members/${people.eve.id}/teams`), 404);
    expectError(await as(people.ada).get(`/members/${people.zed.id}/teams`), 404);
    expectError(await as(people.ada).get('/members/unknownUser/teams'), 404);
    expectError(await as(people.gus).get(`/members/${people.eve.id}/teams`), 403);
    expectStatus(await as(people.gus).get(`/members/${people.gus.id}/teams`), 200);
  });
});

// ---- counts, audit, leaving the organization ----------------------------------------------------------

describe('counts and history', () => {
  it('counts the member’s teams on their Member object', async () => {
    const response = await as(people.ada).get(`/members/${people.mia.id}/teams?limit=1000`);
    const team = await createTeam(people.ada, unique('Counted'), [people.mia.id]);
    const items = (await as(people.ada).get(`/teams/${team.id}/members`)).body.items as MembershipItem[];
    const mia = items.find((item) => item.organization.id === people.mia.id)!;
    expect(mia.organization.teams).toBe(response.body.count + 1);
  });

  it('records team changes in the organization audit log', async () => {
    const team = await createTeam(people.ada, unique('Audited'));
    await as(people.ada).patch(`/teams/${team.id}`, { title: 'Audited, renamed' });
    await as(people.ada).put(`/teams/${team.id}/members/${people.mia.id}`);
    await as(people.ada).put(`/teams/${team.id}/members/${people.mia.id}`, { role: 'owner' });
    await as(people.ada).delete(`/teams/${team.id}/members/${people.mia.id}`);
    await as(people.ada).delete(`/teams/${team.id}`);
    const events = (await as(people.ada).get(`/audit-events?target=${team.id}&limit=100`)).body.items as Array<{
      action: string;
      target: { type: string; id: string; label?: string };
    }>;
    expect(events.map((event) => event.action).reverse()).toEqual([
      'team.created',
      'team.member_added',
      'team.updated',
      'team.member_added',
      'team.member_updated',
      'team.member_removed',
      'team.deleted',
    ]);
    expect(events.every((event) => event.target.type === 'team' && event.target.id === team.id)).toBe(true);
    expect(events[0].target.label).toBe('Audited, renamed');
  });

  it('takes someone who leaves the organization out of its teams; invited again, they start in no team', async () => {
    const leoUser = await service.createUser('leo@teams.example', 'Leo');
    await joinAs(service, organizationId, people.ada.token, [{ token: leoUser.token, email: 'leo@teams.example', role: 'edit' }]);
    const leo = leoUser.user.id;
    const team = await createTeam(people.olga, unique('Left behind'), [leo, people.mia.id]);
    expect((await getTeam(team.id)).members).toBe(3);
    expectStatus(await as(people.ada).delete(`/members/${leo}`), 204);
    expect((await getTeam(team.id)).members).toBe(2);
    expect(await membersOf(team.id)).toEqual([
      [people.olga.id, 'owner'],
      [people.mia.id, 'member'],
    ]);
    expectError(await as(people.ada).get(`/members/${leo}/teams`), 404);
    // Back in the organization: the team stream agrees that they left, so adding them counts again.
    await joinAs(service, organizationId, people.ada.token, [{ token: leoUser.token, email: 'leo@teams.example' }]);
    expect((await as(people.ada).get(`/members/${leo}/teams`)).body.count).toBe(0);
    expectStatus(await as(people.olga).put(`/teams/${team.id}/members/${leo}`), 204);
    expect((await getTeam(team.id)).members).toBe(3);
    expect((await as(people.ada).get(`/members/${leo}/teams`)).body.items.map((item: MemberTeamItem) => item.team.id)).toEqual([team.id]);
  });
});

describe('user ids named like Object.prototype members', () => {
  it.each(['__proto__', 'constructor', 'toString'])(
    '%s is nobody: removing, setting or bulk-changing them answers 404 or 400 and appends nothing',
    async (userId) => {
      const team = await createTeam(people.olga, unique(`Proto ${userId}`), [people.mia.id]);
      expectError(await as(people.olga).delete(`/teams/${team.id}/members/${userId}`), 404);
      expectError(await as(people.olga).put(`/teams/${team.id}/members/${userId}`, { role: 'owner' }), 404);
      expectError(await as(people.olga).put(`/teams/${team.id}/members`, { remove: [userId] }), 400, new RegExp(userId));
      expectError(await as(people.olga).put(`/teams/${team.id}/members`, { add: [userId] }), 400, new RegExp(userId));
      const after = await as(people.olga).get(`/teams/${team.id}`);
      expect(after.headers.etag).toBe('"2"');
      expect(await membersOf(team.id)).toEqual([
        [people.olga.id, 'owner'],
        [people.mia.id, 'member'],
      ]);
    },
  );
});
