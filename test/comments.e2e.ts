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
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let organizationId: string;
const people: Record<'ada' | 'cleo' | 'eve' | 'rita', Person> = {} as never;

const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });

interface Fixture {
  spaceId: string;
  pageId: string;
  /** Keys of the page's first and second paragraphs. */
  keys: [string, string];
}

async function space(): Promise<Fixture> {
  const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Docs' }), 201).body.id;
  const written = ok(
    await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
      changes: [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'First paragraph.\n\nSecond paragraph.' } }],
    }),
  ).body;
  const pageId = written.changes[0].page.id;
  const page = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}`)).body;
  return { spaceId, pageId, keys: [page.document.nodes[0].key, page.document.nodes[1].key] };
}

/** The two groups: a space's own comments, and a change request's. */
const groups = [
  { name: 'space', base: async (f: Fixture) => `/v1/spaces/${f.spaceId}` },
  {
    name: 'change request',
    base: async (f: Fixture) =>
      `/v1/spaces/${f.spaceId}/change-requests/${ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, { subject: 'Review me' }), 201).body.id}`,
  },
];

beforeAll(async () => {
  service = await startService();
  for (const [name, role] of [
    ['ada', null],
    ['cleo', 'comment'],
    ['eve', 'edit'],
    ['rita', 'read'],
  ] as const) {
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

  const post = async (person: Person, body: unknown, extra: Record<string, unknown> = {}) =>
    ok(await call(person, 'POST', `${path}/comments`, { page: f.pageId, body, ...extra }), 201).body;

  it('posts a comment on a block, with the block’s text as preview', async () => {
    const comment = await post(people.cleo, { markdown: 'Is this **right**?' }, { node: f.keys[0] });
    expect(comment).toMatchObject({
      object: 'comment',
      postedBy: { id: people.cleo.id },
      body: { markdown: expect.stringContaining('**right**') },
      target: {
        node: { id: f.keys[0], preview: 'First paragraph.' },
        page: { id: f.pageId, title: 'Guide', outdated: false },
        space: f.spaceId,
      },
      status: 'open',
      replies: 0,
      reactions: [],
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    expect(ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}`)).body.permissions).toEqual({
      view: true,
      edit: false,
      reply: false,
      delete: false,
    });
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
    expect(ok(await call(people.cleo, 'PUT', `${path}/comments/${comment.id}`, { body: { markdown: 'Edited' } })).body).toMatchObject({
      body: { markdown: expect.stringContaining('Edited') },
      editedAt: expect.any(String),
    });
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
    expect(read.reactions).toEqual([
      {
        emoji: '👍',
        count: 2,
        users: [
          expect.objectContaining({ user: expect.objectContaining({ id: people.rita.id }) }),
          expect.objectContaining({ user: expect.objectContaining({ id: people.eve.id }) }),
        ],
      },
    ]);
    expectError(await call(people.rita, 'PUT', `${path}/comments/${comment.id}`, { addedReactions: ['not an emoji'] }), 400);
  });

  it('keeps replies: list, get, edit by the author, react, delete; deleting the comment removes them', async () => {
    const comment = await post(people.cleo, { markdown: 'Thread' });
    const first = ok(await call(people.eve, 'POST', `${path}/comments/${comment.id}/replies`, { body: { markdown: 'One' } }), 201).body;
    const second = ok(await call(people.ada, 'POST', `${path}/comments/${comment.id}/replies`, { body: { markdown: 'Two' } }), 201).body;
    expect(first).toMatchObject({
      object: 'comment-reply',
      postedBy: { id: people.eve.id },
      body: { markdown: expect.stringContaining('One') },
    });
    const listed = ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}/replies?limit=1`)).body;
    expect(listed).toMatchObject({ count: 2, items: [{ id: first.id }], next: { page: expect.any(String) } });
    expectError(
      await call(people.ada, 'PUT', `${path}/comments/${comment.id}/replies/${first.id}`, { body: { markdown: 'Not mine' } }),
      403,
    );
    expect(
      ok(
        await call(people.eve, 'PUT', `${path}/comments/${comment.id}/replies/${first.id}`, {
          body: { markdown: 'One, edited' },
          addedReactions: ['👀'],
        }),
      ).body,
    ).toMatchObject({ editedAt: expect.any(String), reactions: [{ emoji: '👀', count: 1 }] });
    ok(await call(people.ada, 'DELETE', `${path}/comments/${comment.id}/replies/${second.id}`), 204);
    expect(ok(await call(people.rita, 'GET', `${path}/comments/${comment.id}`)).body.replies).toBe(1);
    ok(await call(people.cleo, 'DELETE', `${path}/comments/${comment.id}`), 204);
    expectError(await call(people.rita, 'GET', `${path}/comments/${comment.id}/replies/${first.id}`), 404);
  });

  it('filters by status, page and authors, orders, and pages', async () => {
    const fresh = await space();
    const where = await base(fresh);
    const postIn = async (person: Person, markdown: string) =>
      ok(await call(person, 'POST', `${where}/comments`, { page: fresh.pageId, body: { markdown } }), 201).body;
    const a = await postIn(people.cleo, 'a');
    const b = await postIn(people.eve, 'b');
    const c = await postIn(people.cleo, 'c');
    ok(await call(people.ada, 'PUT', `${where}/comments/${b.id}`, { resolved: true }));
    const ids = async (query: string) =>
      ok(await call(people.rita, 'GET', `${where}/comments${query}`)).body.items.map((item: { id: string }) => item.id);
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
    const first = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: '1' } }),
      201,
    ).body;
    const second = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: '2' } }),
      201,
    ).body;
    ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/change-requests/${requestId}/comments`, {
        page: f.pageId,
        body: { markdown: '3' },
      }),
      201,
    );
    expect([await onSpace(), await onRequest()]).toEqual([2, 1]);
    ok(await call(people.ada, 'PUT', `/v1/spaces/${f.spaceId}/comments/${first.id}`, { resolved: true }));
    expect(await onSpace()).toBe(1);
    ok(await call(people.ada, 'DELETE', `/v1/spaces/${f.spaceId}/comments/${second.id}`), 204);
    expect(await onSpace()).toBe(0);
  });

  it('marks a comment outdated once its block changes, and not when another block does', async () => {
    const f = await space();
    const onFirst = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, {
        page: f.pageId,
        node: f.keys[0],
        body: { markdown: 'on first' },
      }),
      201,
    ).body;
    const onSecond = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, {
        page: f.pageId,
        node: f.keys[1],
        body: { markdown: 'on second' },
      }),
      201,
    ).body;
    ok(
      await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/content`, {
        changes: [{ operation: 'update_page', page: f.pageId, document: { markdown: 'First paragraph, rewritten.\n\nSecond paragraph.' } }],
      }),
    );
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments/${onFirst.id}`)).body.target.page.outdated).toBe(true);
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments/${onSecond.id}`)).body.target.page.outdated).toBe(false);
  });

  it('resolves a change request’s thread through a reply, which a space comment’s reply cannot', async () => {
    const f = await space();
    const requestId = ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, {}), 201).body.id;
    const onRequest = `/v1/spaces/${f.spaceId}/change-requests/${requestId}`;
    const comment = ok(await call(people.cleo, 'POST', `${onRequest}/comments`, { page: f.pageId, body: { markdown: 'x' } }), 201).body;
    const reply = ok(
      await call(people.eve, 'POST', `${onRequest}/comments/${comment.id}/replies`, { body: { markdown: 'done' } }),
      201,
    ).body;
    ok(await call(people.eve, 'PUT', `${onRequest}/comments/${comment.id}/replies/${reply.id}`, { resolved: true }));
    expect(ok(await call(people.eve, 'GET', `${onRequest}/comments/${comment.id}`)).body.status).toBe('resolved');
    const spaceComment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: 'y' } }),
      201,
    ).body;
    const spaceReply = ok(
      await call(people.eve, 'POST', `/v1/spaces/${f.spaceId}/comments/${spaceComment.id}/replies`, { body: { markdown: 'z' } }),
      201,
    ).body;
    expectError(
      await call(people.eve, 'PUT', `/v1/spaces/${f.spaceId}/comments/${spaceComment.id}/replies/${spaceReply.id}`, { resolved: true }),
      400,
    );
  });

  it('hides a change request’s comments from the space’s list and the other way round', async () => {
    const f = await space();
    const requestId = ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, {}), 201).body.id;
    const onRequest = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/change-requests/${requestId}/comments`, {
        page: f.pageId,
        body: { markdown: 'x' },
      }),
      201,
    ).body;
    expect(ok(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments`)).body.items).toEqual([]);
    expectError(await call(people.ada, 'GET', `/v1/spaces/${f.spaceId}/comments/${onRequest.id}`), 404);
  });
});

describe("the platform's shapes", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await space();
  });
  const onSpace = () => `/v1/spaces/${f.spaceId}`;
  const postOn = async (person: Person, body: unknown) => call(person, 'POST', `${onSpace()}/comments`, body);
  /** A JSON document of one paragraph, as the platform's clients send it. */
  const paragraph = (text: string) => ({
    object: 'document',
    data: {},
    nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
  });

  it("answers 201 with the comment in the platform's shape when a comment is posted (the interface document's status; the platform answers 200)", async () => {
    const answer = await postOn(people.cleo, { page: f.pageId, body: { markdown: 'Status?' } });
    expect(answer.status).toBe(201);
    expect(platformSchemaProblem('Comment', answer.body)).toBeNull();
  });

  it("answers 201 with the reply in the platform's shape when a reply is posted (the interface document's status; the platform answers 200)", async () => {
    const comment = ok(await postOn(people.cleo, { page: f.pageId, body: { markdown: 'Thread' } }), 201).body;
    const answer = await call(people.eve, 'POST', `${onSpace()}/comments/${comment.id}/replies`, { body: { markdown: 'Reply' } });
    expect(answer.status).toBe(201);
    expect(platformSchemaProblem('CommentReply', answer.body)).toBeNull();
  });

  it('posts a comment on the space as a whole when page is absent: no page in its target, and listed with the others', async () => {
    const comment = ok(await postOn(people.cleo, { body: { markdown: 'About the whole space' } }), 201).body;
    expect(comment.target).toEqual({ space: f.spaceId, revision: expect.any(String) });
    expect(platformSchemaProblem('Comment', comment)).toBeNull();
    expect(ok(await call(people.rita, 'GET', `${onSpace()}/comments`)).body.items.map((item: { id: string }) => item.id)).toContain(
      comment.id,
    );
  });

  it('posts a comment on a change request as a whole when page is absent', async () => {
    const requestId = ok(await call(people.ada, 'POST', `${onSpace()}/change-requests`, {}), 201).body.id;
    const comment = ok(
      await call(people.cleo, 'POST', `${onSpace()}/change-requests/${requestId}/comments`, { body: { markdown: 'Whole request' } }),
      201,
    ).body;
    expect(comment.target).toEqual({ space: f.spaceId, changeRequest: requestId, revision: expect.any(String) });
  });

  it('refuses a node without its page (400 naming node)', async () => {
    expectError(await postOn(people.cleo, { node: f.keys[0], body: { markdown: 'Where?' } }), 400, /node needs page/);
  });

  it('takes a body as { document }, the platform’s JSON document, and reads it back as markdown and as the same document', async () => {
    const comment = ok(await postOn(people.cleo, { page: f.pageId, body: { document: paragraph('Sent as a document') } }), 201).body;
    expect(comment.body).toEqual({ markdown: 'Sent as a document\n' });
    const asDocument = ok(await call(people.rita, 'GET', `${onSpace()}/comments/${comment.id}?format=document`)).body;
    expect(asDocument.body.document).toMatchObject({
      object: 'document',
      nodes: [{ type: 'paragraph', nodes: [{ leaves: [{ text: 'Sent as a document' }] }] }],
    });
    expect(platformSchemaProblem('Comment', asDocument)).toBeNull();
  });

  it('takes a reply’s and an edit’s body as { document }', async () => {
    const comment = ok(await postOn(people.cleo, { page: f.pageId, body: { markdown: 'Markdown first' } }), 201).body;
    expect(
      ok(await call(people.cleo, 'PUT', `${onSpace()}/comments/${comment.id}`, { body: { document: paragraph('Edited as a document') } }))
        .body.body,
    ).toEqual({ markdown: 'Edited as a document\n' });
    expect(
      ok(
        await call(people.eve, 'POST', `${onSpace()}/comments/${comment.id}/replies`, {
          body: { document: paragraph('Replied as a document') },
        }),
        201,
      ).body.body,
    ).toEqual({ markdown: 'Replied as a document\n' });
  });

  it('refuses a { document } body that is no document, or an invalid one, with 400 naming body.document', async () => {
    expectError(await postOn(people.cleo, { page: f.pageId, body: { document: 'text' } }), 400, /body\.document/);
    expectError(
      await postOn(people.cleo, {
        page: f.pageId,
        body: { document: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'no-such-block', nodes: [] }] } },
      }),
      400,
    );
    expectError(
      await postOn(people.cleo, { page: f.pageId, body: { document: { object: 'document', data: {}, nodes: [] } } }),
      400,
      /body\.document must not be empty/,
    );
  });

  it('refuses a { document } body whose markdown would pass 64 KiB (400 naming the size)', async () => {
    const long = Array.from({ length: 40 }, (_, i) => paragraph(`${i} ${'word '.repeat(400)}`).nodes[0]);
    expectError(
      await postOn(people.cleo, { page: f.pageId, body: { document: { object: 'document', data: {}, nodes: long } } }),
      400,
      /body\.document is too large: as markdown it is \d+ characters, at most 65536/,
    );
  });

  it('keeps a table cell target and shows it', async () => {
    const comment = ok(
      await postOn(people.cleo, { page: f.pageId, tableCell: { record: 'row1', definition: 'col1' }, body: { markdown: 'This cell' } }),
      201,
    ).body;
    expect(comment.target.tableCell).toEqual({ record: 'row1', definition: 'col1' });
    expect(platformSchemaProblem('Comment', comment)).toBeNull();
    expectError(await postOn(people.cleo, { page: f.pageId, tableCell: { record: '../x' }, body: { markdown: 'x' } }), 400, /tableCell/);
  });

  it('takes reactions as Unicode codepoints: added as 1f44d, it is 👍, and removed as 👍', async () => {
    const comment = ok(await postOn(people.cleo, { page: f.pageId, body: { markdown: 'React by codepoint' } }), 201).body;
    const added = ok(await call(people.rita, 'PUT', `${onSpace()}/comments/${comment.id}`, { addedReactions: ['1f44d', '1F389'] })).body;
    expect(added.reactions.map((reaction: { emoji: string; count: number }) => [reaction.emoji, reaction.count])).toEqual([
      ['👍', 1],
      ['🎉', 1],
    ]);
    const removed = ok(await call(people.rita, 'PUT', `${onSpace()}/comments/${comment.id}`, { removedReactions: ['👍', '🎉'] })).body;
    expect(removed.reactions).toEqual([]);
  });

  it('counts ❤, ❤️ and 2764 as one reaction', async () => {
    const comment = ok(await postOn(people.cleo, { page: f.pageId, body: { markdown: 'Hearts' } }), 201).body;
    ok(await call(people.rita, 'PUT', `${onSpace()}/comments/${comment.id}`, { addedReactions: ['❤'] }));
    ok(await call(people.eve, 'PUT', `${onSpace()}/comments/${comment.id}`, { addedReactions: ['2764'] }));
    const read = ok(await call(people.eve, 'PUT', `${onSpace()}/comments/${comment.id}`, { addedReactions: ['❤️'] })).body;
    expect(read.reactions).toEqual([expect.objectContaining({ emoji: '❤️', count: 2 })]);
  });

  it('refuses a codepoint that is no emoji (400 naming addedReactions)', async () => {
    const comment = ok(await postOn(people.cleo, { page: f.pageId, body: { markdown: 'No emoji' } }), 201).body;
    expectError(await call(people.rita, 'PUT', `${onSpace()}/comments/${comment.id}`, { addedReactions: ['cafe'] }), 400, /addedReactions/);
  });

  it('shows who replied as repliers, each with their count and when they last replied', async () => {
    const comment = ok(await postOn(people.cleo, { page: f.pageId, body: { markdown: 'Who replies?' } }), 201).body;
    expect(comment.repliers).toEqual([]);
    const replies = [];
    for (const person of [people.eve, people.ada, people.eve])
      replies.push(ok(await call(person, 'POST', `${onSpace()}/comments/${comment.id}/replies`, { body: { markdown: 'Me' } }), 201).body);
    ok(await call(people.ada, 'DELETE', `${onSpace()}/comments/${comment.id}/replies/${replies[1].id}`), 204);
    const read = ok(await call(people.rita, 'GET', `${onSpace()}/comments/${comment.id}`)).body;
    expect(read.repliers).toEqual([
      { user: expect.objectContaining({ object: 'user', id: people.eve.id }), count: 2, updatedAt: replies[2].postedAt },
    ]);
    expect(platformSchemaProblem('Comment', read)).toBeNull();
  });
});

describe('bodies in the blob store', () => {
  it('keeps a heavy body out of the event log: the event carries the blob’s hash and the markdown, and reads answer both', async () => {
    const f = await space();
    const list = Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i % 6)}- item ${i}`).join('\n');
    const comment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: list } }),
      201,
    ).body;
    const history = ok(await service.request('GET', `/v1/admin/streams/comment-${comment.id}`, { token: service.adminToken })).body;
    const posted = history.items.find((event: { type: string }) => event.type === 'CommentPosted');
    expect(posted.data.body).toEqual({ blob: expect.stringMatching(/^[0-9a-f]{64}$/), markdown: comment.body.markdown });
    const asDocument = ok(await call(people.rita, 'GET', `/v1/spaces/${f.spaceId}/comments/${comment.id}?format=document`)).body.body
      .document;
    expect(JSON.stringify(asDocument).length).toBeGreaterThan(JSON.stringify(posted.data).length);
    expect(asDocument.nodes[0].type).toBe('list-unordered');
  });

  it('keeps a reply’s and an edit’s body in the blob store too', async () => {
    const f = await space();
    const comment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: 'First' } }),
      201,
    ).body;
    ok(await call(people.cleo, 'PUT', `/v1/spaces/${f.spaceId}/comments/${comment.id}`, { body: { markdown: 'Edited' } }));
    ok(await call(people.eve, 'POST', `/v1/spaces/${f.spaceId}/comments/${comment.id}/replies`, { body: { markdown: 'Reply' } }), 201);
    const history = ok(await service.request('GET', `/v1/admin/streams/comment-${comment.id}`, { token: service.adminToken })).body;
    const bodies = history.items
      .filter((event: { type: string }) => ['CommentEdited', 'CommentReplyPosted'].includes(event.type))
      .map((event: { data: { body: unknown } }) => event.data.body);
    expect(bodies).toEqual([
      { blob: expect.stringMatching(/^[0-9a-f]{64}$/), markdown: 'Edited\n' },
      { blob: expect.stringMatching(/^[0-9a-f]{64}$/), markdown: 'Reply\n' },
    ]);
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
    const sent =
      'Is this **right**, _really_?\n\n- one `code`\n  - nested [link](https://example.com/a)\n\n1. first\n2. second\n\n> quoted\n\n```js\nlet x = 1;\n```';
    // What reads answered before bodies kept their markdown (content's converter, then its export).
    const rendered =
      'Is this **right**, *really*?\n\n- one `code`\n\n  - nested [link](https://example.com/a)\n\n1. first\n2. second\n\n> quoted\n\n```js\nlet x = 1;\n```\n';
    const before = await bodiesConverted();
    const comment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: sent } }),
      201,
    ).body;
    const reply = ok(
      await call(people.eve, 'POST', `/v1/spaces/${f.spaceId}/comments/${comment.id}/replies`, { body: { markdown: sent } }),
      201,
    ).body;
    expect(await bodiesConverted()).toBeGreaterThanOrEqual(before + 2);
    expect(comment.body).toEqual({ markdown: rendered });
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${f.spaceId}/comments/${comment.id}`)).body.body).toEqual({ markdown: rendered });
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${f.spaceId}/comments`)).body.items[0].body).toEqual({ markdown: rendered });
    expect(ok(await call(people.rita, 'GET', `/v1/spaces/${f.spaceId}/comments/${comment.id}/replies/${reply.id}`)).body.body).toEqual({
      markdown: rendered,
    });
  });
});

