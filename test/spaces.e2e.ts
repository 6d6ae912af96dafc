/**
 * Spaces through HTTP against the embedded service: `/v1/orgs/{organizationId}/spaces`,
 * `/v1/spaces/{spaceId}…` (patch, soft delete and restore, duplicate, move, transfer), visibility
 * as seen by each kind of caller, share links (an extension) and the audit log.
 *
 * The people: ada creates the organization (admin); rita (read), cora (create) and gus (guest,
 * role null) are invited; zed is outside (his own organization). ada also owns a second
 * organization (transfers succeed) and is a reader in zed's (transfers are refused there).
 * The 7-day window is tested in space.decider.spec.ts and space.purge.spec.ts with explicit times.
 */
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}
interface Space {
  object: 'space';
  id: string;
  title: string;
  emoji: string;
  visibility: string;
  editMode: string;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  urls: { location: string; app: string; public?: string };
  organization: string;
  parent?: string;
  defaultLevel: string | null;
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
  permissions: Record<string, boolean>;
}

let service: RunningService;
let organizationId: string;
let secondOrganizationId: string;
let zedOrganizationId: string;
const people: Record<'ada' | 'rita' | 'cora' | 'gus' | 'zed', Person> = {} as never;

const call = (person: Person | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  service.request(method, path, { token: person?.token, body, headers });

function expectStatus(response: Response, status: number): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: status === 204 ? '' : expect.anything() });
}

async function createSpace(by: Person, body: Record<string, unknown> = {}, organization = () => organizationId): Promise<Space> {
  const response = await call(by, 'POST', `/v1/orgs/${organization()}/spaces`, body);
  if (response.status !== 201) throw new Error(`POST /spaces answered ${response.status}: ${response.text.slice(0, 500)}`);
  return response.body;
}

async function createCollection(by: Person, body: Record<string, unknown> = {}): Promise<{ id: string }> {
  const response = await call(by, 'POST', `/v1/orgs/${organizationId}/collections`, body);
  if (response.status !== 201) throw new Error(`POST /collections answered ${response.status}: ${response.text.slice(0, 500)}`);
  return response.body;
}

