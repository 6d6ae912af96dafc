/**
 * Change requests through HTTP against the embedded service: the lifecycle, content edits on the
 * request's own line, three-way merges into main and updates from main (with their 409 conflicts),
 * racing merges, reviews, the counters on the space, and the PDF behind a signed URL.
 *
 * The people: ada creates the organization (admin); eve edits (role `edit`); rita reads (`read`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument } from 'pdf-lib';
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let organizationId: string;
const people: Record<'ada' | 'eve' | 'rita', Person> = {} as never;

const call = (person: Person | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  service.request(method, path, { token: person?.token, body, headers });

const insert = (title: string, markdown: string, extra: Record<string, unknown> = {}) => ({
  operation: 'insert_page',
  title,
  document: { markdown },
  ...extra,
});

async function spaceWith(pages: Array<{ title: string; markdown: string }>): Promise<{ spaceId: string; pageIds: string[] }> {
  const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Docs' }), 201).body.id;
  if (pages.length === 0) return { spaceId, pageIds: [] };
  const written = ok(
    await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes: pages.map((page) => insert(page.title, page.markdown)) }),
  ).body;
  return { spaceId, pageIds: written.changes.map((change: { page: { id: string } }) => change.page.id) };
}

async function openRequest(spaceId: string, subject = 'Proposal', person: Person = people.ada): Promise<{ id: string; number: number }> {
  const created = ok(await call(person, 'POST', `/v1/spaces/${spaceId}/change-requests`, { subject }), 201).body;
  return { id: created.id, number: created.number };
}

const editRequest = (spaceId: string, requestId: string, changes: unknown[], person: Person = people.ada) =>
  call(person, 'POST', `/v1/spaces/${spaceId}/change-requests/${requestId}/content`, { changes });
const markdownOf = async (path: string) => ok(await call(people.ada, 'GET', `${path}?format=markdown`)).body.markdown as string;

/** A markdown file to import, on loopback; `/counted.md` counts how often an import fetched it. */
let site: Server;
let siteUrl: string;
let countedFetches = 0;

