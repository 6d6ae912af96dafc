/**
 * Collections through HTTP against the embedded service: create, get, patch, delete (children
 * move up to the deleted collection's parent), spaces of a collection, move (never into its own
 * subtree), transfer, the `nested` flag of the organization list, permissions and the audit log.
 *
 * ada creates the organization (admin) and a second one; rita (read) and gus (guest) are invited and accept.
 */
import { joinAs } from './support/members';
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}
interface Collection {
  object: 'collection';
  id: string;
  title: string;
  description?: string;
  organization: string;
  parent?: string;
  defaultLevel: string | null;
  urls: { location: string; app: string };
  permissions: { view: boolean; admin: boolean; viewInviteLinks: boolean; create: boolean };
}

let service: RunningService;
let ada: Person;
let rita: Person;
let gus: Person;
let zed: Person;
let secondOrganizationId: string;

const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });

function expectStatus(response: Response, status: number): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: status === 204 ? '' : expect.anything() });
}

async function organization(title: string): Promise<string> {
  const response = await call(ada, 'POST', '/v1/orgs', { title });
  const organizationId = response.body.id as string;
  await joinAs(service, organizationId, ada.token, [
    { token: rita.token, email: 'rita@collections.example', role: 'read' },
    { token: gus.token, email: 'gus@collections.example', role: null },
  ]);
  return organizationId;
}

async function createCollection(organizationId: string, body: Record<string, unknown> = {}): Promise<Collection> {
  const response = await call(ada, 'POST', `/v1/orgs/${organizationId}/collections`, body);
  if (response.status !== 201) throw new Error(`POST /collections answered ${response.status}: ${response.text.slice(0, 500)}`);
  return response.body;
}

async function createSpace(organizationId: string, body: Record<string, unknown> = {}): Promise<{ id: string; parent?: string }> {
  const response = await call(ada, 'POST', `/v1/orgs/${organizationId}/spaces`, body);
  if (response.status !== 201) throw new Error(`POST /spaces answered ${response.status}: ${response.text.slice(0, 500)}`);
  return response.body;
}

