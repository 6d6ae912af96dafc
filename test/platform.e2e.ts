/**
 * The HTTP conventions (docs/api/conventions.md), through HTTP against the embedded service started as a
 * user starts it: error envelope, authentication, validation, request ids, body limit, rate
 * limiting and the operational endpoints (`/health`, `/metrics`, `/v1/openapi.json`, `/docs`).
 *
 * Not covered here: a 500 (no honest way to trigger one through the API as it stands). Hostile
 * input (nesting, Unicode, raw HTTP errors, made-up tokens, If-Match) is in hostile-http.e2e.ts.
 */
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
let counter = 0;
const uniqueEmail = (label: string) => `${label}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.com`;

let service: RunningService;
/** BODY_LIMIT_BYTES=2048. */
let smallBodies: RunningService;
/** RATE_LIMIT_PER_MINUTE=5. */
let limited: RunningService;
let userToken: string;

beforeAll(async () => {
  [service, smallBodies, limited] = await Promise.all([
    startService(),
    startService({ env: { BODY_LIMIT_BYTES: '2048' } }),
    startService({ env: { RATE_LIMIT_PER_MINUTE: '5' } }),
  ]);
  userToken = (await service.createUser()).token;
});

afterAll(cleanUpServices);

describe('error envelope { error: { code, message } }', () => {
  it('answers an unknown route with 404, with or without a token', async () => {
    expectError(await service.request('GET', '/v1/no-such-resource', { token: userToken }), 404, '/v1/no-such-resource');
    expectError(await service.request('GET', '/no-such-page'), 404);
    expectError(await service.request('PUT', '/v1/user', { token: userToken, body: {} }), 404);
  });

  it('answers malformed JSON with 400', async () => {
    const response = await service.request('POST', '/v1/admin/users', {
      token: service.adminToken,
      rawBody: '{"email": "broken@example.com", "displayName": ',
    });
    expectError(response, 400, /JSON/i);
  });

  it('answers an empty body sent as JSON with 400', async () => {
    expectError(await service.request('POST', '/v1/admin/users', { token: service.adminToken, rawBody: '' }), 400);
  });

  it.each([
    ['text/plain', 'email=plain@example.com'],
    ['application/x-www-form-urlencoded', 'email=form%40example.com&displayName=Form'],
    ['application/octet-stream', 'binary'],
    ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="email"\r\n\r\nmulti@example.com\r\n--xyz--\r\n'],
  ])('answers a body of type %s with 415', async (contentType, rawBody) => {
    const response = await service.request('POST', '/v1/admin/users', { token: service.adminToken, rawBody, contentType });
    expectError(response, 415);
  });

  it('answers a path with bad percent-encoding (rejected by the router) with 400 in the envelope', async () => {
    expectError(await service.request('POST', '/v1/admin/users/%ff/tokens', { token: service.adminToken }), 400);
  });

  it('answers an over-long path parameter (rejected by the router) in the envelope', async () => {
    const response = await service.request('POST', `/v1/admin/users/${'a'.repeat(300)}/tokens`, { token: service.adminToken });
    expect([400, 404, 414]).toContain(response.status);
    expectError(response, response.status);
  });

  it('keeps serving after all of the above', async () => {
    const response = await service.request('GET', '/health');
    expect(response.status).toBe(200);
    expect(service.running).toBe(true);
  });
});

