/**
 * What the service reveals about people, and what it writes to its logs, through HTTP against the
 * embedded service (started with LOG_LEVEL=info, so every request is logged):
 * - only members of a space's organization can be named in it: as requested reviewers of a change
 *   request, in a comment's `@<userId>` mention, as team members; anyone else is refused (or left as
 *   plain text) alike whether the user exists or not, and their name and e-mail never come back;
 * - no log line carries a credential from a URL (share keys, visitor tokens, signatures) nor the
 *   Authorization and Cookie headers.
 *
 * The people: ada creates the organization (admin); eve edits (`edit`); zed has an account but
 * belongs to another organization only.
 */
import { joinAs } from './support/members';
import { cleanUpServices, expectError, ok, startService, type Response, type RunningService, type UserObject } from './support/service';

interface Person {
  id: string;
  token: string;
  user: UserObject;
}

let service: RunningService;
let organizationId: string;
let spaceId: string;
let pageId: string;
const people: Record<'ada' | 'eve' | 'zed', Person> = {} as never;
/** A well-formed user id that names nobody. */
const NOBODY = 'Nobody00000000000000';

const call = (person: Person | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  service.request(method, path, { token: person?.token, body, headers });

/** What a refusal naming `id` says, with the id itself taken out: the same for an outsider and for nobody. */
const wordingWithout = (response: Response, id: string) => ({
  status: response.status,
  message: String(response.body?.error?.message).split(id).join('<user>'),
});

beforeAll(async () => {
  service = await startService({ env: { LOG_LEVEL: 'info' } });
  for (const [name, displayName] of [
    ['ada', 'Ada Admin'],
    ['eve', 'Eve Editor'],
    ['zed', 'Zed Zebulon-Outsider'],
  ] as const) {
    const created = await service.createUser(`${name}@privacy.example`, displayName);
    people[name] = { id: created.user.id, token: created.token, user: created.user };
  }
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'Privacy Inc' }), 201).body.id;
  await joinAs(service, organizationId, people.ada.token, [{ token: people.eve.token, email: 'eve@privacy.example', role: 'edit' }]);
  ok(await call(people.zed, 'POST', '/v1/orgs', { title: 'Elsewhere Ltd' }), 201);
  spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Docs' }), 201).body.id;
  const written = ok(
    await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
      changes: [{ operation: 'insert_page', title: 'Guide', document: { markdown: 'Hello.' } }],
    }),
  ).body;
  pageId = written.changes[0].page.id;
});

afterAll(cleanUpServices);

/** Neither the name nor the address of zed appears in the answer. */
function revealsNothingOfZed(response: Response): void {
  expect(response.text).not.toContain(people.zed.user.displayName);
  expect(response.text).not.toContain(people.zed.user.email);
}