async function listIds(by: Person, path: string): Promise<string[]> {
  const response = await call(by, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=1000`);
  expectStatus(response, 200);
  return (response.body.items as Space[]).map((space) => space.id);
}

beforeAll(async () => {
  service = await startService();
  const ada = await service.createUser('ada@spaces.example', 'Ada Admin');
  const zed = await service.createUser('zed@elsewhere.example', 'Zed Outside');
  people.ada = { id: ada.user.id, token: ada.token };
  people.zed = { id: zed.user.id, token: zed.token };
  organizationId = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Spaces Inc' })).body.id;
  secondOrganizationId = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Spaces Two' })).body.id;
  zedOrganizationId = (await call(people.zed, 'POST', '/v1/orgs', { title: 'Elsewhere' })).body.id;
  const invitations = [
    { name: 'rita', email: 'rita@spaces.example', role: 'read' },
    { name: 'cora', email: 'cora@spaces.example', role: 'create' },
    { name: 'gus', email: 'gus@spaces.example', role: null },
  ] as const;
  for (const { name, email } of invitations) {
    const created = await service.createUser(email, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  await joinAs(
    service,
    organizationId,
    ada.token,
    invitations.map(({ name, email, role }) => ({ token: people[name].token, email, role })),
  );
  await joinAs(service, zedOrganizationId, zed.token, [{ token: ada.token, email: 'ada@spaces.example', role: 'read' }]);
});

afterAll(cleanUpServices);

describe('POST /v1/orgs/{organizationId}/spaces and GET /v1/spaces/{spaceId}', () => {
  it('creates a space with every documented Space field, absolute urls and the caller’s permissions', async () => {
    const created = await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Handbook', emoji: '📘' });
    expectStatus(created, 201);
    const space: Space = created.body;
    expect(space).toEqual({
      object: 'space',
      id: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      title: 'Handbook',
      emoji: '📘',
      visibility: 'private',
      editMode: 'live',
      revision: expect.stringMatching(/^[0-9A-Za-z]{20}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      mergeRules: { type: 'inherit' },
      urls: { location: `${service.url}/v1/spaces/${space.id}`, app: `${service.url}/s/${space.id}` },
      organization: organizationId,
      defaultLevel: null,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      permissions: {
        view: true,
        access: true,
        admin: true,
        viewInviteLinks: true,
        edit: true,
        triggerGitSync: true,
        comment: true,
        merge: true,
        review: true,
        installIntegration: true,
      },
    });
    expect(new Date(space.createdAt).toISOString()).toBe(space.createdAt);
    expect(created.headers.etag).toBe('"0"');
    const read = await call(people.ada, 'GET', `/v1/spaces/${space.id}`);
    expectStatus(read, 200);
    expect(read.body).toEqual(space);
  });

  it('computes permissions per caller: a reader reads, a creator edits but does not administrate', async () => {
    const space = await createSpace(people.ada, { title: 'Per caller' });
    const rita = await call(people.rita, 'GET', `/v1/spaces/${space.id}`);
    expect(rita.body.permissions).toEqual({
      view: true,
      access: true,
      admin: false,
      viewInviteLinks: false,
      edit: false,
      triggerGitSync: false,
      comment: false,
      merge: false,
      review: false,
      installIntegration: false,
    });
    const cora = await call(people.cora, 'GET', `/v1/spaces/${space.id}`);
    expect(cora.body.permissions).toMatchObject({ admin: false, edit: true, comment: true, review: true, merge: true });
  });

  it('refuses readers and guests (403), people outside (404), unknown parents and bad bodies (400), no token (401)', async () => {
    expectError(await call(people.rita, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'No' }), 403);
    expectError(await call(people.gus, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'No' }), 403);
    expectError(await call(people.zed, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'No' }), 404);
    expectError(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { parent: 'nosuchcollection' }), 400, /parent/);
    expectError(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: '' }), 400, /title/);
    expectError(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'x', extra: 1 }), 400, /extra/);
    expectError(await call(null, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'x' }), 401);
    expectError(await call(people.ada, 'GET', '/v1/spaces/nosuchspace'), 404);
    expectError(await call(people.ada, 'GET', '/v1/spaces/bad%20id'), 404);
  });

  it('lets a creator create a space in a collection, in-collection by default', async () => {
    const collection = await createCollection(people.ada, { title: 'Guides' });
    const space = await createSpace(people.cora, { title: 'Inside', parent: collection.id });
    expect(space).toMatchObject({ parent: collection.id, visibility: 'in-collection' });
    expect(space.permissions.admin).toBe(false);
  });
});

describe('GET /v1/orgs/{organizationId}/spaces', () => {
  it('pages through the live spaces, leaving deleted ones out', async () => {
    const organization = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Paging' })).body.id as string;
    const spaces = [];
    for (let i = 0; i < 5; i++) spaces.push(await createSpace(people.ada, { title: `Page ${i}` }, () => organization));
    expectStatus(await call(people.ada, 'DELETE', `/v1/spaces/${spaces[2].id}`), 204);
    const seen: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const response = await call(
        people.ada,
        'GET',
        `/v1/orgs/${organization}/spaces?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`,
      );
      expectStatus(response, 200);
      expect(response.body.count).toBe(4);
      seen.push(...response.body.items.map((space: Space) => space.id));
      page = response.body.next?.page;
      pages++;
    } while (page !== undefined && pages < 10);
    expect(pages).toBe(2);
    expect(seen).toEqual([spaces[0], spaces[1], spaces[3], spaces[4]].map((space) => space.id));
    expectError(await call(people.ada, 'GET', `/v1/orgs/${organization}/spaces?limit=-1`), 400, /limit/);
    expectError(await call(people.ada, 'GET', `/v1/orgs/${organization}/spaces?limit=1001`), 400, /limit/);
    expectError(await call(people.zed, 'GET', `/v1/orgs/${organization}/spaces`), 404);
  });
});

describe('PATCH /v1/spaces/{spaceId}', () => {
  it('changes title, emoji, editMode, defaultLevel and visibility, with If-Match', async () => {
    const space = await createSpace(people.ada, { title: 'Patch me' });
    const patched = await call(
      people.ada,
      'PATCH',
      `/v1/spaces/${space.id}`,
      { title: 'Patched', emoji: '🔒', editMode: 'locked', defaultLevel: 'edit', visibility: 'public' },
      { 'if-match': '"0"' },
    );
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({
      title: 'Patched',
      emoji: '🔒',
      editMode: 'locked',
      defaultLevel: 'edit',
      visibility: 'public',
      urls: { public: `${service.url}/public/spaces/${space.id}` },
    });
    expect(patched.headers.etag).toBe('"1"');
    // defaultLevel edit raises a reader to edit on this space.
    expect((await call(people.rita, 'GET', `/v1/spaces/${space.id}`)).body.permissions).toMatchObject({ edit: true, admin: false });
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { title: 'Stale' }, { 'if-match': '"0"' }), 412);
    const back = await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { editMode: 'live', defaultLevel: null, emoji: null });
    expect(back.body).toMatchObject({ editMode: 'live', defaultLevel: null, emoji: '' });
  });

  it('lets editors rename but only admins change editMode, defaultLevel or visibility; validates values', async () => {
    const space = await createSpace(people.ada, { title: 'Rules' });
    expectStatus(await call(people.cora, 'PATCH', `/v1/spaces/${space.id}`, { title: 'Renamed by cora' }), 200);
    expectError(await call(people.cora, 'PATCH', `/v1/spaces/${space.id}`, { editMode: 'locked' }), 403);
    expectError(await call(people.rita, 'PATCH', `/v1/spaces/${space.id}`, { title: 'No' }), 403);
    expectError(await call(people.zed, 'PATCH', `/v1/spaces/${space.id}`, { title: 'No' }), 404);
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { editMode: 'frozen' }), 400, /editMode/);
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { defaultLevel: 'owner' }), 400, /defaultLevel/);
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { visibility: 'secret' }), 400, /visibility/);
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { visibility: 'in-collection' }), 400, /in-collection/);
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).body.title).toBe('Renamed by cora');
  });
});

describe('DELETE and POST /restore', () => {
  it('soft-deletes (deletedAt set, hidden from lists, only admins still see it) and restores within the window', async () => {
    const space = await createSpace(people.ada, { title: 'Deleted soon' });
    expectError(await call(people.rita, 'DELETE', `/v1/spaces/${space.id}`), 403);
    expectStatus(await call(people.ada, 'DELETE', `/v1/spaces/${space.id}`), 204);
    const deleted = await call(people.ada, 'GET', `/v1/spaces/${space.id}`);
    expectStatus(deleted, 200);
    expect(new Date(deleted.body.deletedAt).toISOString()).toBe(deleted.body.deletedAt);
    expectError(await call(people.rita, 'GET', `/v1/spaces/${space.id}`), 404);
    expect(await listIds(people.ada, `/v1/orgs/${organizationId}/spaces`)).not.toContain(space.id);
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { title: 'No' }), 409, /deleted/);
    expectError(await call(people.rita, 'POST', `/v1/spaces/${space.id}/restore`), 404);

    const restored = await call(people.ada, 'POST', `/v1/spaces/${space.id}/restore`);
    expectStatus(restored, 200);
    expect(restored.body.deletedAt).toBeUndefined();
    expect(restored.body.title).toBe('Deleted soon');
    expect(await listIds(people.ada, `/v1/orgs/${organizationId}/spaces`)).toContain(space.id);
    expectStatus(await call(people.rita, 'GET', `/v1/spaces/${space.id}`), 200);
  });
});

describe('POST /duplicate', () => {
  it('creates a copy with the same title right after the original', async () => {
    const organization = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Dup' })).body.id as string;
    const a = await createSpace(people.ada, { title: 'Original', emoji: '🧪' }, () => organization);
    const b = await createSpace(people.ada, { title: 'Next' }, () => organization);
    const copy = await call(people.ada, 'POST', `/v1/spaces/${a.id}/duplicate`);
    expectStatus(copy, 201);
    expect(copy.body).toMatchObject({ title: 'Original', emoji: '🧪', visibility: a.visibility, organization });
    expect(copy.body.id).not.toBe(a.id);
    expect(await listIds(people.ada, `/v1/orgs/${organization}/spaces`)).toEqual([a.id, copy.body.id, b.id]);
    expectError(await call(people.zed, 'POST', `/v1/spaces/${a.id}/duplicate`), 404);
  });
});

describe('POST /move', () => {
  it('places a space before or after a sibling and into a collection; lists show that order', async () => {
    const organization = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Moves' })).body.id as string;
    const [a, b, c] = [
      await createSpace(people.ada, { title: 'a' }, () => organization),
      await createSpace(people.ada, { title: 'b' }, () => organization),
      await createSpace(people.ada, { title: 'c' }, () => organization),
    ];
    const list = () => listIds(people.ada, `/v1/orgs/${organization}/spaces`);
    expect(await list()).toEqual([a.id, b.id, c.id]);
    expectStatus(await call(people.ada, 'POST', `/v1/spaces/${c.id}/move`, { position: { before: { type: 'space', space: a.id } } }), 200);
    expect(await list()).toEqual([c.id, a.id, b.id]);
    expectStatus(await call(people.ada, 'POST', `/v1/spaces/${c.id}/move`, { position: { after: { type: 'space', space: a.id } } }), 200);
    expect(await list()).toEqual([a.id, c.id, b.id]);
    expectStatus(
      await call(people.ada, 'POST', `/v1/spaces/${a.id}/move`, {
        position: { after: { type: 'space', space: c.id }, before: { type: 'space', space: b.id } },
      }),
      200,
    );
    expect(await list()).toEqual([c.id, a.id, b.id]);

    const collection = (await call(people.ada, 'POST', `/v1/orgs/${organization}/collections`, { title: 'Box' })).body.id as string;
    const moved = await call(people.ada, 'POST', `/v1/spaces/${b.id}/move`, { parent: collection });
    expectStatus(moved, 200);
    expect(moved.body.parent).toBe(collection);
    expectStatus(
      await call(people.ada, 'POST', `/v1/spaces/${c.id}/move`, {
        parent: collection,
        position: { before: { type: 'space', space: b.id } },
      }),
      200,
    );
    expect(await listIds(people.ada, `/v1/collections/${collection}/spaces`)).toEqual([c.id, b.id]);
    expect(await list()).toEqual([a.id, c.id, b.id]);
    const out = await call(people.ada, 'POST', `/v1/spaces/${b.id}/move`, { parent: null });
    expect(out.body.parent).toBeUndefined();
    expect(await listIds(people.ada, `/v1/collections/${collection}/spaces`)).toEqual([c.id]);
  });

  it('refuses unknown siblings and collections (400), bad shapes (400) and non-admins (403)', async () => {
    const space = await createSpace(people.ada, { title: 'Mover' });
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${space.id}/move`, { position: { before: { type: 'space', space: 'nosuchspace' } } }),
      400,
      /nosuchspace/,
    );
    expectError(await call(people.ada, 'POST', `/v1/spaces/${space.id}/move`, { parent: 'nosuchcollection' }), 400, /parent/);
    expectError(await call(people.ada, 'POST', `/v1/spaces/${space.id}/move`, { position: { before: 'x' } }), 400, /position/);
    expectError(await call(people.cora, 'POST', `/v1/spaces/${space.id}/move`, { parent: null }), 403);
  });
});

