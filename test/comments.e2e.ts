/**
 * Comments through HTTP against the embedded service, in both groups (a space's content and a
 * change request's): threads, replies, the resolve/reopen state table, reactions by several people,
 * mentions, `outdated` after a page edit, the open counters on the space and on the request, the
 * commenters, and who may do what.
 *
 * The people: ada creates the organization (admin); cleo comments (role `comment`); eve edits
 * (`edit`); rita reads (`read`).
 */
import { joinAs } from './support/members';
import { cleanUpServices, expectError, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let organizationId: string;
const people: Record<'ada' | 'cleo' | 'eve' | 'rita', Person> = {} as never;

const call = (person: Person | null, method: string, path: string, body?: unknown) => service.request(method, path, { token: person?.token, body });

interface Fixture {
  spaceId: string;
  pageId: string;
  /** Keys of the page's first and second paragraphs. */
  keys: [string, string];
}

async function space(): Promise<Fixture> {
  const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Docs' }), 201).body.id;
  const written = ok(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes: [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'First paragraph.\n\nSecond paragraph.' } }] })).body;
  const pageId = written.changes[0].page.id;
  const page = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}`)).body;
  return { spaceId, pageId, keys: [page.document.nodes[0].key, page.document.nodes[1].key] };
}

/** The two groups: a space's own comments, and a change request's. */
const groups = [
  { name: 'space', base: async (f: Fixture) => `/v1/spaces/${f.spaceId}` },
  {
    name: 'change request',
    base: async (f: Fixture) => `/v1/spaces/${f.spaceId}/change-requests/${ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, { subject: 'Review me' }), 201).body.id}`,
  },
];

beforeAll(async () => {
  service = await startService();
  for (const [name, role] of [['ada', null], ['cleo', 'comment'], ['eve', 'edit'], ['rita', 'read']] as const) {
    const created = await service.createUser(`${name}@comments.example`, name);
    people[name] = { id: created.user.id, token: created.token };
    void role;
  }
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Comments Inc' }), 201).body.id;
  await joinAs(service, organizationId, people.ada.token, [
    { token: people.cleo.token, email: 'cleo@comments.example', role: 'comment' },
    { token: people.eve.token, email: 'eve@comments.example', role: 'edit' },
    { token: people.rita.token, email: 'rita@comments.example', role: 'read' },
  ]);
});

afterAll(cleanUpServices);

describe.each(groups)('$name comments', ({ base }) => {
  let f: Fixture;
  let path: string;
  beforeAll(async () => {
    f = await space();
    path = await base(f);
  });

  const post = async (person: Person, body: unknown, extra: Record<string, unknown> = {}) => ok(await call(person, 'POST', `${path}/comments`, { page: f.pageId, body, ...extra }), 201).body;

  it('posts a comment on a block, with the block’s text as preview', async () => {
    const comment = await post(people.cleo, { markdown: 'Is this **right**?' }, { node: f.keys[0] });
    expect(comment).toMatchObject({
      object: 'comment',
      postedBy: { id: people.cleo.id },
      body: { markdown: expect.stringContaining('**right**') },
      target: { node: { id: f.keys[0], preview: 'First paragraph.' }, page: { id: f.pageId, title: 'Guide', outdated: false }, space: f.spaceId },
      status: 'open',
      replies: 0,
      reactions: [],
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    expect(ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}`)).body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
  });

  it('returns the body as a document with format=document, and resolves @mentions to users', async () => {
    const comment = await post(people.cleo, { markdown: `Ping @${people.eve.id} please` });
    const read = ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}?format=document`)).body;
    expect(JSON.stringify(read.body.document)).toContain(`"user":"${people.eve.id}"`);
    expect(read.body.document.nodes[0].nodes.some((node: { type?: string }) => node.type === 'mention')).toBe(true);
  });

  it('refuses a comment from a reader (403), on an unknown page or block (404), and a blank body (400)', async () => {
    expectError(await call(people.rita, 'POST', `${path}/comments`, { page: f.pageId, body: { markdown: 'no' } }), 403);
    expectError(await call(people.cleo, 'POST', `${path}/comments`, { page: 'NoSuchPage0000000000', body: { markdown: 'x' } }), 404);
    expectError(await call(people.cleo, 'POST', `${path}/comments`, { page: f.pageId, node: 'nokey', body: { markdown: 'x' } }), 404);
    expectError(await call(people.cleo, 'POST', `${path}/comments`, { page: f.pageId, body: { markdown: '   ' } }), 400);
    expectError(await call(people.cleo, 'POST', `${path}/comments`, { page: f.pageId, body: { text: 'x' } }), 400);
  });

  it('resolves and reopens; a reply to a resolved thread reopens it', async () => {
    const comment = await post(people.cleo, { markdown: 'Typo here' });
    const resolved = ok(await call(people.eve, 'PUT', `${path}/comments/${comment.id}`, { resolved: true })).body;
    expect(resolved).toMatchObject({ status: 'resolved', resolvedBy: { id: people.eve.id }, resolvedAt: expect.any(String) });
    expect(ok(await call(people.eve, 'PUT', `${path}/comments/${comment.id}`, { resolved: false })).body).toMatchObject({ status: 'open' });
    ok(await call(people.eve, 'PUT', `${path}/comments/${comment.id}`, { resolved: true }));
    ok(await call(people.ada, 'POST', `${path}/comments/${comment.id}/replies`, { body: { markdown: 'Not fixed yet' } }), 201);
    expect(ok(await call(people.ada, 'GET', `${path}/comments/${comment.id}`)).body).toMatchObject({ status: 'open', replies: 1 });
  });

  it('lets only the author edit the body, and the author or an admin delete', async () => {
    const comment = await post(people.cleo, { markdown: 'Draft' });
    expectError(await call(people.eve, 'PUT', `${path}/comments/${comment.id}`, { body: { markdown: 'Hijacked' } }), 403, /author/);
    expect(ok(await call(people.cleo, 'PUT', `${path}/comments/${comment.id}`, { body: { markdown: 'Edited' } })).body).toMatchObject({ body: { markdown: expect.stringContaining('Edited') }, editedAt: expect.any(String) });
    expectError(await call(people.eve, 'DELETE', `${path}/comments/${comment.id}`), 403);
    ok(await call(people.ada, 'DELETE', `${path}/comments/${comment.id}`), 204);
    expectError(await call(people.ada, 'GET', `${path}/comments/${comment.id}`), 404);
  });

  it('reads an edited comment with its new body where it was read before the edit', async () => {
    const comment = await post(people.cleo, { markdown: 'Before the edit' });
    expect(ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}`)).body.body.markdown).toContain('Before the edit');
    ok(await call(people.cleo, 'PUT', `${path}/comments/${comment.id}`, { body: { markdown: 'After the edit' } }));
    expect(ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}`)).body.body.markdown).toContain('After the edit');
    const listed = ok(await call(people.rita, 'GET', `${path}/comments`)).body.items.find((item: { id: string }) => item.id === comment.id);
    expect(listed.body.markdown).toContain('After the edit');
  });

  it('counts reactions per emoji, one per person, from anyone who may read', async () => {
    const comment = await post(people.cleo, { markdown: 'React to me' });
    ok(await call(people.rita, 'PUT', `${path}/comments/${comment.id}`, { addedReactions: ['👍', '🎉'] }));
    ok(await call(people.eve, 'PUT', `${path}/comments/${comment.id}`, { addedReactions: ['👍'] }));
    ok(await call(people.eve, 'PUT', `${path}/comments/${comment.id}`, { addedReactions: ['👍'] }));
    const read = ok(await call(people.rita, 'PUT', `${path}/comments/${comment.id}`, { removedReactions: ['🎉'] })).body;
    expect(read.reactions).toEqual([{ emoji: '👍', count: 2, users: [expect.objectContaining({ user: expect.objectContaining({ id: people.rita.id }) }), expect.objectContaining({ user: expect.objectContaining({ id: people.eve.id }) })] }]);
    expectError(await call(people.rita, 'PUT', `${path}/comments/${comment.id}`, { addedReactions: ['not an emoji'] }), 400);
  });

  it('keeps replies: list, get, edit by the author, react, delete; deleting the comment removes them', async () => {
    const comment = await post(people.cleo, { markdown: 'Thread' });
    const first = ok(await call(people.eve, 'POST', `${path}/comments/${comment.id}/replies`, { body: { markdown: 'One' } }), 201).body;
    const second = ok(await call(people.ada, 'POST', `${path}/comments/${comment.id}/replies`, { body: { markdown: 'Two' } }), 201).body;
    expect(first).toMatchObject({ object: 'comment-reply', postedBy: { id: people.eve.id }, body: { markdown: expect.stringContaining('One') } });
    const listed = ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}/replies?limit=1`)).body;
    expect(listed).toMatchObject({ count: 2, items: [{ id: first.id }], next: { page: expect.any(String) } });
    expectError(await call(people.ada, 'PUT', `${path}/comments/${comment.id}/replies/${first.id}`, { body: { markdown: 'Not mine' } }), 403);
    expect(ok(await call(people.eve, 'PUT', `${path}/comments/${comment.id}/replies/${first.id}`, { body: { markdown: 'One, edited' }, addedReactions: ['👀'] })).body).toMatchObject({ editedAt: expect.any(String), reactions: [{ emoji: '👀', count: 1 }] });
    ok(await call(people.ada, 'DELETE', `${path}/comments/${comment.id}/replies/${second.id}`), 204);
    expect(ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}`)).body.replies).toBe(1);
    ok(await call(people.cleo, 'DELETE', `${path}/comments/${comment.id}`), 204);
    expectError(await call(people.rita, 'GET', `${path}/comments/${comment.id}/replies/${first.id}`), 404);
  });

  it('filters by status, page and authors, orders, and pages', async () => {
    const fresh = await space();
    const where = await base(fresh);
    const postIn = async (person: Person, markdown: string) => ok(await call(person, 'POST', `${where}/comments`, { page: fresh.pageId, body: { markdown } }), 201).body;
    const a = await postIn(people.cleo, 'a');
    const b = await postIn(people.eve, 'b');
    const c = await postIn(people.cleo, 'c');
    ok(await call(people.ada, 'PUT', `${where}/comments/${b.id}`, { resolved: true }));
    const ids = async (query: string) => ok(await call(people.rita, 'GET', `${where}/comments${query}`)).body.items.map((item: { id: string }) => item.id);
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?order=asc')).toEqual([a.id, b.id, c.id]);
    expect(await ids('?status=open')).toEqual([c.id, a.id]);
    expect(await ids('?status=resolved')).toEqual([b.id]);
    expect(await ids(`?authors=${people.eve.id}`)).toEqual([b.id]);
    expect(await ids(`?targetPage=${fresh.pageId}&limit=2`)).toEqual([c.id, b.id]);
    expect(await ids('?targetPage=NoSuchPage0000000000')).toEqual([]);
    expectError(await call(people.rita, 'GET', `${where}/comments?status=closed`), 400);
  });

  it('lists the members who commented', async () => {
    const fresh = await space();
    const where = await base(fresh);
    const first = ok(await call(people.cleo, 'POST', `${where}/comments`, { page: fresh.pageId, body: { markdown: 'x' } }), 201).body;
    ok(await call(people.eve, 'POST', `${where}/comments/${first.id}/replies`, { body: { markdown: 'y' } }), 201);
    const commenters = ok(await call(people.rita, 'GET', `${where}/commenters`)).body;
    expect(commenters.items.map((member: { object: string; user: { id: string } }) => [member.object, member.user.id])).toEqual([
      ['member', people.cleo.id],
      ['member', people.eve.id],
    ]);
  });
});

describe('counters and outdated targets', () => {
  it('counts open comments on the space, apart from a change request’s, after resolve and delete', async () => {
    const f = await space();
    const requestId = ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, {}), 201).body.id;
    const onSpace = async () => ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}`)).body.comments;
    const onRequest = async () => ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/change-requests/${requestId}`)).body.comments;
    const first = ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: '1' } }), 201).body;
    const second = ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: '2' } }), 201).body;
    ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/change-requests/${requestId}/comments`, { page: f.pageId, body: { markdown: '3' } }), 201);
    expect([await onSpace(), await onRequest()]).toEqual([2, 1]);
    ok(await call(people.ada, 'PUT', `/v1/spaces/${f.spaceId}/comments/${first.id}`, { resolved: true }));
    expect(await onSpace()).toBe(1);
    ok(await call(people.ada, 'DELETE', `/v1/spaces/${f.spaceId}/comments/${second.id}`), 204);
    expect(await onSpace()).toBe(0);
  });

  it('marks a comment outdated once its block changes, and not when another block does', async () => {
    const f = await space();
    const onFirst = ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, node: f.keys[0], body: { markdown: 'on first' } }), 201).body;
    const onSecond = ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, node: f.keys[1], body: { markdown: 'on second' } }), 201).body;
    ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/content`, { changes: [{ operation: 'update_page', page: f.pageId, document: { markdown: 'First paragraph, rewritten.\n\nSecond paragraph.' } }] }));
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments/${onFirst.id}`)).body.target.page.outdated).toBe(true);
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments/${onSecond.id}`)).body.target.page.outdated).toBe(false);
  });

  it('resolves a change request’s thread through a reply, which a space comment’s reply cannot', async () => {
    const f = await space();
    const requestId = ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, {}), 201).body.id;
    const onRequest = `/v1/spaces/${f.spaceId}/change-requests/${requestId}`;
    const comment = ok(await call(people.cleo, 'POST', `${onRequest}/comments`, { page: f.pageId, body: { markdown: 'x' } }), 201).body;
    const reply = ok(await call(people.eve, 'POST', `${onRequest}/comments/${comment.id}/replies`, { body: { markdown: 'done' } }), 201).body;
    ok(await call(people.eve, 'PUT', `${onRequest}/comments/${comment.id}/replies/${reply.id}`, { resolved: true }));
    expect(ok(await call(people.eve, 'GET', `${onRequest}/comments/${comment.id}`)).body.status).toBe('resolved');
    const spaceComment = ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: 'y' } }), 201).body;
    const spaceReply = ok(await call(people.eve, 'POST', `/v1/spaces/${f.spaceId}/comments/${spaceComment.id}/replies`, { body: { markdown: 'z' } }), 201).body;
    expectError(await call(people.eve, 'PUT', `/v1/spaces/${f.spaceId}/comments/${spaceComment.id}/replies/${spaceReply.id}`, { resolved: true }), 400);
  });

  it('hides a change request’s comments from the space’s list and the other way round', async () => {
    const f = await space();
    const requestId = ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, {}), 201).body.id;
    const onRequest = ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/change-requests/${requestId}/comments`, { page: f.pageId, body: { markdown: 'x' } }), 201).body;
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments`)).body.items).toEqual([]);
    expectError(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments/${onRequest.id}`), 404);
  });
});