beforeAll(async () => {
  site = createServer((request, response) => {
    if (request.url === '/counted.md') countedFetches += 1;
    if (request.url === '/notes.md' || request.url === '/counted.md')
      return response.writeHead(200, { 'content-type': 'text/markdown' }).end('# Release notes\n\nShipped.\n');
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  service = await startService({ env: { IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const ada = await service.createUser('ada@cr.example', 'Ada Admin');
  const eve = await service.createUser('eve@cr.example', 'Eve Editor');
  const rita = await service.createUser('rita@cr.example', 'Rita Reader');
  people.ada = { id: ada.user.id, token: ada.token };
  people.eve = { id: eve.user.id, token: eve.token };
  people.rita = { id: rita.user.id, token: rita.token };
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Requests Inc' }), 201).body.id;
  await joinAs(service, organizationId, ada.token, [
    { token: eve.token, email: 'eve@cr.example', role: 'edit' },
    { token: rita.token, email: 'rita@cr.example', role: 'read' },
  ]);
});

afterAll(async () => {
  site?.close();
  await cleanUpServices();
});

describe('lifecycle', () => {
  it('creates a draft branching from main, numbered within the space', async () => {
    const { spaceId } = await spaceWith([{ title: 'Intro', markdown: 'Hello' }]);
    const space = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body;
    const created = ok(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Typos' }), 201);
    expect(created.headers.etag).toBeDefined();
    expect(created.body).toMatchObject({
      object: 'change-request',
      number: 1,
      status: 'draft',
      subject: 'Typos',
      revision: space.revision,
      revisionInitial: space.revision,
      outdated: false,
      comments: 0,
      createdBy: { id: people.eve.id },
    });
    expect((await openRequest(spaceId)).number).toBe(2);
  });

  it("accepts the platform's template member and opens the request as it would without one (no templates here)", async () => {
    const { spaceId } = await spaceWith([{ title: 'Intro', markdown: 'Hello' }]);
    const created = ok(
      await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests`, {
        subject: 'From a template',
        template: { id: 'release-notes', params: {} },
      }),
      201,
    ).body;
    const pages = ok(await call(people.eve, 'GET', `/v1/spaces/${spaceId}/change-requests/${created.id}/content/pages`)).body.pages;
    expect(pages.map((page: { title: string }) => page.title)).toEqual(['Intro']);
    expectError(
      await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests`, { template: { id: 'x', steps: [] } }),
      400,
      /template must be \{ id/,
    );
  });

  it('reads a request by id and by number', async () => {
    const { spaceId } = await spaceWith([]);
    const { id, number } = await openRequest(spaceId);
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${number}`)).body.id).toBe(id);
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.number).toBe(number);
  });

  it('gives unique numbers to requests created at once', async () => {
    const { spaceId } = await spaceWith([]);
    const created = await Promise.all(Array.from({ length: 8 }, () => openRequest(spaceId)));
    expect(new Set(created.map((request) => request.number)).size).toBe(8);
    expect(Math.max(...created.map((request) => request.number))).toBe(8);
  });

  it('lists open requests by default, newest first, and filters by status and contributor', async () => {
    const { spaceId } = await spaceWith([]);
    const first = await openRequest(spaceId);
    const second = await openRequest(spaceId, 'Second', people.eve);
    const draft = await openRequest(spaceId, 'Draft');
    for (const request of [first, second])
      ok(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${request.id}`, { status: 'open' }));
    const open = ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests`)).body;
    expect(open.items.map((item: { id: string }) => item.id)).toEqual([second.id, first.id]);
    expect(
      ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests?status=draft`)).body.items.map(
        (item: { id: string }) => item.id,
      ),
    ).toEqual([draft.id]);
    expect(
      ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests?contributor=${people.eve.id}`)).body.items.map(
        (item: { id: string }) => item.id,
      ),
    ).toEqual([second.id]);
    const paged = ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests?limit=1`)).body;
    expect(paged.items).toHaveLength(1);
    expect(
      ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests?limit=1&page=${paged.next.page}`)).body.items[0].id,
    ).toBe(first.id);
  });

  it('keeps the space counters by status', async () => {
    const { spaceId } = await spaceWith([]);
    const first = await openRequest(spaceId);
    await openRequest(spaceId);
    ok(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${first.id}`, { status: 'open' }));
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body).toMatchObject({
      changeRequests: 2,
      changeRequestsOpen: 1,
      changeRequestsDraft: 1,
    });
  });

  it('renames, archives and reopens; merged is final and an invalid move is 409', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    const path = `/v1/spaces/${spaceId}/change-requests/${id}`;
    expect(ok(await call(people.ada, 'PATCH', path, { subject: 'Renamed', status: 'archived' })).body).toMatchObject({
      subject: 'Renamed',
      status: 'archived',
    });
    expect(ok(await call(people.ada, 'PATCH', path, { status: 'open' })).body.status).toBe('open');
    expectError(await call(people.ada, 'PATCH', path, { status: 'merged' }), 409, /merge it with POST/);
    ok(await call(people.ada, 'POST', `${path}/merge`));
    expectError(await call(people.ada, 'PATCH', path, { status: 'open' }), 409, /final/);
  });

  it('refuses a subject over 100 characters and an unknown status', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${id}`, { subject: 'x'.repeat(101) }), 400);
    expectError(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${id}`, { status: 'closed' }), 400, /status/);
  });

  it('lets readers read but not create, and hides requests of spaces the caller cannot see', async () => {
    const { spaceId } = await spaceWith([]);
    expectError(await call(people.rita, 'POST', `/v1/spaces/${spaceId}/change-requests`, {}), 403);
    expectError(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/999`), 404);
  });
});

describe('content of a change request', () => {
  it('edits the request line without touching main', async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'Intro', markdown: 'Hello' }]);
    const { id } = await openRequest(spaceId);
    const written = ok(
      await editRequest(spaceId, id, [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'Hello, world' } }]),
    ).body;
    expect(written).toMatchObject({ changeRequest: id, changes: [{ object: 'updated_page' }] });
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.revision).toBe(written.revision);
    expect(await markdownOf(`/v1/spaces/${spaceId}/change-requests/${id}/content/page/${pageIds[0]}`)).toContain('Hello, world');
    expect(await markdownOf(`/v1/spaces/${spaceId}/content/page/${pageIds[0]}`)).not.toContain('world');
    const revision = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}/content`)).body;
    expect(revision.id).toBe(written.revision);
  });

  it('lists what the request changes against its base', async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'Intro', markdown: 'Hello' }]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [{ operation: 'update_page', page: pageIds[0], title: 'Welcome' }, insert('New', 'fresh')]));
    const changes = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}/changes`)).body.changes;
    expect(changes.map((change: { type: string }) => change.type).sort()).toEqual(['page_created', 'page_edited']);
  });

  it('refuses writes to an archived or merged request (409) and a stale If-Match (412)', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    const head = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.revision;
    ok(await editRequest(spaceId, id, [insert('One', 'x')]));
    expectError(
      await call(
        people.ada,
        'POST',
        `/v1/spaces/${spaceId}/change-requests/${id}/content`,
        { changes: [insert('Two', 'y')] },
        { 'if-match': `"${head}"` },
      ),
      412,
    );
    ok(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${id}`, { status: 'archived' }));
    expectError(await editRequest(spaceId, id, [insert('Three', 'z')]), 409, /archived/);
  });

  it('imports into the request, not into main', async () => {
    const { spaceId } = await spaceWith([{ title: 'A', markdown: 'a' }]);
    const { id } = await openRequest(spaceId);
    const imported = ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/content/import`, {
        source: 'markdown',
        url: `${siteUrl}/notes.md`,
      }),
    ).body;
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.revision).toBe(imported.revision);
    const titles = async (path: string) => ok(await call(people.ada, 'GET', path)).body.pages.map((page: { title: string }) => page.title);
    expect(await titles(`/v1/spaces/${spaceId}/change-requests/${id}/content/pages`)).toEqual(['A', 'Release notes']);
    expect(await titles(`/v1/spaces/${spaceId}/content/pages`)).toEqual(['A']);
  });

  it('takes edits through a request while the space is locked', async () => {
    const { spaceId } = await spaceWith([]);
    ok(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}`, { editMode: 'locked' }));
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('While locked', 'x')]));
    expectError(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`), 409, /locked/);
  });
});

describe('merge', () => {
  it('merges as a merge revision with two parents, and marks the request merged', async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'Intro', markdown: 'Hello' }]);
    const before = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body.revision;
    const { id } = await openRequest(spaceId);
    const head = ok(
      await editRequest(spaceId, id, [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'Hello, merged' } }]),
    ).body.revision;
    const merged = ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`)).body;

    expect(merged).toEqual({ revision: expect.any(String), result: 'merge' });
    const revision = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/revisions/${merged.revision}`)).body;
    expect(revision).toMatchObject({ type: 'merge', parents: [before, head], mergedFrom: { object: 'change-request', id } });
    expect(await markdownOf(`/v1/spaces/${spaceId}/content/page/${pageIds[0]}`)).toContain('Hello, merged');
    const request = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body;
    expect(request).toMatchObject({ status: 'merged', revisionMerged: merged.revision, outdated: false });
  });

  it('merges two requests editing different pages', async () => {
    const { spaceId, pageIds } = await spaceWith([
      { title: 'A', markdown: 'alpha' },
      { title: 'B', markdown: 'beta' },
    ]);
    const first = await openRequest(spaceId);
    const second = await openRequest(spaceId);
    ok(await editRequest(spaceId, first.id, [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'alpha one' } }]));
    ok(await editRequest(spaceId, second.id, [{ operation: 'update_page', page: pageIds[1], document: { markdown: 'beta two' } }]));
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${first.id}/merge`));
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${second.id}`)).body.outdated).toBe(true);
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${second.id}/merge`));
    expect(await markdownOf(`/v1/spaces/${spaceId}/content/page/${pageIds[0]}`)).toContain('alpha one');
    expect(await markdownOf(`/v1/spaces/${spaceId}/content/page/${pageIds[1]}`)).toContain('beta two');
  });

  it('answers 409 with the conflicts when two requests edit the same paragraph, and changes nothing', async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'A', markdown: 'The quick fox' }]);
    const first = await openRequest(spaceId);
    const second = await openRequest(spaceId);
    ok(await editRequest(spaceId, first.id, [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'The slow fox' } }]));
    ok(await editRequest(spaceId, second.id, [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'The lazy fox' } }]));
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${first.id}/merge`));
    const main = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body.revision;
    const refused = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${second.id}/merge`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 409,
      message: expect.stringMatching(/conflict/),
      conflicts: [{ page: { id: pageIds[0], title: 'A' }, kind: 'content' }],
    });
    expect(JSON.stringify(refused.body.error.conflicts[0])).toMatch(/lazy/);
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body.revision).toBe(main);
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${second.id}`)).body.status).toBe('draft');
  });

  it('merges a move on one side with an edit on the other', async () => {
    const { spaceId, pageIds } = await spaceWith([
      { title: 'Parent', markdown: 'p' },
      { title: 'Child', markdown: 'child text' },
    ]);
    const mover = await openRequest(spaceId);
    const editor = await openRequest(spaceId);
    ok(await editRequest(spaceId, mover.id, [{ operation: 'update_page', page: pageIds[1], into: pageIds[0] }]));
    ok(
      await editRequest(spaceId, editor.id, [{ operation: 'update_page', page: pageIds[1], document: { markdown: 'child text, edited' } }]),
    );
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${mover.id}/merge`));
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${editor.id}/merge`));
    const page = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageIds[1]}?format=markdown`)).body;
    expect(page.markdown).toContain('edited');
    expect(page.path).toBe('parent/child');
  });

  it('lets exactly one of two racing merges of the same request win', async () => {
    const { spaceId } = await spaceWith([{ title: 'A', markdown: 'a' }]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('Raced', 'r')]));
    const answers = await Promise.all([1, 2].map(() => call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const history = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/revisions`)).body.items;
    expect(history.filter((revision: { type: string }) => revision.type === 'merge')).toHaveLength(1);
  });

  it('merges two different requests racing each other, the second against the new main', async () => {
    const { spaceId } = await spaceWith([{ title: 'A', markdown: 'a' }]);
    const first = await openRequest(spaceId);
    const second = await openRequest(spaceId);
    ok(await editRequest(spaceId, first.id, [insert('First', 'one')]));
    ok(await editRequest(spaceId, second.id, [insert('Second', 'two')]));
    const answers = await Promise.all(
      [first, second].map((request) => call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${request.id}/merge`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const titles = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages.map(
      (page: { title: string }) => page.title,
    );
    expect(titles).toEqual(expect.arrayContaining(['A', 'First', 'Second']));
  });

  it('refuses merging for editors below review (403)', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId, 'Mine', people.eve);
    expectError(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`), 403, /review/);
  });
});

describe('update from main', () => {
  it('pulls main into the request, then merges', async () => {
    const { spaceId, pageIds } = await spaceWith([
      { title: 'A', markdown: 'alpha' },
      { title: 'B', markdown: 'beta' },
    ]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'alpha in request' } }]));
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'update_page', page: pageIds[1], document: { markdown: 'beta on main' } }],
      }),
    );
    const main = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body.revision;
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.outdated).toBe(true);
    const updated = ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/update`)).body;
    expect(updated).toEqual({ revision: expect.any(String), result: 'update' });
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body).toMatchObject({
      revision: updated.revision,
      revisionMergedAncestor: main,
      outdated: false,
    });
    expect(await markdownOf(`/v1/spaces/${spaceId}/change-requests/${id}/content/page/${pageIds[1]}`)).toContain('beta on main');
    const revision = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/revisions/${updated.revision}`)).body;
    expect(revision).toMatchObject({ type: 'update' });
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`));
    expect(await markdownOf(`/v1/spaces/${spaceId}/content/page/${pageIds[0]}`)).toContain('alpha in request');
    expect(await markdownOf(`/v1/spaces/${spaceId}/content/page/${pageIds[1]}`)).toContain('beta on main');
  });
});