describe('POST /transfer', () => {
  it('moves the space to another organization where the caller is an admin, leaving its collection', async () => {
    const collection = await createCollection(people.ada, { title: 'Leaving' });
    const space = await createSpace(people.ada, { title: 'Travels', parent: collection.id });
    const transferred = await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: secondOrganizationId });
    expectStatus(transferred, 200);
    expect(transferred.body).toMatchObject({ organization: secondOrganizationId, visibility: 'private' });
    expect(transferred.body.parent).toBeUndefined();
    expect(await listIds(people.ada, `/v1/orgs/${secondOrganizationId}/spaces`)).toContain(space.id);
    expect(await listIds(people.ada, `/v1/orgs/${organizationId}/spaces`)).not.toContain(space.id);
    expect(await listIds(people.ada, `/v1/collections/${collection.id}/spaces`)).not.toContain(space.id);
    // Members of the first organization lost access with it.
    expectError(await call(people.rita, 'GET', `/v1/spaces/${space.id}`), 404);
  });

  it('refuses organizations where the caller is not an admin (403), unknown ones (404) and the same one (400)', async () => {
    const space = await createSpace(people.ada, { title: 'Stays' });
    expectError(await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: zedOrganizationId }), 403, /admins/);
    expectError(await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: organizationId }), 400);
    expectError(await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: 'nosuchorganization' }), 404);
    expectError(await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, {}), 400, /organization/);
    expectError(await call(people.cora, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: secondOrganizationId }), 403);
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).body.organization).toBe(organizationId);
  });
});