async function ids(path: string, by: Person = ada): Promise<string[]> {
  const response = await call(by, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=1000`);
  expectStatus(response, 200);
  return response.body.items.map((item: { id: string }) => item.id);
}

beforeAll(async () => {
  service = await startService();
  const a = await service.createUser('ada@collections.example', 'Ada Admin');
  const z = await service.createUser('zed@elsewhere.example', 'Zed Outside');
  ada = { id: a.user.id, token: a.token };
  zed = { id: z.user.id, token: z.token };
  const r = await service.createUser('rita@collections.example', 'Rita Reader');
  const g = await service.createUser('gus@collections.example', 'Gus Guest');
  rita = { id: r.user.id, token: r.token };
  gus = { id: g.user.id, token: g.token };
  await organization('Collections Inc');
  secondOrganizationId = (await call(ada, 'POST', '/v1/orgs', { title: 'Second' })).body.id;
});

afterAll(cleanUpServices);

describe('create, get and patch', () => {
  it('creates and reads a collection with every field, absolute urls and per-caller permissions', async () => {
    const organizationId = await organization('Shape');
    const created = await call(ada, 'POST', `/v1/orgs/${organizationId}/collections`, { title: 'Guides' });
    expectStatus(created, 201);
    expect(created.body).toEqual({
      object: 'collection',
      id: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      title: 'Guides',
      organization: organizationId,
      defaultLevel: null,
      urls: {
        location: `${service.url}/v1/collections/${created.body.id}`,
        app: `${service.url}/o/${organizationId}/c/${created.body.id}`,
      },
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
    });
    expect((await call(rita, 'GET', `/v1/collections/${created.body.id}`)).body.permissions).toEqual({
      view: true,
      admin: false,
      viewInviteLinks: false,
      create: false,
    });
    expectError(await call(gus, 'GET', `/v1/collections/${created.body.id}`), 404);
    expectError(await call(zed, 'GET', `/v1/collections/${created.body.id}`), 404);
    expectError(await call(rita, 'POST', `/v1/orgs/${organizationId}/collections`, { title: 'No' }), 403);
    expectError(await call(ada, 'POST', `/v1/orgs/${organizationId}/collections`, { title: 'x'.repeat(129) }), 400, /title/);
    expectError(await call(ada, 'POST', `/v1/orgs/${organizationId}/collections`, { parent: 'nosuchcollection' }), 400, /parent/);
    const child = await createCollection(organizationId, { title: 'Child', parent: created.body.id });
    expect(child.parent).toBe(created.body.id);
  });

  it('patches title, description and defaultLevel; the default level reaches the spaces inside', async () => {
    const organizationId = await organization('Patch');
    const collection = await createCollection(organizationId, { title: 'Before' });
    const space = await createSpace(organizationId, { title: 'Inside', parent: collection.id });
    const patched = await call(ada, 'PATCH', `/v1/collections/${collection.id}`, {
      title: 'After',
      description: 'About it',
      defaultLevel: 'edit',
    });
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({ title: 'After', description: 'About it', defaultLevel: 'edit' });
    expect((await call(rita, 'GET', `/v1/spaces/${space.id}`)).body.permissions).toMatchObject({ edit: true, admin: false });
    expect((await call(rita, 'GET', `/v1/collections/${collection.id}`)).body.permissions).toMatchObject({ create: false, admin: false });
    expectError(await call(rita, 'PATCH', `/v1/collections/${collection.id}`, { title: 'No' }), 403);
    expectError(await call(ada, 'PATCH', `/v1/collections/${collection.id}`, { defaultLevel: 'boss' }), 400, /defaultLevel/);
  });
});

describe('GET /v1/orgs/{organizationId}/collections with nested', () => {
  it('lists every collection by default and only top-level ones with nested=false', async () => {
    const organizationId = await organization('Nested');
    const top1 = await createCollection(organizationId, { title: 'Top 1' });
    const top2 = await createCollection(organizationId, { title: 'Top 2' });
    const inner = await createCollection(organizationId, { title: 'Inner', parent: top1.id });
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([top1.id, top2.id, inner.id]);
    expect(await ids(`/v1/orgs/${organizationId}/collections?nested=true`)).toEqual([top1.id, top2.id, inner.id]);
    expect(await ids(`/v1/orgs/${organizationId}/collections?nested=false`)).toEqual([top1.id, top2.id]);
    expect(await ids(`/v1/orgs/${organizationId}/collections`, gus)).toEqual([]);
    expectError(await call(ada, 'GET', `/v1/orgs/${organizationId}/collections?nested=maybe`), 400, /nested/);
    expectError(await call(zed, 'GET', `/v1/orgs/${organizationId}/collections`), 404);
    const paged = await call(ada, 'GET', `/v1/orgs/${organizationId}/collections?limit=2`);
    expect(paged.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
  });
});

describe('GET /v1/collections/{collectionId}/spaces', () => {
  it('lists the live spaces of the collection in order', async () => {
    const organizationId = await organization('Spaces of');
    const collection = await createCollection(organizationId, { title: 'Box' });
    const a = await createSpace(organizationId, { title: 'a', parent: collection.id });
    const b = await createSpace(organizationId, { title: 'b', parent: collection.id });
    await createSpace(organizationId, { title: 'outside' });
    expect(await ids(`/v1/collections/${collection.id}/spaces`)).toEqual([a.id, b.id]);
    expectStatus(await call(ada, 'DELETE', `/v1/spaces/${a.id}`), 204);
    expect(await ids(`/v1/collections/${collection.id}/spaces`)).toEqual([b.id]);
    expectError(await call(zed, 'GET', `/v1/collections/${collection.id}/spaces`), 404);
  });
});

describe('POST /v1/collections/{collectionId}/move', () => {
  it('reorders siblings, nests and un-nests, and refuses moves into its own subtree (400)', async () => {
    const organizationId = await organization('Move');
    const a = await createCollection(organizationId, { title: 'a' });
    const b = await createCollection(organizationId, { title: 'b' });
    const c = await createCollection(organizationId, { title: 'c' });
    expectStatus(
      await call(ada, 'POST', `/v1/collections/${c.id}/move`, { position: { before: { type: 'collection', collection: a.id } } }),
      200,
    );
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([c.id, a.id, b.id]);
    const nested = await call(ada, 'POST', `/v1/collections/${b.id}/move`, { parent: a.id });
    expect(nested.body.parent).toBe(a.id);
    expect(await ids(`/v1/orgs/${organizationId}/collections?nested=false`)).toEqual([c.id, a.id]);
    expectError(await call(ada, 'POST', `/v1/collections/${a.id}/move`, { parent: b.id }), 400, /descendants/);
    expectError(await call(ada, 'POST', `/v1/collections/${a.id}/move`, { parent: a.id }), 400, /itself/);
    expectError(await call(rita, 'POST', `/v1/collections/${a.id}/move`, { parent: null }), 403);
    const back = await call(ada, 'POST', `/v1/collections/${b.id}/move`, {
      parent: null,
      position: { after: { type: 'collection', collection: c.id } },
    });
    expect(back.body.parent).toBeUndefined();
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([c.id, b.id, a.id]);
  });
});

describe('POST /v1/collections/{collectionId}/transfer', () => {
  it('moves the collection with its sub-collections and spaces to another organization', async () => {
    const organizationId = await organization('Transfer');
    const root = await createCollection(organizationId, { title: 'Root' });
    const inner = await createCollection(organizationId, { title: 'Inner', parent: root.id });
    const s1 = await createSpace(organizationId, { title: 's1', parent: root.id });
    const s2 = await createSpace(organizationId, { title: 's2', parent: inner.id });
    expectError(await call(ada, 'POST', `/v1/collections/${root.id}/transfer`, { organization: organizationId }), 400);
    const moved = await call(ada, 'POST', `/v1/collections/${root.id}/transfer`, { organization: secondOrganizationId });
    expectStatus(moved, 200);
    expect(moved.body).toMatchObject({ organization: secondOrganizationId });
    expect(moved.body.parent).toBeUndefined();
    expect(await ids(`/v1/orgs/${secondOrganizationId}/collections`)).toEqual(expect.arrayContaining([root.id, inner.id]));
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([]);
    expect(await ids(`/v1/orgs/${secondOrganizationId}/spaces`)).toEqual(expect.arrayContaining([s1.id, s2.id]));
    expect((await call(ada, 'GET', `/v1/spaces/${s2.id}`)).body).toMatchObject({ organization: secondOrganizationId, parent: inner.id });
    expectError(await call(rita, 'GET', `/v1/collections/${root.id}`), 404);
  });
});

describe('DELETE /v1/collections/{collectionId}', () => {
  it('moves its spaces and collections up to its parent, then deletes it; no child points to it', async () => {
    const organizationId = await organization('Delete');
    const outer = await createCollection(organizationId, { title: 'Outer' });
    const doomed = await createCollection(organizationId, { title: 'Doomed', parent: outer.id });
    const keep = await createSpace(organizationId, { title: 'already in outer', parent: outer.id });
    const child = await createCollection(organizationId, { title: 'Child', parent: doomed.id });
    const s1 = await createSpace(organizationId, { title: 's1', parent: doomed.id });
    const s2 = await createSpace(organizationId, { title: 's2', parent: doomed.id });
    expectStatus(await call(ada, 'DELETE', `/v1/spaces/${s2.id}`), 204);
    expectError(await call(rita, 'DELETE', `/v1/collections/${doomed.id}`), 403);

    expectStatus(await call(ada, 'DELETE', `/v1/collections/${doomed.id}`), 204);
    expectError(await call(ada, 'GET', `/v1/collections/${doomed.id}`), 404);
    expect(await ids(`/v1/collections/${outer.id}/spaces`)).toEqual([keep.id, s1.id]);
    expect((await call(ada, 'GET', `/v1/collections/${child.id}`)).body.parent).toBe(outer.id);
    // The deleted space moved too: restored, it is in a live collection.
    const restored = await call(ada, 'POST', `/v1/spaces/${s2.id}/restore`);
    expect(restored.body.parent).toBe(outer.id);
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([outer.id, child.id]);

    // A top-level collection's spaces go to the top level, where in-collection becomes private.
    const top = await createCollection(organizationId, { title: 'Top' });
    const inside = await createSpace(organizationId, { title: 'inside', parent: top.id });
    expectStatus(await call(ada, 'DELETE', `/v1/collections/${top.id}`), 204);
    const after = (await call(ada, 'GET', `/v1/spaces/${inside.id}`)).body;
    expect(after.parent).toBeUndefined();
    expect(after.visibility).toBe('private');
    expectError(await call(ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { parent: top.id }), 400, /parent/);
  });
});

describe('audit log', () => {
  it('records every change of a collection', async () => {
    const organizationId = await organization('Audit');
    const collection = await createCollection(organizationId, { title: 'Audited' });
    const other = await createCollection(organizationId, { title: 'Other' });
    await call(ada, 'PATCH', `/v1/collections/${collection.id}`, { description: 'd' });
    await call(ada, 'POST', `/v1/collections/${collection.id}/move`, { parent: other.id });
    await call(ada, 'POST', `/v1/collections/${collection.id}/move`, { parent: null });
    await call(ada, 'POST', `/v1/collections/${collection.id}/transfer`, { organization: secondOrganizationId });
    const log = await call(ada, 'GET', `/v1/orgs/${organizationId}/audit-events?target=${collection.id}&limit=100`);
    expect(log.body.items.map((item: { action: string }) => item.action).sort()).toEqual([
      'collection.created',
      'collection.moved',
      'collection.moved',
      'collection.transferred',
      'collection.updated',
    ]);
    await call(ada, 'DELETE', `/v1/collections/${collection.id}`);
    const second = await call(ada, 'GET', `/v1/orgs/${secondOrganizationId}/audit-events?target=${collection.id}`);
    expect(second.body.items.map((item: { action: string }) => item.action)).toEqual(['collection.deleted']);
  });
});

describe('If-Match on collection writes', () => {
  const write = (method: string, path: string, ifMatch: string, body?: unknown) =>
    service.request(method, path, { token: ada.token, body, headers: { 'if-match': ifMatch } });

  it('PATCH with the current ETag changes the collection (200, next ETag); with a stale one 412 and nothing changes', async () => {
    const collection = await createCollection(await organization('If-Match patch'), { title: 'Before' });
    const patched = await write('PATCH', `/v1/collections/${collection.id}`, '"0"', { title: 'After' });
    expectStatus(patched, 200);
    expect(patched.headers.etag).toBe('"1"');
    expectError(await write('PATCH', `/v1/collections/${collection.id}`, '"0"', { title: 'Stale' }), 412);
    expect((await call(ada, 'GET', `/v1/collections/${collection.id}`)).body.title).toBe('After');
  });

  it('POST /move with the current ETag moves it; with a stale one 412 and it stays', async () => {
    const organizationId = await organization('If-Match move');
    const box = await createCollection(organizationId, { title: 'Box' });
    const collection = await createCollection(organizationId, { title: 'Mover' });
    expectError(await write('POST', `/v1/collections/${collection.id}/move`, '"1"', { parent: box.id }), 412);
    expect((await call(ada, 'GET', `/v1/collections/${collection.id}`)).body.parent).toBeUndefined();
    const moved = await write('POST', `/v1/collections/${collection.id}/move`, '"0"', { parent: box.id });
    expectStatus(moved, 200);
    expect(moved.body.parent).toBe(box.id);
    expect(moved.headers.etag).toBe('"1"');
  });

  it('POST /transfer with a stale ETag is 412 and it stays; with the current one it goes', async () => {
    const organizationId = await organization('If-Match transfer');
    const collection = await createCollection(organizationId, { title: 'Traveller' });
    expectError(await write('POST', `/v1/collections/${collection.id}/transfer`, '"3"', { organization: secondOrganizationId }), 412);
    expect((await call(ada, 'GET', `/v1/collections/${collection.id}`)).body.organization).toBe(organizationId);
    const moved = await write('POST', `/v1/collections/${collection.id}/transfer`, '"0"', { organization: secondOrganizationId });
    expectStatus(moved, 200);
    expect(moved.body.organization).toBe(secondOrganizationId);
  });

  it('DELETE with a stale ETag is 412 and the collection and its spaces stay; with the current one 204', async () => {
    const organizationId = await organization('If-Match delete');
    const collection = await createCollection(organizationId, { title: 'Doomed' });
    const space = await createSpace(organizationId, { title: 'inside', parent: collection.id });
    expectStatus(await call(ada, 'PATCH', `/v1/collections/${collection.id}`, { description: 'now at 1' }), 200);
    expectError(await write('DELETE', `/v1/collections/${collection.id}`, '"0"'), 412);
    expectStatus(await call(ada, 'GET', `/v1/collections/${collection.id}`), 200);
    expect((await call(ada, 'GET', `/v1/spaces/${space.id}`)).body.parent).toBe(collection.id);
    expectStatus(await write('DELETE', `/v1/collections/${collection.id}`, '"1"'), 204);
    expectError(await call(ada, 'GET', `/v1/collections/${collection.id}`), 404);
  });
});

describe('POST /v1/collections/{collectionId}/transfer to an organization the caller is not in', () => {
  it('answers 404 no organization <id> whether or not it exists, and the collection stays', async () => {
    const organizationId = await organization('Oracle');
    const hidden = (await call(zed, 'POST', '/v1/orgs', { title: 'Not ada’s' })).body.id as string;
    const collection = await createCollection(organizationId, { title: 'Stays' });
    const existing = await call(ada, 'POST', `/v1/collections/${collection.id}/transfer`, { organization: hidden });
    const missing = await call(ada, 'POST', `/v1/collections/${collection.id}/transfer`, { organization: 'nosuchorganization0' });
    expect({ status: existing.status, body: existing.body }).toEqual({
      status: 404,
      body: { error: { code: 404, message: `no organization ${hidden}` } },
    });
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 404,
      body: { error: { code: 404, message: 'no organization nosuchorganization0' } },
    });
    expect((await call(ada, 'GET', `/v1/collections/${collection.id}`)).body.organization).toBe(organizationId);
  });
});

describe('concurrent creates, then moves next to each collection', () => {
  it('creates many collections at once and then places one before and after each of them as asked, never answering 5xx', async () => {
    const organizationId = await organization('Crowd');
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call(ada, 'POST', `/v1/orgs/${organizationId}/collections`, { title: `crowd ${i}` })),
    );
    expect(created.map((response) => response.status)).toEqual(created.map(() => 201));
    const list = () => ids(`/v1/orgs/${organizationId}/collections`);
    let order = await list();
    const mover = order[0];
    for (const [i, anchor] of [...order].entries()) {
      if (anchor === mover) continue;
      const where = i % 2 === 0 ? 'before' : 'after';
      const moved = await call(ada, 'POST', `/v1/collections/${mover}/move`, {
        position: { [where]: { type: 'collection', collection: anchor } },
      });
      expect({ anchor, where, status: moved.status }).toEqual({ anchor, where, status: 200 });
      const expected = order.filter((id) => id !== mover);
      expected.splice(expected.indexOf(anchor) + (where === 'after' ? 1 : 0), 0, mover);
      order = await list();
      expect(order).toEqual(expected);
    }
  });
});

describe('ids named like Object.prototype members', () => {
  it.each(['__proto__', 'constructor', 'toString'])('%s names no parent or sibling collection: 400, and nothing changes', async (id) => {
    const organizationId = await organization(`Proto ${id}`);
    const collection = await createCollection(organizationId, { title: 'Box' });
    expectError(await call(ada, 'POST', `/v1/orgs/${organizationId}/collections`, { title: 'x', parent: id }), 400, /parent/);
    expectError(await call(ada, 'POST', `/v1/collections/${collection.id}/move`, { parent: id }), 400, /parent/);
    expectError(
      await call(ada, 'POST', `/v1/collections/${collection.id}/move`, { position: { before: { type: 'collection', collection: id } } }),
      400,
      /position/,
    );
    expectError(
      await call(ada, 'POST', `/v1/collections/${collection.id}/move`, { position: { after: { type: 'collection', collection: id } } }),
      400,
      /position/,
    );
    expect((await call(ada, 'GET', `/v1/collections/${collection.id}`)).headers.etag).toBe('"0"');
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([collection.id]);
  });
});

describe("the platform's members of collections", () => {
  it("keeps defaultLevel 'inherit', which grants nothing of its own", async () => {
    const organizationId = await organization('Inherit');
    const collection = await createCollection(organizationId, { title: 'Inherits' });
    const patched = await call(ada, 'PATCH', `/v1/collections/${collection.id}`, { defaultLevel: 'inherit' });
    expectStatus(patched, 200);
    expect(patched.body.defaultLevel).toBe('inherit');
    expect((await call(rita, 'GET', `/v1/collections/${collection.id}`)).body.permissions).toEqual({
      view: true,
      admin: false,
      viewInviteLinks: false,
      create: false,
    });
  });

  it('refuses a defaultLevel that is no role nor inherit (400 naming defaultLevel)', async () => {
    const organizationId = await organization('Bad level');
    const collection = await createCollection(organizationId, { title: 'Level' });
    expectError(await call(ada, 'PATCH', `/v1/collections/${collection.id}`, { defaultLevel: 'owner' }), 400, /defaultLevel/);
  });

  it('places a collection after a space: collections and spaces share one order under a parent', async () => {
    const organizationId = await organization('Mixed order');
    const x = await createCollection(organizationId, { title: 'x' });
    const y = await createCollection(organizationId, { title: 'y' });
    const space = await createSpace(organizationId, { title: 's' });
    expectStatus(await call(ada, 'POST', `/v1/collections/${x.id}/move`, { position: { after: { type: 'space', space: space.id } } }), 200);
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([y.id, x.id]);
  });

  it('places a collection before a space', async () => {
    const organizationId = await organization('Mixed before');
    const space = await createSpace(organizationId, { title: 's' });
    const x = await createCollection(organizationId, { title: 'x' });
    const y = await createCollection(organizationId, { title: 'y' });
    expectStatus(
      await call(ada, 'POST', `/v1/collections/${y.id}/move`, { position: { before: { type: 'space', space: space.id } } }),
      200,
    );
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([y.id, x.id]);
  });

  it('refuses a space that is not a sibling at the destination (400 naming it), and the collection stays', async () => {
    const organizationId = await organization('Mixed refused');
    const box = await createCollection(organizationId, { title: 'box' });
    const other = await createCollection(organizationId, { title: 'other' });
    const inside = await createSpace(organizationId, { title: 'inside', parent: box.id });
    expectError(
      await call(ada, 'POST', `/v1/collections/${other.id}/move`, { position: { before: { type: 'space', space: inside.id } } }),
      400,
      new RegExp(`space ${inside.id}`),
    );
    expect((await call(ada, 'GET', `/v1/collections/${other.id}`)).headers.etag).toBe('"0"');
  });

  it('keeps the order of spaces and collections moving up from a deleted collection', async () => {
    const organizationId = await organization('Mixed delete');
    const doomed = await createCollection(organizationId, { title: 'doomed' });
    const first = await createSpace(organizationId, { title: 'first', parent: doomed.id });
    const inner = await createCollection(organizationId, { title: 'inner', parent: doomed.id });
    const last = await createSpace(organizationId, { title: 'last', parent: doomed.id });
    const after = await createCollection(organizationId, { title: 'after' });
    expectStatus(
      await call(ada, 'POST', `/v1/spaces/${last.id}/move`, { position: { before: { type: 'collection', collection: inner.id } } }),
      200,
    );
    expectStatus(await call(ada, 'DELETE', `/v1/collections/${doomed.id}`), 204);
    // At the top level, after what was there: `after`, then first, last, inner in their order.
    expect(await ids(`/v1/orgs/${organizationId}/collections`)).toEqual([after.id, inner.id]);
    expect(await ids(`/v1/orgs/${organizationId}/spaces`)).toEqual([first.id, last.id]);
    expectStatus(
      await call(ada, 'POST', `/v1/spaces/${first.id}/move`, { position: { after: { type: 'collection', collection: inner.id } } }),
      200,
    );
    expect(await ids(`/v1/orgs/${organizationId}/spaces`)).toEqual([last.id, first.id]);
  });
});