describe('requested reviewers of a change request', () => {
  let reviewers: string;
  beforeAll(async () => {
    const changeRequestId = ok(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Proposal' }), 201).body
      .id;
    reviewers = `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/requested-reviewers`;
  });

  it('refuses a user outside the organization with 400 naming their id, and answers nothing about them', async () => {
    const response = await call(people.eve, 'POST', reviewers, { users: [people.zed.id] });
    expectError(response, 400, new RegExp(`${people.zed.id}.*not a member of organization ${organizationId}`));
    revealsNothingOfZed(response);
    expect(ok(await call(people.eve, 'GET', reviewers)).body.items).toEqual([]);
  });

  it('answers a user outside the organization exactly as a user that does not exist', async () => {
    const outsider = await call(people.eve, 'POST', reviewers, { users: [people.zed.id] });
    const nobody = await call(people.eve, 'POST', reviewers, { users: [NOBODY] });
    expect(wordingWithout(outsider, people.zed.id)).toEqual(wordingWithout(nobody, NOBODY));
  });

  it('requests nobody when one of the users named is outside the organization', async () => {
    expectError(await call(people.eve, 'POST', reviewers, { users: [people.ada.id, people.zed.id] }), 400, new RegExp(people.zed.id));
    expect(ok(await call(people.eve, 'GET', reviewers)).body.items).toEqual([]);
  });

  it('requests members of the organization', async () => {
    const response = ok(await call(people.eve, 'POST', reviewers, { users: [people.ada.id] }));
    expect(response.body.items).toEqual([
      { object: 'requested-reviewer', user: expect.objectContaining({ id: people.ada.id, displayName: 'Ada Admin' }) },
    ]);
  });
});

describe('mentions in comments', () => {
  const comment = async (markdown: string) =>
    ok(await call(people.eve, 'POST', `/v1/spaces/${spaceId}/comments`, { page: pageId, body: { markdown } }), 201);

  it('leaves the mention of a user outside the organization as written: no name, no link to them', async () => {
    const posted = await comment(`Ping @${people.zed.id} please`);
    revealsNothingOfZed(posted);
    expect(posted.body.body.markdown).toContain(`@${people.zed.id}`);
    const document = ok(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/comments/${posted.body.id}?format=document`));
    revealsNothingOfZed(document);
    expect(document.text).not.toContain(`"user":"${people.zed.id}"`);
  });

  it('treats a mention of a user outside the organization as one of a user that does not exist', async () => {
    const outsider = await comment(`Ping @${people.zed.id} please`);
    const nobody = await comment(`Ping @${NOBODY} please`);
    expect(outsider.body.body.markdown.split(people.zed.id).join('<user>')).toBe(nobody.body.body.markdown.split(NOBODY).join('<user>'));
  });

  it('leaves the mention of an outsider as written in a reply and an edit too', async () => {
    const posted = await comment('First.');
    const reply = ok(
      await call(people.eve, 'POST', `/v1/spaces/${spaceId}/comments/${posted.body.id}/replies`, {
        body: { markdown: `cc @${people.zed.id}` },
      }),
      201,
    );
    revealsNothingOfZed(reply);
    const edited = ok(
      await call(people.eve, 'PUT', `/v1/spaces/${spaceId}/comments/${posted.body.id}`, { body: { markdown: `now @${people.zed.id}` } }),
    );
    revealsNothingOfZed(edited);
  });

  it('still mentions members of the organization by name', async () => {
    const posted = await comment(`Ping @${people.ada.id} and @${people.zed.id}`);
    expect(posted.body.body.markdown).toContain('Ada Admin');
    revealsNothingOfZed(posted);
  });
});

describe('team members', () => {
  it('answers an e-mail address of a user outside the organization exactly as one that has no account', async () => {
    const team = ok(await call(people.ada, 'PUT', `/v1/orgs/${organizationId}/teams`, { title: 'Writers' }), 201).body;
    const members = `/v1/orgs/${organizationId}/teams/${team.id}/members`;
    const outsider = await call(people.ada, 'PUT', members, { add: [people.zed.user.email] });
    const nobody = await call(people.ada, 'PUT', members, { add: ['nobody@privacy.example'] });
    expectError(outsider, 400, /zed@privacy\.example/);
    expect(wordingWithout(outsider, people.zed.user.email)).toEqual(wordingWithout(nobody, 'nobody@privacy.example'));
  });
});

describe('the request log (LOG_LEVEL=info)', () => {
  /** The lines of the service's output that mention this request id, once the request has been logged. */
  async function loggedLines(requestId: string): Promise<string> {
    const marker = `"requestId":"${requestId}"`;
    for (let attempt = 0; attempt < 100 && !service.output().stdout.includes(marker); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const { stdout } = service.output();
    expect(stdout).toContain(marker);
    return stdout
      .split('\n')
      .filter((line) => line.includes(marker))
      .join('\n');
  }

  it('writes a published site URL with its shareKey and jwt_token redacted', async () => {
    const site = ok(
      await call(people.ada, 'POST', `/v1/orgs/${organizationId}/sites`, { title: 'Shared', visibility: 'share-link', spaces: [spaceId] }),
      201,
    ).body;
    ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/sites/${site.id}/publish`));
    const { key } = ok(
      await call(people.ada, 'POST', `/v1/orgs/${organizationId}/sites/${site.id}/share-links`, { name: 'Readers' }),
      201,
    ).body;
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJ2aXNpdG9yIjoic2VjcmV0In0.c2lnbmF0dXJlc2VjcmV0';
    await call(null, 'GET', `/sites/${site.id}?shareKey=secretvalue&jwt_token=${jwt}`, undefined, { 'x-request-id': 'privacy-site-1' });
    await call(null, 'GET', `/sites/${site.id}/guide?utm=x&shareKey=${key}`, undefined, { 'x-request-id': 'privacy-site-2' });
    const lines = (await loggedLines('privacy-site-1')) + (await loggedLines('privacy-site-2'));
    expect(lines).toContain('shareKey=[redacted]');
    expect(lines).toContain('utm=x');
    for (const secret of ['secretvalue', jwt.split('.')[1], key])
      expect(service.output().stdout + service.output().stderr).not.toContain(secret);
  });

  it('writes the signature of a download URL redacted', async () => {
    const path = `/v1/spaces/${spaceId}/change-requests/${'C'.repeat(20)}/pdf/download?revision=${'R'.repeat(20)}&expires=1767225600&signature=sigsecret0123456789`;
    await call(null, 'GET', path, undefined, { 'x-request-id': 'privacy-pdf-1' });
    expect(await loggedLines('privacy-pdf-1')).toContain('signature=[redacted]');
    expect(service.output().stdout + service.output().stderr).not.toContain('sigsecret0123456789');
  });

  it('never writes the Authorization and Cookie headers', async () => {
    await call(people.eve, 'GET', '/v1/user', undefined, {
      'x-request-id': 'privacy-headers-1',
      cookie: 'site_share_key=cookiesecret0123; site_visitor_token=visitorcookie0123',
    });
    await loggedLines('privacy-headers-1');
    const output = service.output().stdout + service.output().stderr;
    for (const secret of [people.eve.token, people.ada.token, people.zed.token, 'cookiesecret0123', 'visitorcookie0123'])
      expect(output).not.toContain(secret);
  });
});