describe('visibility as seen by admin, reader, guest, outsider and share-key holder', () => {
  const visibilities = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
  // What GET answers for: ada (admin), rita (reader), gus (guest), zed (outside), zed with a share key.
  const expected: Record<(typeof visibilities)[number], [number, number, number, number, number]> = {
    public: [200, 200, 200, 200, 200],
    unlisted: [200, 200, 200, 200, 200],
    'share-link': [200, 200, 404, 404, 200],
    'visitor-auth': [200, 200, 404, 404, 404],
    'in-collection': [200, 200, 404, 404, 404],
    private: [200, 200, 404, 404, 404],
  };

  it.each(visibilities)('%s', async (visibility) => {
    const collection = await createCollection(people.ada, { title: `Vis ${visibility}` });
    const space = await createSpace(people.ada, { title: `Vis ${visibility}`, parent: collection.id });
    expectStatus(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { visibility }), 200);
    const link = await call(people.ada, 'POST', `/v1/spaces/${space.id}/share-links`);
    expectStatus(link, 201);
    const statuses = [
      (await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).status,
      (await call(people.rita, 'GET', `/v1/spaces/${space.id}`)).status,
      (await call(people.gus, 'GET', `/v1/spaces/${space.id}`)).status,
      (await call(people.zed, 'GET', `/v1/spaces/${space.id}`)).status,
      (await call(people.zed, 'GET', `/v1/spaces/${space.id}?shareKey=${link.body.key}`)).status,
    ];
    expect(statuses).toEqual(expected[visibility]);
    const guestList = await listIds(people.gus, `/v1/orgs/${organizationId}/spaces`);
    expect(guestList.includes(space.id)).toBe(visibility === 'public');
    expect(await listIds(people.rita, `/v1/orgs/${organizationId}/spaces`)).toContain(space.id);
  });

  it('gives non-members read-only permissions through visibility', async () => {
    const space = await createSpace(people.ada, { title: 'Public one' });
    await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { visibility: 'public' });
    expect((await call(people.zed, 'GET', `/v1/spaces/${space.id}`)).body.permissions).toEqual({
      view: true,
      access: true,
      admin: false,
      viewInviteLinks: false,
      edit: false,
      triggerGitSync: false,
      comment: false,
      merge: false,
      review: false,
      installIntegration: false,
    });
    expectError(await call(people.zed, 'PATCH', `/v1/spaces/${space.id}`, { title: 'No' }), 403);
  });
});

