/**
 * Hostile input through HTTP against the service started as a user starts it: prototype-named and
 * malformed path ids, deeply nested JSON, ill-formed Unicode and control characters, blank titles,
 * what the HTTP parser refuses (raw sockets), rate-limit evasion with made-up tokens, and weak or
 * malformed If-Match. Every answer is the error envelope, never a 500.
 */
import { connect } from 'node:net';
import { newId } from '#platform/ids';
import { MAX_JSON_DEPTH } from '#platform/http/json-body';
import { cleanUpServices, expectError, startService, type RunningService } from './support/service';

let service: RunningService;
/** AUTH_FAILURES_PER_MINUTE=3. */
let guarded: RunningService;
/** RATE_LIMIT_PER_MINUTE=5. */
let tight: RunningService;
let token: string;
let organizationId: string;

beforeAll(async () => {
  [service, guarded, tight] = await Promise.all([
    startService(),
    startService({ env: { AUTH_FAILURES_PER_MINUTE: '3' } }),
    startService({ env: { RATE_LIMIT_PER_MINUTE: '5' } }),
  ]);
  token = (await service.createUser()).token;
  const created = await service.request('POST', '/v1/orgs', { token, body: { title: 'Hostile Test Org' } });
  expect(created.status).toBe(201);
  organizationId = created.body.id;
});

afterAll(cleanUpServices);

/** One raw HTTP/1.1 exchange: what the server writes until it closes the connection (or 5 s pass). */
function rawExchange(port: number, request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
      if (!match) return reject(new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const raw = rest.join('\r\n\r\n');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // left as text: the assertion on the envelope shows it
      }
      resolve({ status: Number(match[1]), headers, body });
    });
    socket.write(request);
  });
}

function expectRawEnvelope(response: { status: number; headers: Record<string, string>; body: any }, status: number): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: { error: { code: status, message: expect.any(String) } },
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
}

describe('path ids are checked for their exact shape before any lookup', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('answers /v1/orgs/%s with 404', async (name) => {
    expectError(await service.request('GET', `/v1/orgs/${name}`, { token }), 404, 'no organization');
    expectError(await service.request('PATCH', `/v1/orgs/${name}`, { token, body: { title: 'Polluted' } }), 404);
    expectError(await service.request('GET', `/v1/orgs/${organizationId}/members/${name}`, { token }), 404);
    expectError(await service.request('GET', `/v1/orgs/${organizationId}/audit-events/${name}`, { token }), 404);
  });

  it('answers ids of the wrong kind or length with 404', async () => {
    expectError(await service.request('GET', `/v1/orgs/${organizationId.slice(1)}`, { token }), 404);
    expectError(await service.request('GET', `/v1/orgs/${organizationId}_`, { token }), 404);
    expectError(await service.request('GET', `/v1/orgs/${organizationId}/audit-events/${newId()}`, { token }), 404);
    expectError(await service.request('DELETE', `/v1/admin/tokens/__proto__`, { token: service.adminToken }), 404);
  });
});

