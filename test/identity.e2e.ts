/**
 * Identity through HTTP: users, their tokens and revocation, the generated admin
 * token, and what survives a restart or a crash of the embedded service.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUpServices, expectError, printedAdminToken, startService, type RunningService, type UserObject } from './support/service';

const ID = /^[A-Za-z0-9_-]{1,64}$/;
let counter = 0;
const uniqueEmail = (label: string) => `${label}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.com`;

let service: RunningService;

beforeAll(async () => {
  service = await startService();
});

afterAll(cleanUpServices);

const createUser = (body: unknown) => service.request('POST', '/v1/admin/users', { token: service.adminToken, body });
const issueToken = (userId: string) =>
  service.request('POST', `/v1/admin/users/${encodeURIComponent(userId)}/tokens`, { token: service.adminToken });
const revokeToken = (tokenId: string) =>
  service.request('DELETE', `/v1/admin/tokens/${encodeURIComponent(tokenId)}`, { token: service.adminToken });
const me = (token: string) => service.request('GET', '/v1/user', { token });

describe('POST /v1/admin/users', () => {
  it('answers 201 { user, token }: a user object with a lower-cased e-mail and an absolute location', async () => {
    const email = `Ada.Lovelace.${process.pid}.${++counter}@Example.COM`;
    const response = await createUser({ email, displayName: 'Ada Lovelace' });
    expect(response.status).toBe(201);
    const { user, token } = response.body as { user: UserObject; token: string };
    expect(user).toMatchObject({ object: 'user', displayName: 'Ada Lovelace', email: email.toLowerCase() });
    // No photo: the member is left out rather than sent as null.
    expect(user).not.toHaveProperty('photoURL');
    expect(user.id).toMatch(ID);
    // urls.location is absolute, on PUBLIC_URL (which defaults to http://HOST:PORT).
    expect(user.urls.location).toBe(`${service.url}/v1/users/${user.id}`);
    expect(typeof token).toBe('string');
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(token).not.toBe(service.adminToken);

    // The token is the user's: GET /v1/user answers the same user object.
    const current = await me(token);
    expect(current.status).toBe(200);
    expect(current.body).toEqual(user);
  });

  it('gives every user a distinct id and token', async () => {
    const [a, b] = [await service.createUser(), await service.createUser()];
    expect(a.user.id).not.toBe(b.user.id);
    expect(a.token).not.toBe(b.token);
  });

  it('keeps a photoURL when one is given', async () => {
    const response = await createUser({
      email: uniqueEmail('photo'),
      displayName: 'With Photo',
      photoURL: 'https://example.com/avatar.png',
    });
    expect(response.status).toBe(201);
    expect(response.body.user.photoURL).toBe('https://example.com/avatar.png');
    expect((await me(response.body.token)).body.photoURL).toBe('https://example.com/avatar.png');
  });

  it('accepts display names of 1 and 100 characters', async () => {
    for (const displayName of ['A', 'x'.repeat(100)]) {
      const response = await createUser({ email: uniqueEmail('length'), displayName });
      expect({ displayName, status: response.status }).toEqual({ displayName, status: 201 });
      expect(response.body.user.displayName).toBe(displayName);
    }
  });

  describe('validation: 400 naming the field, and nothing is created', () => {
    const email = uniqueEmail('validation');
    it.each([
      ['a missing email', { displayName: 'No Email' }, 'email'],
      ['an email that is not an address', { email: 'not-an-address', displayName: 'Bad Email' }, 'email'],
      ['an email that is not a string', { email: 42, displayName: 'Number Email' }, 'email'],
      [
        'an email longer than 254 characters',
        { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, displayName: 'Long' },
        'email',
      ],
      ['a missing displayName', { email }, 'displayName'],
      ['an empty displayName', { email, displayName: '' }, 'displayName'],
      ['a displayName of 101 characters', { email, displayName: 'x'.repeat(101) }, 'displayName'],
      ['a displayName that is not a string', { email, displayName: 7 }, 'displayName'],
      ['a photoURL that is not http(s)', { email, displayName: 'Ftp', photoURL: 'ftp://example.com/a.png' }, 'photoURL'],
      ['an unknown member', { email, displayName: 'Extra', role: 'admin' }, 'role'],
    ])('refuses %s', async (_label, body, field) => {
      expectError(await createUser(body), 400, field);
    });

    it('left the address free: it can be registered now', async () => {
      const response = await createUser({ email, displayName: 'Finally Valid' });
      expect(response.status).toBe(201);
      expect(response.body.user.email).toBe(email);
    });
  });

  it('answers a second user with the same e-mail, in any case, with 409', async () => {
    const email = uniqueEmail('duplicate');
    expect((await createUser({ email, displayName: 'First' })).status).toBe(201);
    expectError(await createUser({ email, displayName: 'Second' }), 409);
    expectError(await createUser({ email: email.toUpperCase(), displayName: 'Third' }), 409);
  });

  it('creates exactly one user when the same address is registered concurrently', async () => {
    const email = uniqueEmail('race');
    const variants = [email, email.toUpperCase(), email, `${email[0].toUpperCase()}${email.slice(1)}`, email];
    const responses = await Promise.all(variants.map((variant, i) => createUser({ email: variant, displayName: `Racer ${i}` })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) expectError(response, 409);
  });
});

describe('tokens', () => {
  it('POST /v1/admin/users/{userId}/tokens answers 201 { id, token }, and the token works', async () => {
    const { user, token: first } = await service.createUser();
    const response = await issueToken(user.id);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.stringMatching(ID), token: expect.any(String) });
    expect(response.body.token).not.toBe(first);
    const current = await me(response.body.token);
    expect(current.status).toBe(200);
    expect(current.body).toEqual(user);
  });

  it('answers 404 for an unknown user', async () => {
    expectError(await issueToken('noSuchUser0000000000'), 404);
  });

  it('answers GET /v1/user with the user each token belongs to', async () => {
    const alice = await service.createUser(uniqueEmail('alice'), 'Alice');
    const bob = await service.createUser(uniqueEmail('bob'), 'Bob');
    const aliceSecond = (await issueToken(alice.user.id)).body.token as string;
    for (const [token, user] of [
      [alice.token, alice.user],
      [aliceSecond, alice.user],
      [bob.token, bob.user],
    ] as const) {
      const response = await me(token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(user);
    }
  });

  it('DELETE /v1/admin/tokens/{tokenId} answers 204 and the token is refused at once; the other token still works', async () => {
    const { user, token: kept } = await service.createUser();
    const issued = await issueToken(user.id);
    expect((await me(issued.body.token)).status).toBe(200);

    const revoked = await revokeToken(issued.body.id);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');

    // GET /v1/user is a cached read (response cache): the revocation moves the read models, so it shows at once.
    const refused = await me(issued.body.token);
    expectError(refused, 401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer\b/);
    expect((await me(kept)).body).toEqual(user);
  });

  it('answers 404 when revoking a token twice or an unknown token', async () => {
    const { user } = await service.createUser();
    const issued = await issueToken(user.id);
    expect((await revokeToken(issued.body.id)).status).toBe(204);
    expectError(await revokeToken(issued.body.id), 404);
    expectError(await revokeToken('noSuchToken000000000'), 404);
  });
});

describe('PATCH /v1/user (extension): the caller changes their own profile', () => {
  const update = (token: string, body: unknown) => service.request('PATCH', '/v1/user', { token, body });

  it('answers the changed user, and GET /v1/user shows the change at once', async () => {
    const ada = await service.createUser(uniqueEmail('ada'), 'Ada');
    const changed = await update(ada.token, { displayName: 'Ada Lovelace', photoURL: 'https://example.com/ada.png' });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...ada.user, displayName: 'Ada Lovelace', photoURL: 'https://example.com/ada.png' });
    expect((await me(ada.token)).body).toEqual(changed.body);
  });

  it('removes the photo with photoURL null (the member omits it)', async () => {
    const ada = await service.createUser(uniqueEmail('ada'), 'Ada');
    await update(ada.token, { photoURL: 'https://example.com/ada.png' });
    expect((await update(ada.token, { photoURL: null })).body).toEqual(ada.user);
  });

  it('shows the new name in the organizations the user belongs to: member search finds it', async () => {
    const ada = await service.createUser(uniqueEmail('ada'), 'Ada');
    const organization = (await service.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Renamers' } })).body.id as string;
    await update(ada.token, { displayName: 'Augusta' });
    const found = await service.request('GET', `/v1/orgs/${organization}/members?search=augusta`, { token: ada.token });
    expect(found.body.items.map((m: { user: { displayName: string } }) => m.user.displayName)).toEqual(['Augusta']);
    expect(
      (await service.request('GET', `/v1/orgs/${organization}/members?search=ada`, { token: ada.token })).body.items.filter(
        (m: { user: { displayName: string } }) => m.user.displayName === 'Ada',
      ),
    ).toEqual([]);
  });

  it.each([
    ['a blank name', { displayName: '   ' }, /displayName/],
    ['a name over 100 characters', { displayName: 'x'.repeat(101) }, /displayName/],
    ['a photo that is not an http(s) URL', { photoURL: 'javascript:alert(1)' }, /photoURL/],
    ['the e-mail (changed only through its claim)', { email: 'other@example.com' }, /email/],
  ])('answers %s with 400 naming the field, and nothing changes', async (_label, body, field) => {
    const ada = await service.createUser(uniqueEmail('ada'), 'Ada');
    expectError(await update(ada.token, body), 400, field);
    expect((await me(ada.token)).body).toEqual(ada.user);
  });

  describe('If-Match with the ETag of GET /v1/user (the revision of the user’s stream)', () => {
    const updateIf = (token: string, body: unknown, ifMatch: string) =>
      service.request('PATCH', '/v1/user', { token, body, headers: { 'If-Match': ifMatch } });

    it('answers a stale ETag with 412, and the profile and its ETag stay as they were', async () => {
      const ada = await service.createUser(uniqueEmail('ada'), 'Ada');
      const read = await me(ada.token);
      expect(read.headers.etag).toMatch(/^"\d+"$/);
      const renamed = await updateIf(ada.token, { displayName: 'Ada Lovelace' }, read.headers.etag);
      expect(renamed.status).toBe(200);
      expectError(await updateIf(ada.token, { displayName: 'Lost Update' }, read.headers.etag), 412, /If-Match/);
      const after = await me(ada.token);
      expect(after.body).toEqual(renamed.body);
      expect(after.headers.etag).toBe(renamed.headers.etag);
    });

    it('accepts the current ETag: the change is made and answered with the next ETag, the one GET /v1/user answers', async () => {
      const ada = await service.createUser(uniqueEmail('ada'), 'Ada');
      const current = (await me(ada.token)).headers.etag;
      const changed = await updateIf(ada.token, { displayName: 'Augusta' }, current);
      expect(changed.status).toBe(200);
      expect(changed.body.displayName).toBe('Augusta');
      expect(changed.headers.etag).not.toBe(current);
      expect((await me(ada.token)).headers.etag).toBe(changed.headers.etag);
    });
  });
});

describe('the admin token', () => {
  it('is generated on first start, printed once and stored in DATA_DIR/admin-token with mode 0600', async () => {
    const file = join(service.dataDir, 'admin-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, 'utf8').trim();
    expect(stored.length).toBeGreaterThanOrEqual(16);
    expect(stored).toBe(service.adminToken);
    expect(printedAdminToken(service.output().stdout)).toBe(stored);
    expect(service.output().stdout.split(stored).length - 1).toBe(1);
    expect((await createUser({ email: uniqueEmail('admin'), displayName: 'By Admin' })).status).toBe(201);
  });

  it('is taken from ADMIN_TOKEN when set: nothing generated, stored or printed', async () => {
    const adminToken = 'e2e-admin-token-0123456789abcdef';
    const configured = await startService({ env: { ADMIN_TOKEN: adminToken } });
    expect(configured.adminToken).toBe(adminToken);
    expect(existsSync(join(configured.dataDir, 'admin-token'))).toBe(false);
    expect(configured.output().stdout).not.toContain(adminToken);
    expect(printedAdminToken(configured.output().stdout)).toBeUndefined();
    const created = await configured.request('POST', '/v1/admin/users', {
      token: adminToken,
      body: { email: uniqueEmail('env'), displayName: 'Env Admin' },
    });
    expect(created.status).toBe(201);
    await configured.stop();
  });

  it('refuses to start with an ADMIN_TOKEN shorter than 16 characters', async () => {
    await expect(startService({ env: { ADMIN_TOKEN: 'short' } })).rejects.toThrow(/ADMIN_TOKEN must be at least 16 characters/);
  });
});

describe('durability', () => {
  it('keeps users, tokens and revocations across a restart, with the same admin token, not printed again', async () => {
    const alice = await service.createUser(uniqueEmail('restart-alice'), 'Restart Alice');
    const bob = await service.createUser(uniqueEmail('restart-bob'), 'Restart Bob');
    const aliceSecond = (await issueToken(alice.user.id)).body as { id: string; token: string };
    const aliceRevoked = (await issueToken(alice.user.id)).body as { id: string; token: string };
    expect((await revokeToken(aliceRevoked.id)).status).toBe(204);
    const tokens = [alice.token, aliceSecond.token, bob.token];
    const before = await Promise.all(tokens.map(me));
    expect(before.map((response) => response.status)).toEqual([200, 200, 200]);
    const adminToken = service.adminToken;
    const adminFile = readFileSync(join(service.dataDir, 'admin-token'), 'utf8');

    // A graceful stop (SIGTERM) exits cleanly; then the same DATA_DIR and port again.
    expect(await service.stop()).toEqual({ code: 0, signal: null });
    await service.restart();

    expect(service.adminToken).toBe(adminToken);
    expect(readFileSync(join(service.dataDir, 'admin-token'), 'utf8')).toBe(adminFile);
    expect(service.output().stdout).not.toContain(adminToken);
    expect(printedAdminToken(service.output().stdout)).toBeUndefined();

    const after = await Promise.all(tokens.map(me));
    expect(after.map((response) => ({ status: response.status, body: response.body }))).toEqual(
      before.map((response) => ({ status: response.status, body: response.body })),
    );
    expectError(await me(aliceRevoked.token), 401);
    // The e-mail claims survived too, and the rebuilt read models take new commands.
    expectError(await createUser({ email: alice.user.email.toUpperCase(), displayName: 'Copy' }), 409);
    expect((await revokeToken(aliceSecond.id)).status).toBe(204);
    expectError(await me(aliceSecond.token), 401);
    expect((await issueToken(bob.user.id)).status).toBe(201);
  });

  it('loses nothing acknowledged when the process is killed (SIGKILL) right after the writes', async () => {
    const { user, token } = await service.createUser(uniqueEmail('crash'), 'Crash Test');
    const issued = (await issueToken(user.id)).body as { id: string; token: string };
    expect((await revokeToken(issued.id)).status).toBe(204);

    await service.kill();
    expect(service.running).toBe(false);
    await service.restart();

    expect((await me(token)).body).toEqual(user);
    expectError(await me(issued.token), 401);
  });
});

describe('history', () => {
  it('GET /v1/admin/streams/user-<id> lists the user stream', async () => {
    const { user } = await service.createUser(uniqueEmail('history'), 'History');
    const response = await service.request('GET', `/v1/admin/streams/user-${user.id}`, { token: service.adminToken });
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(1);
    expect(response.body.items).toEqual([
      expect.objectContaining({ type: 'UserCreated', data: expect.objectContaining({ userId: user.id, email: user.email }) }),
    ]);
  });

  it('stores tokens only as SHA-256 hashes', async () => {
    const { token } = await service.createUser(uniqueEmail('hashed'), 'Hashed');
    const hash = createHash('sha256').update(token).digest('hex');
    const files = listFiles(service.dataDir).filter((file) => !file.endsWith('admin-token'));
    const contents = files.map((file) => readFileSync(file));
    // The stored hash is found as is, so a plain token would be found too.
    expect(contents.some((content) => content.includes(hash))).toBe(true);
    expect(files.filter((_, i) => contents[i].includes(token))).toEqual([]);
  });
});

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(directory, entry.name)) : entry.isFile() ? [join(directory, entry.name)] : [],
  );
}