describe('share links: POST/GET /v1/spaces/{spaceId}/share-links, DELETE …/{shareKey}', () => {
  it('creates, lists and revokes share links; a revoked key grants nothing', async () => {
    const space = await createSpace(people.ada, { title: 'Shared' });
    await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { visibility: 'share-link' });
    const first = await call(people.ada, 'POST', `/v1/spaces/${space.id}/share-links`);
    const second = await call(people.ada, 'POST', `/v1/spaces/${space.id}/share-links`);
    expectStatus(first, 201);
    expect(first.body).toEqual({
      object: 'share-link',
      key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      space: space.id,
      createdAt: expect.any(String),
      urls: {
        location: `${service.url}/v1/spaces/${space.id}/share-links/${first.body.key}`,
        space: `${service.url}/v1/spaces/${space.id}?shareKey=${first.body.key}`,
      },
    });
    const listed = await call(people.ada, 'GET', `/v1/spaces/${space.id}/share-links`);
    expectStatus(listed, 200);
    expect(listed.body).toEqual({ count: 2, items: [first.body, second.body] });
    expectError(await call(people.rita, 'GET', `/v1/spaces/${space.id}/share-links`), 403);
    expectError(await call(people.rita, 'POST', `/v1/spaces/${space.id}/share-links`), 403);
    expectError(await call(people.zed, 'GET', `/v1/spaces/${space.id}/share-links`), 404);
    // A key of another space grants nothing here.
    const other = await createSpace(people.ada, { title: 'Other' });
    const otherKey = (await call(people.ada, 'POST', `/v1/spaces/${other.id}/share-links`)).body.key;
    expectError(await call(people.zed, 'GET', `/v1/spaces/${space.id}?shareKey=${otherKey}`), 404);

    expectStatus(await call(people.zed, 'GET', `/v1/spaces/${space.id}?shareKey=${first.body.key}`), 200);
    expectStatus(await call(people.ada, 'DELETE', `/v1/spaces/${space.id}/share-links/${first.body.key}`), 204);
    expectError(await call(people.zed, 'GET', `/v1/spaces/${space.id}?shareKey=${first.body.key}`), 404);
    expectStatus(await call(people.zed, 'GET', `/v1/spaces/${space.id}?shareKey=${second.body.key}`), 200);
    expectError(await call(people.ada, 'DELETE', `/v1/spaces/${space.id}/share-links/${first.body.key}`), 404);
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}/share-links`)).body.count).toBe(1);
  });

  it('DELETE with a stale ETag of the space (share links live in its stream) is 412 and the link keeps working; with the current one 204', async () => {
    const space = await createSpace(people.ada, { title: 'Shared conditionally' });
    await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { visibility: 'share-link' });
    const key = (await call(people.ada, 'POST', `/v1/spaces/${space.id}/share-links`)).body.key as string;
    const read = await call(people.ada, 'GET', `/v1/spaces/${space.id}`);
    const stale = `"${Number(JSON.parse(read.headers.etag)) - 1}"`;
    expectError(
      await call(people.ada, 'DELETE', `/v1/spaces/${space.id}/share-links/${key}`, undefined, { 'if-match': stale }),
      412,
      /If-Match/,
    );
    expectStatus(await call(people.zed, 'GET', `/v1/spaces/${space.id}?shareKey=${key}`), 200);
    const after = await call(people.ada, 'GET', `/v1/spaces/${space.id}`);
    expect({ etag: after.headers.etag, body: after.body }).toEqual({ etag: read.headers.etag, body: read.body });
    expectStatus(
      await call(people.ada, 'DELETE', `/v1/spaces/${space.id}/share-links/${key}`, undefined, { 'if-match': read.headers.etag }),
      204,
    );
    expectError(await call(people.zed, 'GET', `/v1/spaces/${space.id}?shareKey=${key}`), 404);
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).headers.etag).not.toBe(read.headers.etag);
  });

  it('answers a reader 403 and someone outside 404 whatever revision If-Match names: a 412 would answer someone who may not revoke', async () => {
    const space = await createSpace(people.ada, { title: 'Shared with readers' });
    const key = (await call(people.ada, 'POST', `/v1/spaces/${space.id}/share-links`)).body.key as string;
    const current = (await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).headers.etag;
    for (const ifMatch of [current, '"0"']) {
      expectError(await call(people.rita, 'DELETE', `/v1/spaces/${space.id}/share-links/${key}`, undefined, { 'if-match': ifMatch }), 403);
      expectError(await call(people.zed, 'DELETE', `/v1/spaces/${space.id}/share-links/${key}`, undefined, { 'if-match': ifMatch }), 404);
    }
    expect(
      (await call(people.ada, 'GET', `/v1/spaces/${space.id}/share-links`)).body.items.map((link: { key: string }) => link.key),
    ).toEqual([key]);
  });
});

describe('audit log', () => {
  it('records every change of a space', async () => {
    const space = await createSpace(people.ada, { title: 'Audited' });
    const collection = await createCollection(people.ada, { title: 'Audit box' });
    await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { title: 'Audited 2' });
    await call(people.ada, 'POST', `/v1/spaces/${space.id}/move`, { parent: collection.id });
    const key = (await call(people.ada, 'POST', `/v1/spaces/${space.id}/share-links`)).body.key;
    await call(people.ada, 'DELETE', `/v1/spaces/${space.id}/share-links/${key}`);
    await call(people.ada, 'DELETE', `/v1/spaces/${space.id}`);
    await call(people.ada, 'POST', `/v1/spaces/${space.id}/restore`);
    const copy = (await call(people.ada, 'POST', `/v1/spaces/${space.id}/duplicate`)).body;
    await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: secondOrganizationId });
    const log = await call(people.ada, 'GET', `/v1/orgs/${organizationId}/audit-events?target=${space.id}&limit=100`);
    expectStatus(log, 200);
    const actions = (log.body.items as Array<{ action: string; target: { type: string; id: string } }>).map((item) => item.action).sort();
    expect(actions).toEqual(
      [
        'space.created',
        'space.updated',
        'space.moved',
        'space.share_link_created',
        'space.share_link_revoked',
        'space.deleted',
        'space.restored',
        'space.transferred',
      ].sort(),
    );
    expect(log.body.items[0].target).toMatchObject({ type: 'space', id: space.id });
    const duplicated = await call(people.ada, 'GET', `/v1/orgs/${organizationId}/audit-events?target=${copy.id}`);
    expect(duplicated.body.items.map((item: { action: string }) => item.action)).toEqual(['space.duplicated']);
  });
});

describe('POST /transfer to an organization the caller is not in', () => {
  it('answers 404 no organization <id> whether or not it exists, and the space stays', async () => {
    const hidden = (await call(people.zed, 'POST', '/v1/orgs', { title: 'Hidden from ada' })).body.id as string;
    const space = await createSpace(people.ada, { title: 'Not leaving' });
    const existing = await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: hidden });
    const missing = await call(people.ada, 'POST', `/v1/spaces/${space.id}/transfer`, { organization: 'nosuchorganization0' });
    expect({ status: existing.status, body: existing.body }).toEqual({
      status: 404,
      body: { error: { code: 404, message: `no organization ${hidden}` } },
    });
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 404,
      body: { error: { code: 404, message: 'no organization nosuchorganization0' } },
    });
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).body.organization).toBe(organizationId);
  });
});

describe('concurrent creates, then moves next to each space', () => {
  it('creates many spaces at once and then places one before and after each of them as asked, never answering 5xx', async () => {
    const organization = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Crowd' })).body.id as string;
    // Created at once, many compute the same key at the end of the list.
    const created = await Promise.all(
      Array.from({ length: 60 }, (_, i) => call(people.ada, 'POST', `/v1/orgs/${organization}/spaces`, { title: `crowd ${i}` })),
    );
    expect(created.map((response) => response.status)).toEqual(created.map(() => 201));
    const list = () => listIds(people.ada, `/v1/orgs/${organization}/spaces`);
    let order = await list();
    expect([...order].sort()).toEqual(created.map((response) => response.body.id as string).sort());
    const mover = order[0];
    for (const [i, anchor] of [...order].entries()) {
      if (anchor === mover) continue;
      const where = i % 2 === 0 ? 'before' : 'after';
      const moved = await call(people.ada, 'POST', `/v1/spaces/${mover}/move`, { position: { [where]: { type: 'space', space: anchor } } });
      expect({ anchor, where, status: moved.status }).toEqual({ anchor, where, status: 200 });
      const expected = order.filter((id) => id !== mover);
      expected.splice(expected.indexOf(anchor) + (where === 'after' ? 1 : 0), 0, mover);
      order = await list();
      expect(order).toEqual(expected);
    }
  });

  it('places a space between two neighbours that share a key, and duplicates right after one of them', async () => {
    const organization = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Crowd 2' })).body.id as string;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(people.ada, 'POST', `/v1/orgs/${organization}/spaces`, { title: `pair ${i}` })),
    );
    const list = () => listIds(people.ada, `/v1/orgs/${organization}/spaces`);
    const order = await list();
    const [mover, a, b] = [order[order.length - 1], order[5], order[6]];
    expectStatus(
      await call(people.ada, 'POST', `/v1/spaces/${mover}/move`, {
        position: { after: { type: 'space', space: a }, before: { type: 'space', space: b } },
      }),
      200,
    );
    const placed = await list();
    expect(placed.slice(5, 8)).toEqual([a, mover, b]);
    const copy = await call(people.ada, 'POST', `/v1/spaces/${order[10]}/duplicate`);
    expectStatus(copy, 201);
    const withCopy = await list();
    expect(withCopy[withCopy.indexOf(order[10]) + 1]).toBe(copy.body.id);
    expect(withCopy.filter((id) => id !== copy.body.id)).toEqual(placed);
  });
});

describe('ids named like Object.prototype members', () => {
  it.each(['__proto__', 'constructor', 'toString'])(
    '%s names no parent, sibling, team or share link: 400 or 404, and nothing changes',
    async (id) => {
      const space = await createSpace(people.ada, { title: `Proto ${id}` });
      expectError(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'x', parent: id }), 400, /parent/);
      expectError(await call(people.ada, 'POST', `/v1/spaces/${space.id}/move`, { parent: id }), 400, /parent/);
      expectError(
        await call(people.ada, 'POST', `/v1/spaces/${space.id}/move`, { position: { before: { type: 'space', space: id } } }),
        400,
        /position/,
      );
      expectError(
        await call(people.ada, 'POST', `/v1/spaces/${space.id}/move`, { position: { after: { type: 'space', space: id } } }),
        400,
        /position/,
      );
      expectError(await call(people.ada, 'PUT', `/v1/spaces/${space.id}/teams/${id}`, { role: 'admin' }), 400, /teamId/);
      expectError(await call(people.ada, 'DELETE', `/v1/spaces/${space.id}/teams/${id}`), 404);
      expectError(await call(people.ada, 'DELETE', `/v1/spaces/${space.id}/share-links/${id}`), 404);
      const after = await call(people.ada, 'GET', `/v1/spaces/${space.id}`);
      expect(after.headers.etag).toBe('"0"');
      expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}/teams`)).body).toEqual({ count: 0, items: [] });
    },
  );
});