describe('deeply nested JSON', () => {
  it('answers 10,000 levels of valid JSON with 400, before any transformation', async () => {
    const deep = `{"title":"Deep","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    expectError(await service.request('POST', '/v1/orgs', { token, rawBody: deep }), 400, `more than ${MAX_JSON_DEPTH} levels deep`);
  });

  it('answers 800 KB of [ with 400, and keeps serving', async () => {
    expectError(await service.request('POST', '/v1/orgs', { token, rawBody: '['.repeat(800_000) }), 400, 'levels deep');
    expect((await service.request('GET', '/v1/user', { token })).status).toBe(200);
  });

  it(`accepts nesting up to ${MAX_JSON_DEPTH} levels as far as parsing goes (the DTO then names the unknown member)`, async () => {
    const body = `{"title":"Nested","extra":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    expectError(await service.request('POST', '/v1/orgs', { token, rawBody: body }), 400, 'extra');
  });
});

describe('ill-formed Unicode and control characters', () => {
  it('answers a lone surrogate in an e-mail address with 400 naming email (it was a 500)', async () => {
    const rawBody = '{"email":"ada\\ud800@example.com","displayName":"Ada"}';
    expectError(
      await service.request('POST', '/v1/admin/users', { token: service.adminToken, rawBody }),
      400,
      /^email must be well-formed Unicode/,
    );
  });

  it.each([
    ['a lone surrogate', '"Acme\\udc00"'],
    ['NUL', '"Acme\\u0000"'],
    ['a C1 control', '"Acme\\u009b"'],
    ['an escape sequence', '"\\u001b[31mAcme"'],
  ])('answers %s in a title with 400 naming title, and stores nothing', async (_label, title) => {
    expectError(
      await service.request('POST', '/v1/orgs', { token, rawBody: `{"title":${title}}` }),
      400,
      /^title must be well-formed Unicode/,
    );
    expectError(
      await service.request('PATCH', `/v1/orgs/${organizationId}`, { token, rawBody: `{"title":${title}}` }),
      400,
      /^title must be/,
    );
    expect((await service.request('GET', `/v1/orgs/${organizationId}`, { token })).body.title).toBe('Hostile Test Org');
  });

  it('answers a control character in a member name with 400', async () => {
    expectError(await service.request('POST', '/v1/orgs', { token, rawBody: '{"title":"Acme","ti\\u0000tle":"x"}' }), 400, /member names/);
  });

  it('answers control characters in query values and path parameters with 400 naming them', async () => {
    expectError(await service.request('GET', '/v1/orgs?page=%C2%85', { token }), 400, /^query parameter page must be well-formed Unicode/);
    expectError(await service.request('GET', '/v1/email-domains/example%00.com/orgs', { token }), 400, /^path parameter emailDomain/);
  });

  it.each([
    ['UTF-8 of a lone surrogate in the path', '/v1/email-domains/%ED%A0%80/orgs'],
    ['%u escapes in the path', '/v1/email-domains/%uD800/orgs'],
    ['UTF-8 of a lone surrogate in an id', '/v1/orgs/%ED%B0%80'],
  ])('answers %s with 400, never a 500', async (_label, path) => {
    expectError(await service.request('GET', path, { token }), 400);
  });

  it('leaves undecodable query values as they were sent, never a 500', async () => {
    for (const query of ['page=%ED%A0%80', 'page=%uD800', 'limit=%ED%A0%80']) {
      const response = await service.request('GET', `/v1/orgs?${query}`, { token });
      expectError(response, 400);
    }
  });
});

describe('blank titles are refused alike in every context', () => {
  it.each([
    ['spaces', '   '],
    ['no-break and ideographic spaces', '\u00a0\u3000\u00a0'],
    ['zero-width spaces', '\u200b\u200b'],
  ])('refuses a title of only %s for organizations, teams, spaces and collections', async (_label, title) => {
    expectError(await service.request('POST', '/v1/orgs', { token, body: { title } }), 400, 'title must not be blank');
    expectError(await service.request('PATCH', `/v1/orgs/${organizationId}`, { token, body: { title } }), 400, 'title must not be blank');
    expectError(
      await service.request('PUT', `/v1/orgs/${organizationId}/teams`, { token, body: { title } }),
      400,
      'title must not be blank',
    );
    expectError(
      await service.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body: { title } }),
      400,
      'title must not be blank',
    );
    expectError(
      await service.request('POST', `/v1/orgs/${organizationId}/collections`, { token, body: { title } }),
      400,
      'title must not be blank',
    );
  });
});