describe('If-Match on comments and replies', () => {
  /** A write sent with `If-Match: tag`. */
  const conditional = (person: Person, method: string, path: string, tag: string, body?: unknown) =>
    service.request(method, path, { token: person.token, body, headers: { 'if-match': tag } });
  /** The resource as `person` reads it now: its ETag and its body. */
  const read = async (person: Person, path: string) => {
    const response = ok(await call(person, 'GET', path));
    return { etag: response.headers.etag, body: response.body };
  };
  /** A tag naming the revision before `etag`'s: a version the resource had, no longer current. */
  const previous = (etag: string) => `"${Number(JSON.parse(etag)) - 1}"`;

  it('answers a comment with its ETag; a PUT naming a stale one is 412 and changes nothing; one naming the current ETag is applied', async () => {
    const f = await space();
    const comment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: 'Version one' } }),
      201,
    ).body;
    const at = `/v1/spaces/${f.spaceId}/comments/${comment.id}`;
    ok(await call(people.cleo, 'PUT', at, { body: { markdown: 'Version two' } }));
    const before = await read(people.cleo, at);
    expect(before.etag).toMatch(/^"\d+"$/);

    expectError(await conditional(people.cleo, 'PUT', at, previous(before.etag), { body: { markdown: 'Lost update' } }), 412);
    expect(await read(people.cleo, at)).toEqual(before);

    const applied = ok(await conditional(people.cleo, 'PUT', at, before.etag, { body: { markdown: 'Version three' } }));
    expect(applied.body.body.markdown).toContain('Version three');
    expect(applied.headers.etag).not.toBe(before.etag);
    expect(applied.headers.etag).toBe((await read(people.cleo, at)).etag);
  });

  it('versions a reply by its comment’s stream: its ETag is the comment’s, and a DELETE naming a stale one is 412 and keeps the reply; one naming the current ETag deletes it', async () => {
    const f = await space();
    const requestId = ok(await call(people.ada, 'POST', `/v1/spaces/${f.spaceId}/change-requests`, {}), 201).body.id;
    const thread = `/v1/spaces/${f.spaceId}/change-requests/${requestId}/comments`;
    const comment = ok(await call(people.cleo, 'POST', thread, { page: f.pageId, body: { markdown: 'Thread' } }), 201).body;
    const posted = ok(await call(people.eve, 'POST', `${thread}/${comment.id}/replies`, { body: { markdown: 'Reply' } }), 201);
    const at = `${thread}/${comment.id}/replies/${posted.body.id}`;
    const before = await read(people.eve, at);
    expect(before.etag).toBe((await read(people.eve, `${thread}/${comment.id}`)).etag);
    expect(posted.headers.etag).toBe(before.etag);

    // Another write in the thread moves the ETag the reply was read at.
    ok(await call(people.rita, 'PUT', `${thread}/${comment.id}`, { addedReactions: ['👍'] }));
    const stale = before.etag;
    const current = await read(people.eve, at);
    expect(current.etag).not.toBe(stale);

    expectError(await conditional(people.eve, 'DELETE', at, stale), 412);
    expect(await read(people.eve, at)).toEqual(current);

    ok(await conditional(people.eve, 'DELETE', at, current.etag), 204);
    expectError(await call(people.eve, 'GET', at), 404);
  });

  it('answers who may not make the change with their 403, not a 412 that would tell them the version', async () => {
    const f = await space();
    const comment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: 'Mine' } }),
      201,
    ).body;
    const at = `/v1/spaces/${f.spaceId}/comments/${comment.id}`;
    expectError(await conditional(people.rita, 'PUT', at, '"999"', { body: { markdown: 'Not hers' } }), 403, /author/);
    expectError(await conditional(people.eve, 'DELETE', at, '"999"'), 403, /author/);
  });

  it('answers someone outside the organization 404 for a comment and a reply, whatever If-Match they send', async () => {
    const f = await space();
    const comment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: 'Internal' } }),
      201,
    ).body;
    const reply = ok(
      await call(people.eve, 'POST', `/v1/spaces/${f.spaceId}/comments/${comment.id}/replies`, { body: { markdown: 'Internal too' } }),
      201,
    ).body;
    const created = await service.createUser('mallory@elsewhere.example', 'mallory');
    const mallory: Person = { id: created.user.id, token: created.token };
    const at = `/v1/spaces/${f.spaceId}/comments/${comment.id}`;
    for (const tag of ['"0"', '"999"']) {
      expectError(await conditional(mallory, 'PUT', at, tag, { addedReactions: ['👍'] }), 404);
      expectError(await conditional(mallory, 'DELETE', `${at}/replies/${reply.id}`, tag), 404);
    }
  });

  it('answers 404 for an unknown reply of a visible comment, not 412', async () => {
    const f = await space();
    const comment = ok(
      await call(people.cleo, 'POST', `/v1/spaces/${f.spaceId}/comments`, { page: f.pageId, body: { markdown: 'No replies' } }),
      201,
    ).body;
    expectError(
      await conditional(people.ada, 'PUT', `/v1/spaces/${f.spaceId}/comments/${comment.id}/replies/NoSuchReply000000000`, '"999"', {
        addedReactions: ['👍'],
      }),
      404,
      /reply/,
    );
  });

  it('declares the ETag on the comment and reply reads and If-Match with 412 on their writes in the OpenAPI document', async () => {
    const document = ok(await service.request('GET', '/v1/openapi.json')).body;
    for (const group of ['/v1/spaces/{spaceId}', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}']) {
      for (const resource of [`${group}/comments/{commentId}`, `${group}/comments/{commentId}/replies/{commentReplyId}`]) {
        expect(document.paths[resource].get.responses['200'].headers?.ETag).toBeDefined();
        for (const method of ['put', 'delete']) {
          const operation = document.paths[resource][method];
          expect(
            operation.parameters.some(
              (parameter: { in: string; name: string }) => parameter.in === 'header' && parameter.name === 'If-Match',
            ),
          ).toBe(true);
          expect(operation.responses['412']).toBeDefined();
        }
      }
    }
  });
});