describe("the platform's Space shape", () => {
  it("answers emoji '' for a space without one, and a Space valid against the platform's schema", async () => {
    const space = await createSpace(people.ada, { title: 'Plain' });
    expect(space.emoji).toBe('');
    expect(platformSchemaProblem('Space', space)).toBeNull();
  });

  it('answers mergeRules inherit for a new space: the organization’s rules apply', async () => {
    const space = await createSpace(people.ada, { title: 'Inherits' });
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).body.mergeRules).toEqual({ type: 'inherit' });
  });

  it('answers permissions.installIntegration only to admins of the organization, not to an admin of the space by its default level', async () => {
    const space = await createSpace(people.ada, { title: 'Integrations here' });
    expectStatus(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { defaultLevel: 'admin' }), 200);
    const cora = (await call(people.cora, 'GET', `/v1/spaces/${space.id}`)).body.permissions;
    expect(cora).toMatchObject({ admin: true, installIntegration: false });
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).body.permissions.installIntegration).toBe(true);
  });
});

describe("PATCH /v1/spaces/{spaceId}: the platform's members", () => {
  const icon = 'https://cdn.example.test/icons/space.png';

  it("keeps defaultLevel 'inherit', which grants nothing of its own", async () => {
    const space = await createSpace(people.ada, { title: 'Inherit level' });
    const patched = await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { defaultLevel: 'inherit' });
    expectStatus(patched, 200);
    expect(patched.body.defaultLevel).toBe('inherit');
    expect((await call(people.rita, 'GET', `/v1/spaces/${space.id}`)).body.permissions).toMatchObject({ view: true, edit: false });
  });

  it('sets an icon, answered as urls.icon, in place of the emoji', async () => {
    const space = await createSpace(people.ada, { title: 'Iconic', emoji: '📘' });
    const patched = await call(people.cora, 'PATCH', `/v1/spaces/${space.id}`, { icon });
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({ emoji: '', urls: { icon } });
    expect(platformSchemaProblem('Space', patched.body)).toBeNull();
  });

  it('sets an emoji in place of the icon', async () => {
    const space = await createSpace(people.ada, { title: 'Back to emoji' });
    expectStatus(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { icon }), 200);
    const patched = await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { emoji: '🧭' });
    expect(patched.body.emoji).toBe('🧭');
    expect(patched.body.urls.icon).toBeUndefined();
  });

  it('removes the emoji and the icon with null for both', async () => {
    const space = await createSpace(people.ada, { title: 'Bare', emoji: '📘' });
    const patched = await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { emoji: null, icon: null });
    expectStatus(patched, 200);
    expect(patched.body.emoji).toBe('');
    expect(patched.body.urls.icon).toBeUndefined();
  });

  it('refuses an emoji and an icon together (400), and nothing changes', async () => {
    const space = await createSpace(people.ada, { title: 'Not both' });
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { emoji: '📘', icon }), 400, /emoji and icon/);
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).headers.etag).toBe('"0"');
  });

  it.each(['javascript:alert(1)', 'data:image/png;base64,AAAA', 'not a url', `https://example.test/${'i'.repeat(2048)}`])(
    'refuses the icon %s: an http(s) URL of at most 2048 characters (400 naming icon)',
    async (value) => {
      const space = await createSpace(people.ada, { title: 'Bad icon' });
      expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { icon: value }), 400, /icon/);
    },
  );

  it('sets the language, answered back', async () => {
    const space = await createSpace(people.ada, { title: 'Französisch' });
    const patched = await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { language: 'fr' });
    expectStatus(patched, 200);
    expect(patched.body.language).toBe('fr');
  });

  it('refuses a language outside the platform’s list (400 naming language)', async () => {
    const space = await createSpace(people.ada, { title: 'Klingon' });
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { language: 'tlh' }), 400, /language/);
  });

  it('sets merge rules, answered back as they were set', async () => {
    const space = await createSpace(people.ada, { title: 'Ruled' });
    const mergeRules = {
      type: 'rules',
      rules: [
        { rule: 'require_specific_reviewers', users: [people.rita.id] },
        { rule: 'custom', expression: 'changeRequest.subject != ""', message: 'name it' },
      ],
    };
    const patched = await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { mergeRules });
    expectStatus(patched, 200);
    expect(patched.body.mergeRules).toEqual(mergeRules);
    expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}`)).body.mergeRules).toEqual(mergeRules);
  });

  it.each([
    ['an unknown type', { type: 'some' }, /mergeRules must be/],
    ['rules without a list', { type: 'rules' }, /mergeRules\.rules/],
    ['an unknown rule', { type: 'rules', rules: [{ rule: 'require_magic' }] }, /mergeRules\.rules\[0\]\.rule/],
    ['users that are not ids', { type: 'rules', rules: [{ rule: 'allow_bypass', users: ['a b'] }] }, /mergeRules\.rules\[0\]\.users/],
    [
      'a member a rule does not have',
      { type: 'rules', rules: [{ rule: 'require_agent_review', users: [] }] },
      /mergeRules\.rules\[0\]\.users is not allowed/,
    ],
    ['a custom rule without expression', { type: 'rules', rules: [{ rule: 'custom' }] }, /expression/],
    ['a member next to none', { type: 'none', rules: [] }, /mergeRules\.rules is not allowed/],
  ])('refuses merge rules with %s (400 naming the member)', async (_what, mergeRules, message) => {
    const space = await createSpace(people.ada, { title: 'Badly ruled' });
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { mergeRules }), 400, message);
  });

  it('shows the user ids merge rules name only to members who may list members: people outside see the rules without them', async () => {
    const space = await createSpace(people.ada, { title: 'Public rules' });
    const mergeRules = {
      type: 'rules',
      rules: [{ rule: 'require_specific_reviewers', users: [people.rita.id] }, { rule: 'require_agent_review' }],
    };
    expectStatus(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { mergeRules, visibility: 'public' }), 200);
    expect((await call(people.rita, 'GET', `/v1/spaces/${space.id}`)).body.mergeRules).toEqual(mergeRules);
    const outside = { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [] }, { rule: 'require_agent_review' }] };
    expect((await call(people.zed, 'GET', `/v1/spaces/${space.id}`)).body.mergeRules).toEqual(outside);
    expect((await call(people.gus, 'GET', `/v1/spaces/${space.id}`)).body.mergeRules).toEqual(outside);
  });

  it('lets only admins change the language or the merge rules (403 for a creator)', async () => {
    const space = await createSpace(people.ada, { title: 'Admins decide' });
    expectError(await call(people.cora, 'PATCH', `/v1/spaces/${space.id}`, { language: 'de' }), 403);
    expectError(await call(people.cora, 'PATCH', `/v1/spaces/${space.id}`, { mergeRules: { type: 'none' } }), 403);
  });

  it('duplicates the icon, language and merge rules with the space', async () => {
    const space = await createSpace(people.ada, { title: 'Twin' });
    expectStatus(await call(people.ada, 'PATCH', `/v1/spaces/${space.id}`, { icon, language: 'ja', mergeRules: { type: 'none' } }), 200);
    const copy = await call(people.ada, 'POST', `/v1/spaces/${space.id}/duplicate`);
    expectStatus(copy, 201);
    expect(copy.body).toMatchObject({ urls: { icon }, language: 'ja', mergeRules: { type: 'none' } });
  });
});

describe("POST /v1/orgs/{organizationId}/spaces: the platform's members", () => {
  it('creates a space with a language and an edit mode', async () => {
    const space = await createSpace(people.ada, { title: 'Locked from the start', language: 'de', editMode: 'locked' });
    expect(space).toMatchObject({ language: 'de', editMode: 'locked' });
  });

  it("takes '' as no emoji", async () => {
    const space = await createSpace(people.ada, { title: 'Empty emoji', emoji: '' });
    expect(space.emoji).toBe('');
  });

  it('accepts empty: true and a template, which it does not act on: the space starts without pages', async () => {
    const empty = await createSpace(people.ada, { title: 'Empty', empty: true });
    const templated = await createSpace(people.ada, { title: 'Templated', template: { id: 'product-docs', params: {} } });
    for (const space of [empty, templated])
      expect((await call(people.ada, 'GET', `/v1/spaces/${space.id}/content/pages`)).body.pages).toEqual([]);
  });

  it('refuses empty: false and a template without id (400 naming them)', async () => {
    expectError(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'x', empty: false }), 400, /empty/);
    expectError(
      await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'x', template: { params: {} } }),
      400,
      /template/,
    );
    for (const template of [null, [], 'product-docs', 1])
      expectError(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'x', template }), 400, /template/);
  });
});

describe('POST /move: spaces and collections share one order under a parent', () => {
  async function spacesAndCollection(title: string) {
    const organization = (await call(people.ada, 'POST', '/v1/orgs', { title })).body.id as string;
    const a = await createSpace(people.ada, { title: 'a' }, () => organization);
    const b = await createSpace(people.ada, { title: 'b' }, () => organization);
    const box = (await call(people.ada, 'POST', `/v1/orgs/${organization}/collections`, { title: 'box' })).body.id as string;
    const d = await createSpace(people.ada, { title: 'd' }, () => organization);
    return { organization, a: a.id, b: b.id, box, d: d.id };
  }

  it('places a space before a collection: after the spaces before the collection, before those after it', async () => {
    const { organization, a, b, box, d } = await spacesAndCollection('Mixed before');
    const moved = await call(people.ada, 'POST', `/v1/spaces/${a}/move`, { position: { before: { type: 'collection', collection: box } } });
    expectStatus(moved, 200);
    expect(await listIds(people.ada, `/v1/orgs/${organization}/spaces`)).toEqual([b, a, d]);
  });

  it('places a space after a collection', async () => {
    const { organization, a, b, box, d } = await spacesAndCollection('Mixed after');
    expectStatus(
      await call(people.ada, 'POST', `/v1/spaces/${d}/move`, { position: { after: { type: 'collection', collection: box } } }),
      200,
    );
    expectStatus(
      await call(people.ada, 'POST', `/v1/spaces/${a}/move`, { position: { after: { type: 'collection', collection: box } } }),
      200,
    );
    expect(await listIds(people.ada, `/v1/orgs/${organization}/spaces`)).toEqual([b, a, d]);
  });

  it('refuses a collection that is not a sibling at the destination (400 naming it), and the space stays', async () => {
    const { organization, a, box } = await spacesAndCollection('Mixed refused');
    const inner = (await call(people.ada, 'POST', `/v1/orgs/${organization}/collections`, { title: 'inner', parent: box })).body
      .id as string;
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${a}/move`, { position: { before: { type: 'collection', collection: inner } } }),
      400,
      new RegExp(`collection ${inner}`),
    );
    expect((await call(people.ada, 'GET', `/v1/spaces/${a}`)).headers.etag).toBe('"0"');
  });

  it('refuses a pointer whose member does not match its type (400 naming position)', async () => {
    const { a, box } = await spacesAndCollection('Mixed shapes');
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${a}/move`, { position: { before: { type: 'collection', space: box } } }),
      400,
      /position\.before/,
    );
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${a}/move`, { position: { before: { type: 'site', site: box } } }),
      400,
      /position\.before/,
    );
  });
});