describe('authentication and permissions', () => {
  it('answers a missing token with 401 and WWW-Authenticate', async () => {
    const response = await service.request('GET', '/v1/user');
    expectError(response, 401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
  });

  it.each([
    ['a garbage bearer token', 'Bearer not-a-real-token'],
    ['an empty bearer token', 'Bearer '],
    ['another scheme', `Basic ${Buffer.from('user:password').toString('base64')}`],
  ])('answers %s with 401', async (_label, authorization) => {
    const response = await service.request('GET', '/v1/user', { headers: { authorization } });
    expectError(response, 401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
  });

  it('answers the admin token on a user route with 403', async () => {
    expectError(await service.request('GET', '/v1/user', { token: service.adminToken }), 403);
  });

  it('answers a user token on admin routes with 403', async () => {
    expectError(
      await service.request('POST', '/v1/admin/users', {
        token: userToken,
        body: { email: uniqueEmail('forbidden'), displayName: 'Nope' },
      }),
      403,
    );
    expectError(await service.request('DELETE', '/v1/admin/tokens/anything', { token: userToken }), 403);
  });

  it('checks the token before the body: no validation details for callers without the right token', async () => {
    const invalid = { email: 'not-an-address', unknownMember: true };
    expectError(await service.request('POST', '/v1/admin/users', { body: invalid }), 401);
    expectError(await service.request('POST', '/v1/admin/users', { token: userToken, body: invalid }), 403);
  });
});

describe('validation', () => {
  it('answers an unknown member with 400 naming it, and the refused request has no effect', async () => {
    const email = uniqueEmail('unknown-member');
    const refused = await service.request('POST', '/v1/admin/users', {
      token: service.adminToken,
      body: { email, displayName: 'Unknown Member', nickname: 'um' },
    });
    expectError(refused, 400, 'nickname');
    // Nothing was claimed by the refused request: the same address can be registered now.
    const accepted = await service.request('POST', '/v1/admin/users', {
      token: service.adminToken,
      body: { email, displayName: 'Unknown Member' },
    });
    expect(accepted.status).toBe(201);
  });

  it('answers a bad e-mail address with 400 naming email', async () => {
    const response = await service.request('POST', '/v1/admin/users', {
      token: service.adminToken,
      body: { email: 'not-an-address', displayName: 'Bad Email' },
    });
    expectError(response, 400, 'email');
    expect(response.body.error.message).not.toMatch(/displayName/);
  });

  it.each([
    ['null', 'null'],
    ['an array', '[]'],
    ['a string', '"text"'],
  ])('answers a JSON body that is %s with 400', async (_label, rawBody) => {
    expectError(await service.request('POST', '/v1/admin/users', { token: service.adminToken, rawBody }), 400);
  });

  it('refuses prototype-pollution keys with 400', async () => {
    const rawBody = `{"email":"${uniqueEmail('proto')}","displayName":"Proto","__proto__":{"isAdmin":true}}`;
    expectError(await service.request('POST', '/v1/admin/users', { token: service.adminToken, rawBody }), 400);
  });
});

describe('request ids', () => {
  it('puts x-request-id on every response, success or error, inside /v1 or not', async () => {
    const responses: Array<[string, Response]> = [
      ['GET /health', await service.request('GET', '/health')],
      ['GET /metrics', await service.request('GET', '/metrics')],
      ['GET /docs', await service.request('GET', '/docs')],
      ['GET /v1/openapi.json', await service.request('GET', '/v1/openapi.json')],
      ['GET /v1/user', await service.request('GET', '/v1/user', { token: userToken })],
      ['GET /v1/user without token', await service.request('GET', '/v1/user')],
      ['GET /v1/nope', await service.request('GET', '/v1/nope', { token: userToken })],
      [
        'POST /v1/admin/users',
        await service.request('POST', '/v1/admin/users', {
          token: service.adminToken,
          body: { email: uniqueEmail('rid'), displayName: 'Rid' },
        }),
      ],
      ['POST /v1/admin/users bad', await service.request('POST', '/v1/admin/users', { token: service.adminToken, body: {} })],
      [
        'POST text/plain',
        await service.request('POST', '/v1/admin/users', { token: service.adminToken, rawBody: 'x', contentType: 'text/plain' }),
      ],
    ];
    const ids = responses.map(([label, response]) => [label, response.headers['x-request-id']]);
    for (const [label, id] of ids) expect({ label, id }).toEqual({ label, id: expect.stringMatching(REQUEST_ID) });
    // Generated ids are distinct.
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
  });

  it('echoes a valid incoming X-Request-Id, on successes and errors', async () => {
    const ok = await service.request('GET', '/v1/user', { token: userToken, headers: { 'X-Request-Id': 'e2e-client.request:0001' } });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-request-id']).toBe('e2e-client.request:0001');
    const error = await service.request('GET', '/v1/user', { headers: { 'X-Request-Id': 'e2e-client.request:0002' } });
    expectError(error, 401);
    expect(error.headers['x-request-id']).toBe('e2e-client.request:0002');
  });

  it.each([
    ['with forbidden characters', 'bad id <script>'],
    ['longer than 128 characters', 'a'.repeat(129)],
  ])('replaces an incoming X-Request-Id %s with its own', async (_label, given) => {
    const response = await service.request('GET', '/health', { headers: { 'X-Request-Id': given } });
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toMatch(REQUEST_ID);
    expect(response.headers['x-request-id']).not.toBe(given);
  });
});

describe('body limit (BODY_LIMIT_BYTES=2048)', () => {
  it('answers a 10 KB body with 413', async () => {
    const response = await smallBodies.request('POST', '/v1/admin/users', {
      token: smallBodies.adminToken,
      body: { email: uniqueEmail('big'), displayName: 'x'.repeat(10 * 1024) },
    });
    expectError(response, 413);
  });

  it('still accepts bodies under the limit', async () => {
    const { user } = await smallBodies.createUser(uniqueEmail('small'), 'Small Body');
    expect(user.displayName).toBe('Small Body');
  });
});

describe('rate limiting (RATE_LIMIT_PER_MINUTE=5)', () => {
  /** Windows are whole clock minutes: start a burst early enough in one that it cannot straddle two. */
  async function awayFromWindowEnd(): Promise<void> {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
  }

  function rateHeaders(response: Response) {
    return {
      limit: response.headers['x-ratelimit-limit'],
      remaining: response.headers['x-ratelimit-remaining'],
      reset: response.headers['x-ratelimit-reset'],
    };
  }

  it('answers the 6th request of a token in the window with 429 and Retry-After; other callers are unaffected', async () => {
    await awayFromWindowEnd();
    const [first, second] = [await limited.createUser(), await limited.createUser()];
    // A token's first request counts against the client address: only a token verified valid has a budget of its own.
    for (const { token } of [first, second]) expect((await limited.request('GET', '/v1/user', { token })).status).toBe(200);
    const start = Date.now();
    const answers: Response[] = [];
    for (let i = 0; i < 6; i++) answers.push(await limited.request('GET', '/v1/user', { token: first.token }));

    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.map((response) => rateHeaders(response).limit)).toEqual(['5', '5', '5', '5', '5', '5']);
    expect(answers.map((response) => rateHeaders(response).remaining)).toEqual(['4', '3', '2', '1', '0', '0']);
    const resets = answers.map((response) => Number(rateHeaders(response).reset));
    expect(new Set(resets).size).toBe(1);
    expect(resets[0] * 1000).toBeGreaterThan(start);
    expect(resets[0] * 1000).toBeLessThanOrEqual(start + 61_000);

    const refused = answers[5];
    expectError(refused, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The limit is per caller, not per route.
    expectError(await limited.request('POST', '/v1/admin/users/x/tokens', { token: first.token }), 429);

    // Another token has its own budget.
    const other = await limited.request('GET', '/v1/user', { token: second.token });
    expect(other.status).toBe(200);
    expect(other.body.id).toBe(second.user.id);
    expect(rateHeaders(other)).toEqual({ limit: '5', remaining: '4', reset: String(resets[0]) });
  });

  it('limits callers without a token by address', async () => {
    await awayFromWindowEnd();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      last = await limited.request('GET', '/v1/user');
      statuses.push(last.status);
    }
    // The address's earlier requests in this window (the first request of each token above) make the 429 come sooner.
    expect(statuses.join(' ')).toMatch(/^(401 )*429( 429)*$/);
    expectError(last!, 429);
    expect(last!.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('puts X-RateLimit-* headers on every /v1 response, errors included', async () => {
    const responses = [
      await service.request('GET', '/v1/user', { token: userToken }),
      await service.request('GET', '/v1/user'),
      await service.request('GET', '/v1/user', { token: service.adminToken }),
      await service.request('GET', '/v1/nope', { token: userToken }),
      await service.request('POST', '/v1/admin/users', { token: service.adminToken, body: {} }),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 401, 403, 404, 400]);
    for (const response of responses) {
      expect(rateHeaders(response)).toEqual({
        limit: '6000',
        remaining: expect.stringMatching(/^\d+$/),
        reset: expect.stringMatching(/^\d+$/),
      });
    }
  });
});

describe('operational endpoints', () => {
  it('GET /health answers 200 ok with the stores and projections, without a token', async () => {
    await service.createUser(); // something for the projections to have applied
    const response = await service.request('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'ok',
      mode: 'embedded',
      stores: { eventStore: { ok: true }, readStore: { ok: true }, blobStore: { ok: true } },
      projections: { caughtUp: true, lastError: null },
    });
    expect(response.body.projections.head).not.toBeNull();
    expect(response.body.projections.checkpoint).toBe(response.body.projections.head);
  });

  it('GET /metrics is Prometheus text with http_requests_total', async () => {
    await service.request('GET', '/v1/user', { token: userToken });
    const response = await service.request('GET', '/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.text).toMatch(/^# TYPE http_requests_total counter$/m);
    expect(response.text).toMatch(/^http_requests_total\{method="GET",route="\/v1\/user",status="200"\} [1-9]\d*$/m);
    expect(response.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
  });

  it('GET /v1/openapi.json is an OpenAPI 3 document listing the routes', async () => {
    const response = await service.request('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/json/);
    expect(response.body.openapi).toMatch(/^3\./);
    expect(response.body.paths['/v1/user']).toHaveProperty('get');
    expect(response.body.paths['/v1/admin/users']).toHaveProperty('post');
  });

  it('GET /docs answers an HTML page', async () => {
    const response = await service.request('GET', '/docs');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toMatch(/<html/i);
  });
});