describe('bodies rendered once, when written', () => {
  /** Bodies converted in the untrusted-work pool so far (every outcome), from /metrics. */
  async function bodiesConverted(): Promise<number> {
    const metrics = ok(await service.request('GET', '/metrics', { token: service.adminToken })).text;
    const lines = [...metrics.matchAll(/^untrusted_work_seconds_count\{task="converting a comment body",[^}]*\} (\d+)$/gm)];
    return lines.reduce((total, [, count]) => total + Number(count), 0);
  }

  it('reads a markdown comment and reply back with the markdown it always did, rendered in the untrusted-work pool', async () => {
    const f = await space();
    const sent = 'Is this **right**, _really_?\n\n- one `code`\n  - nested [link](https://example.com/a)\n\n1. first\n2. second\n\n> quoted\n\n```js\nlet x = 1;\n```';
    // What reads answered before bodies kept their markdown (content's converter, then its export).
    const rendered = 'Is this **right**, *really*?\n\n- one `code`\n\n  - nested [link](https://example.com/a)\n\n1. first\n2. second\n\n> quoted\n\n```js\nlet x = 1;\n```\n';
    const before = await bodiesConverted();
    const comment = ok(await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: sent } }), 201).body;
    const reply = ok(await call(people.eve, 'POST', `/v1/spaces/${f.spaceId}/comments/${comment.id}/replies`, { body: { markdown: sent } }), 201).body;
    expect(await bodiesConverted()).toBeGreaterThanOrEqual(before + 2);
    expect(comment.body).toEqual({ markdown: rendered });
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${f.spaceId}/comments/${comment.id}`)).body.body).toEqual({ markdown: rendered });
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${f.spaceId}/comments`)).body.items[0].body).toEqual({ markdown: rendered });
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${f.spaceId}/comments/${comment.id}/replies/${reply.id}`)).body.body).toEqual({ markdown: rendered });
  });
});