describe('reviews', () => {
  it('records reviews on the current head and marks them outdated after a new revision', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId, 'Please review', people.eve);
    ok(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/requested-reviewers`, { users: [people.ada.id] }));
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}/requested-reviewers`)).body.items).toEqual([
      { object: 'requested-reviewer', user: expect.objectContaining({ id: people.ada.id }) },
    ]);
    const review = ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/reviews`, { status: 'approved', body: 'LGTM' }),
      201,
    ).body;
    expect(review).toMatchObject({ status: 'approved', outdated: false, reviewer: { id: people.ada.id } });
    ok(await editRequest(spaceId, id, [insert('Later', 'x')], people.eve));
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}/reviews/${review.id}`)).body.outdated).toBe(true);
    ok(await call(people.eve, 'DELETE', `/v1/spaces/${spaceId}/change-requests/${id}/requested-reviewers/${people.ada.id}`), 204);
  });

  it('refuses reviews from below review and from the author', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    expectError(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/reviews`, { status: 'approved' }), 403);
    expectError(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/reviews`, { status: 'approved' }), 403, /own/);
  });

  it('merges only with an approval of the latest revision when the organization requires one', async () => {
    const strictOrganization = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Strict Inc' }), 201).body.id;
    await joinAs(service, strictOrganization, people.ada.token, [{ token: people.eve.token, email: 'eve@cr.example', role: 'review' }]);
    ok(await call(people.ada, 'PATCH', `/v1/orgs/${strictOrganization}`, { changeRequestsRequireApproval: true }));
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${strictOrganization}/spaces`, { title: 'Strict' }), 201).body.id;
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('Reviewed', 'x')]));
    expectError(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`), 409, /needs an approval/);
    ok(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/reviews`, { status: 'approved' }), 201);
    ok(await editRequest(spaceId, id, [insert('After the approval', 'y')]));
    expectError(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`), 409, /needs an approval/);
    ok(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/reviews`, { status: 'approved' }), 201);
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`));
  });

  it("records the request's life in the audit log", async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('Audited', 'x')]));
    ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${id}/merge`));
    const actions = ok(await call(people.ada, 'GET', `/v1/orgs/${organizationId}/audit-events?target=${id}`)).body.items.map(
      (item: { action: string }) => item.action,
    );
    expect(actions).toEqual(expect.arrayContaining(['change_request.created', 'change_request.content_edited', 'change_request.merged']));
  });

  it('lists requests across the organization', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    ok(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${id}`, { status: 'open' }));
    const items = ok(await call(people.rita, 'GET', `/v1/orgs/${organizationId}/change-requests`)).body.items;
    expect(items.map((item: { id: string }) => item.id)).toContain(id);
  });
});