describe('what the HTTP layer refuses is in the envelope too (raw sockets)', () => {
  it('answers a 20 KB path with 431 and closes the connection', async () => {
    const response = await rawExchange(service.port, `GET /v1/${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expectRawEnvelope(response, 431);
    expect(response.headers.connection).toBe('close');
  });

  it('answers headers too large with 431', async () => {
    const response = await rawExchange(service.port, `GET /v1/user HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`);
    expectRawEnvelope(response, 431);
  });

  it('answers a request that is not HTTP with 400', async () => {
    expectRawEnvelope(await rawExchange(service.port, 'HELLO THERE\r\n\r\n'), 400);
    expectRawEnvelope(
      await rawExchange(service.port, 'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n'),
      400,
    );
  });

  it('answers an HTTP/1.1 request without Host with 400', async () => {
    expectRawEnvelope(await rawExchange(service.port, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'), 400);
  });

  it('answers an unsupported Expect with 417', async () => {
    expectRawEnvelope(
      await rawExchange(service.port, 'GET /health HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n'),
      417,
    );
  });

  it('answers an unknown method and an unknown route with 404', async () => {
    expectRawEnvelope(await rawExchange(service.port, 'PROPFIND /v1/user HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404);
    expectRawEnvelope(await rawExchange(service.port, 'GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404);
  });

  it('answers an over-long path parameter with 414 and a bad percent-encoding with 400', async () => {
    expectRawEnvelope(
      await rawExchange(service.port, `GET /v1/orgs/${'a'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      414,
    );
    expectRawEnvelope(await rawExchange(service.port, 'GET /v1/orgs/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400);
  });

  it('keeps serving after all of the above', async () => {
    expect((await service.request('GET', '/health')).status).toBe(200);
    expect(service.running).toBe(true);
  });
});

/** Windows are whole clock minutes: start a burst early enough in one that it cannot straddle two. */
async function awayFromWindowEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
}

describe('rate limits cannot be escaped with made-up tokens', () => {
  it('counts a different made-up token on every request against the client address (RATE_LIMIT_PER_MINUTE=5)', async () => {
    await awayFromWindowEnd();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await tight.request('GET', '/v1/user', { token: `made-up-${newId()}` })).status);
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    // The address's budget is the one spent: no token at all is refused too.
    expectError(await tight.request('GET', '/v1/user'), 429);
  });

  it('refuses an address with 429 and Retry-After once it sent more rejected tokens than AUTH_FAILURES_PER_MINUTE=3; verified tokens still work', async () => {
    await awayFromWindowEnd();
    const { token: valid } = await guarded.createUser();
    expect((await guarded.request('GET', '/v1/user', { token: valid })).status).toBe(200);
    for (let i = 0; i < 3; i++) expectError(await guarded.request('GET', '/v1/user', { token: `guess-${newId()}` }), 401);
    const refused = await guarded.request('GET', '/v1/user', { token: `guess-${newId()}` });
    expectError(refused, 429, 'rejected tokens');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await guarded.request('GET', '/v1/user', { token: valid })).status).toBe(200);
  });

  it('refuses a revoked token on its next request, though it was verified valid just before', async () => {
    const { user } = await service.createUser();
    const issued = await service.request('POST', `/v1/admin/users/${user.id}/tokens`, { token: service.adminToken });
    expect(issued.status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await service.request('GET', '/v1/user', { token: issued.body.token })).status).toBe(200);
    expect((await service.request('DELETE', `/v1/admin/tokens/${issued.body.id}`, { token: service.adminToken })).status).toBe(204);
    expectError(await service.request('GET', '/v1/user', { token: issued.body.token }), 401);
  });
});

describe('If-Match uses the strong comparison', () => {
  it('answers a weak ETag with 412 even when it names the current revision, and nothing changes', async () => {
    const current = await service.request('GET', `/v1/orgs/${organizationId}`, { token });
    const weak = `W/${current.headers.etag}`;
    expectError(
      await service.request('PATCH', `/v1/orgs/${organizationId}`, {
        token,
        body: { title: 'Weakly Matched' },
        headers: { 'If-Match': weak },
      }),
      412,
      /strong comparison/,
    );
    expect((await service.request('GET', `/v1/orgs/${organizationId}`, { token })).body.title).toBe(current.body.title);
    const strong = await service.request('PATCH', `/v1/orgs/${organizationId}`, {
      token,
      body: { title: 'Strongly Matched' },
      headers: { 'If-Match': current.headers.etag },
    });
    expect(strong.status).toBe(200);
  });

  it.each([
    ['unquoted', '5'],
    ['a word', 'garbage'],
    ['* in a list', '*, "1"'],
  ])('answers a malformed If-Match (%s) with 400', async (_label, ifMatch) => {
    expectError(
      await service.request('PATCH', `/v1/orgs/${organizationId}`, {
        token,
        body: { title: 'Malformed' },
        headers: { 'If-Match': ifMatch },
      }),
      400,
      /If-Match/,
    );
  });
});