describe('PDF', () => {
  it('serves a PDF of the request behind a signed URL, one PDF page per content page', async () => {
    const { spaceId } = await spaceWith([
      { title: 'One', markdown: '# One\n\n- a\n- b\n\n```\ncode\n```' },
      { title: 'Two', markdown: 'two' },
    ]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('Three', 'three')]));
    const { url } = ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}/pdf`)).body;
    const path = new URL(url).pathname + new URL(url).search;
    const pdf = await service.request('GET', path, {});
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const bytes = pdf.bytes;
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(3);
    expectError(await service.request('GET', path.replace(/signature=[^&]+/, 'signature=forged'), {}), 404);
  });

  it('serves one page with only=true, and a page with its subpages otherwise', async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'Parent', markdown: 'p' }]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('Child one', 'c1', { into: pageIds[0] }), insert('Child two', 'c2', { into: pageIds[0] })]));
    const pagesOf = async (query: string) => {
      const { url } = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}/pdf?${query}`)).body;
      const pdf = ok(await service.request('GET', new URL(url).pathname + new URL(url).search, {}));
      return (await PDFDocument.load(pdf.bytes)).getPageCount();
    };
    expect(await pagesOf(`page=${pageIds[0]}`)).toBe(3);
    expect(await pagesOf(`page=${pageIds[0]}&only=true`)).toBe(1);
  });
});

describe("the platform's list filters", () => {
  const ids = async (spaceId: string, query: string) =>
    ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests${query}`)).body.items.map((item: { id: string }) => item.id);
  /** Two open requests: `first` by ada, created first but updated last; `second` by eve. */
  async function twoRequests() {
    const { spaceId } = await spaceWith([]);
    const first = await openRequest(spaceId, 'First');
    const second = await openRequest(spaceId, 'Second', people.eve);
    ok(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${second.id}`, { status: 'open' }));
    ok(await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${first.id}`, { status: 'open' }));
    return { spaceId, first, second };
  }

  it('orders by the last update by default, as the platform does', async () => {
    const { spaceId, first, second } = await twoRequests();
    expect(await ids(spaceId, '')).toEqual([first.id, second.id]);
    expect(await ids(spaceId, '?orderBy=updatedAt')).toEqual([first.id, second.id]);
  });

  it('orders by creation with orderBy=createdAt', async () => {
    const { spaceId, first, second } = await twoRequests();
    expect(await ids(spaceId, '?orderBy=createdAt')).toEqual([second.id, first.id]);
  });

  it('filters by creator', async () => {
    const { spaceId, second } = await twoRequests();
    expect(await ids(spaceId, `?creator=${people.eve.id}`)).toEqual([second.id]);
  });

  it('filters by requested reviewer', async () => {
    const { spaceId, first } = await twoRequests();
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${first.id}/requested-reviewers`, { users: [people.rita.id] }),
    );
    expect(await ids(spaceId, `?requestedReviewer=${people.rita.id}`)).toEqual([first.id]);
    expect(await ids(spaceId, `?requestedReviewer=${people.eve.id}`)).toEqual([]);
  });

  it('filters by topic: none here, since no request comes from a site topic', async () => {
    const { spaceId } = await twoRequests();
    expect(await ids(spaceId, '?topic=topic1')).toEqual([]);
  });

  it('refuses an unknown orderBy and a creator that is no user id (400 naming them)', async () => {
    const { spaceId } = await spaceWith([]);
    expectError(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests?orderBy=title`), 400, /orderBy/);
    expectError(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests?creator=__proto__`), 400, /creator/);
  });
});

describe('description and links', () => {
  const paragraph = (text: string) => ({
    object: 'document',
    data: {},
    nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
  });
  const patch = (spaceId: string, id: string, body: unknown, person: Person = people.eve, headers?: Record<string, string>) =>
    call(person, 'PATCH', `/v1/spaces/${spaceId}/change-requests/${id}`, body, headers);

  it('stores the description, a JSON document, and returns it on reads and in lists', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    const patched = ok(await patch(spaceId, id, { description: paragraph('Why this change') })).body;
    expect(patched.description).toMatchObject({
      object: 'document',
      nodes: [{ type: 'paragraph', nodes: [{ leaves: [{ text: 'Why this change' }] }] }],
    });
    expect(platformSchemaProblem('ChangeRequest', patched)).toBeNull();
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.description).toEqual(patched.description);
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests?status=draft`)).body.items[0].description).toEqual(
      patched.description,
    );
  });

  it('refuses a description that is no valid document (400 naming description), and one from a reader (403)', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    expectError(await patch(spaceId, id, { description: 'text' }), 400, /description/);
    expectError(
      await patch(spaceId, id, {
        description: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'no-such-block', nodes: [] }] },
      }),
      400,
    );
    expectError(await patch(spaceId, id, { description: paragraph('Mine') }, people.rita), 403);
  });

  it('stores links with ids of their own, keeps one sent back with its id, and removes those left out', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    const first = ok(
      await patch(spaceId, id, {
        links: [
          { ref: { kind: 'url', url: 'https://tickets.example/1' }, title: 'Ticket 1' },
          { ref: { kind: 'url', url: 'https://tickets.example/2' } },
        ],
      }),
    ).body;
    expect(first.links).toEqual([
      { id: expect.any(String), ref: { kind: 'url', url: 'https://tickets.example/1' }, title: 'Ticket 1' },
      { id: expect.any(String), ref: { kind: 'url', url: 'https://tickets.example/2' } },
    ]);
    expect(platformSchemaProblem('ChangeRequest', first)).toBeNull();
    const kept = first.links[1].id;
    const second = ok(
      await patch(spaceId, id, { links: [{ id: kept, ref: { kind: 'url', url: 'https://tickets.example/2b' }, title: 'Renamed' }] }),
    ).body;
    expect(second.links).toEqual([{ id: kept, ref: { kind: 'url', url: 'https://tickets.example/2b' }, title: 'Renamed' }]);
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.links).toEqual(second.links);
  });

  it('answers links: [] for a request without links', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.links).toEqual([]);
  });

  it('refuses a link id the request does not have, a URL that is not http(s), and more than ten links (400)', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    expectError(
      await patch(spaceId, id, { links: [{ id: 'NoSuchLink0000000000', ref: { kind: 'url', url: 'https://tickets.example/1' } }] }),
      400,
      /has no link NoSuchLink0000000000/,
    );
    expectError(await patch(spaceId, id, { links: [{ ref: { kind: 'url', url: 'javascript:alert(1)' } }] }), 400, /url/);
    expectError(await patch(spaceId, id, { links: [{ ref: { kind: 'file', url: 'https://tickets.example/1' } }] }), 400, /kind/);
    expectError(
      await patch(spaceId, id, {
        links: Array.from({ length: 11 }, (_, i) => ({ ref: { kind: 'url', url: `https://tickets.example/${i}` } })),
      }),
      400,
      /links/,
    );
  });

  it('answers 204 without the request when asked Prefer: return=minimal', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    const answer = await patch(spaceId, id, { subject: 'Quietly renamed' }, people.eve, { prefer: 'return=minimal' });
    expect(answer.status).toBe(204);
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${spaceId}/change-requests/${id}`)).body.subject).toBe('Quietly renamed');
  });
});

describe('If-Match on writes of a request (its ETag: the stream revision of the request)', () => {
  const requestPath = (spaceId: string, id: string) => `/v1/spaces/${spaceId}/change-requests/${id}`;
  /** A request whose ETag has moved on from `stale`, the tag a client read before the subject changed. */
  async function movedOn(spaceId: string, id: string): Promise<{ stale: string; current: string }> {
    const stale = ok(await call(people.ada, 'GET', requestPath(spaceId, id))).headers.etag as string;
    ok(await call(people.ada, 'PATCH', requestPath(spaceId, id), { subject: 'Renamed meanwhile' }));
    const current = ok(await call(people.ada, 'GET', requestPath(spaceId, id))).headers.etag as string;
    expect(current).not.toBe(stale);
    return { stale, current };
  }

  it('refuses removing a requested reviewer with a stale If-Match (412), keeping the reviewer', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    ok(await call(people.ada, 'POST', `${requestPath(spaceId, id)}/requested-reviewers`, { users: [people.eve.id] }));
    const { stale, current } = await movedOn(spaceId, id);
    expectError(
      await call(people.ada, 'DELETE', `${requestPath(spaceId, id)}/requested-reviewers/${people.eve.id}`, undefined, {
        'if-match': stale,
      }),
      412,
    );
    expect(ok(await call(people.ada, 'GET', `${requestPath(spaceId, id)}/requested-reviewers`)).body.items).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ id: people.eve.id }) }),
    ]);
    expect(ok(await call(people.ada, 'GET', requestPath(spaceId, id))).headers.etag).toBe(current);
  });

  it('removes a requested reviewer with the current ETag as If-Match (204)', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    ok(await call(people.ada, 'POST', `${requestPath(spaceId, id)}/requested-reviewers`, { users: [people.eve.id] }));
    const { current } = await movedOn(spaceId, id);
    ok(
      await call(people.ada, 'DELETE', `${requestPath(spaceId, id)}/requested-reviewers/${people.eve.id}`, undefined, {
        'if-match': current,
      }),
      204,
    );
    expect(ok(await call(people.ada, 'GET', `${requestPath(spaceId, id)}/requested-reviewers`)).body.items).toEqual([]);
  });

  it('refuses a merge with a stale If-Match (412), leaving main and the request as they were', async () => {
    const { spaceId } = await spaceWith([{ title: 'Intro', markdown: 'Hello' }]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('Proposed', 'x')]));
    const { stale, current } = await movedOn(spaceId, id);
    const main = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).headers.etag;
    expectError(await call(people.ada, 'POST', `${requestPath(spaceId, id)}/merge`, undefined, { 'if-match': stale }), 412);
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).headers.etag).toBe(main);
    const after = ok(await call(people.ada, 'GET', requestPath(spaceId, id)));
    expect({ etag: after.headers.etag, status: after.body.status }).toEqual({ etag: current, status: 'draft' });
  });

  it('merges with the current ETag as If-Match', async () => {
    const { spaceId } = await spaceWith([{ title: 'Intro', markdown: 'Hello' }]);
    const { id } = await openRequest(spaceId);
    ok(await editRequest(spaceId, id, [insert('Proposed', 'x')]));
    const { current } = await movedOn(spaceId, id);
    expect(ok(await call(people.ada, 'POST', `${requestPath(spaceId, id)}/merge`, undefined, { 'if-match': current })).body).toEqual({
      revision: expect.any(String),
      result: 'merge',
    });
    expect(ok(await call(people.ada, 'GET', requestPath(spaceId, id))).body.status).toBe('merged');
  });

  it("refuses an update from main with a stale If-Match (412), the request's head unchanged", async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'A', markdown: 'alpha' }]);
    const { id } = await openRequest(spaceId);
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'alpha on main' } }],
      }),
    );
    const { stale, current } = await movedOn(spaceId, id);
    const head = ok(await call(people.ada, 'GET', requestPath(spaceId, id))).body.revision;
    expectError(await call(people.ada, 'POST', `${requestPath(spaceId, id)}/update`, undefined, { 'if-match': stale }), 412);
    const after = ok(await call(people.ada, 'GET', requestPath(spaceId, id)));
    expect({ etag: after.headers.etag, revision: after.body.revision, outdated: after.body.outdated }).toEqual({
      etag: current,
      revision: head,
      outdated: true,
    });
    ok(await call(people.ada, 'POST', `${requestPath(spaceId, id)}/update`, undefined, { 'if-match': current }));
  });

  it('answers 403, not 412, to a write with a stale If-Match from someone whose role does not allow it', async () => {
    const { spaceId } = await spaceWith([]);
    const { id } = await openRequest(spaceId);
    const { stale } = await movedOn(spaceId, id);
    expectError(await call(people.eve, 'POST', `${requestPath(spaceId, id)}/merge`, undefined, { 'if-match': stale }), 403, /review/);
    expectError(
      await call(people.rita, 'DELETE', `${requestPath(spaceId, id)}/requested-reviewers/${people.eve.id}`, undefined, {
        'if-match': stale,
      }),
      403,
    );
  });

  it("answers a page of the request with the request's head revision as its ETag, the one its content answers", async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'A', markdown: 'alpha' }]);
    const { id } = await openRequest(spaceId);
    const head = ok(await editRequest(spaceId, id, [insert('B', 'beta')])).body.revision;
    expect(ok(await call(people.rita, 'GET', `${requestPath(spaceId, id)}/content/page/${pageIds[0]}`)).headers.etag).toBe(`"${head}"`);
    expect(ok(await call(people.rita, 'GET', `${requestPath(spaceId, id)}/content`)).headers.etag).toBe(`"${head}"`);
  });

  it('refuses an import into a page of the request with a stale If-Match (412) before fetching anything, and changes nothing', async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'A', markdown: 'alpha' }]);
    const { id } = await openRequest(spaceId);
    const pagePath = `${requestPath(spaceId, id)}/content/page/${pageIds[0]}`;
    const stale = ok(await call(people.ada, 'GET', pagePath)).headers.etag as string;
    ok(await editRequest(spaceId, id, [insert('B', 'beta')]));
    const current = ok(await call(people.ada, 'GET', pagePath)).headers.etag;
    const fetchesBefore = countedFetches;
    expectError(
      await call(people.ada, 'POST', `${pagePath}/import`, { source: 'markdown', url: `${siteUrl}/counted.md` }, { 'if-match': stale }),
      412,
    );
    expect(countedFetches).toBe(fetchesBefore);
    expect(ok(await call(people.ada, 'GET', pagePath)).headers.etag).toBe(current);
  });

  it("imports into a page of the request with its current ETag as If-Match, answering the request's new head as ETag", async () => {
    const { spaceId, pageIds } = await spaceWith([{ title: 'A', markdown: 'alpha' }]);
    const { id } = await openRequest(spaceId);
    const pagePath = `${requestPath(spaceId, id)}/content/page/${pageIds[0]}`;
    const current = ok(await call(people.ada, 'GET', pagePath)).headers.etag as string;
    const imported = ok(
      await call(people.ada, 'POST', `${pagePath}/import`, { source: 'markdown', url: `${siteUrl}/notes.md` }, { 'if-match': current }),
    );
    expect(imported.headers.etag).toBe(`"${imported.body.revision}"`);
    expect(ok(await call(people.ada, 'GET', pagePath)).headers.etag).toBe(imported.headers.etag);
  });
});
