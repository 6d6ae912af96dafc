import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ManualClock } from '../clock';
import { hashToken, type AuthenticatedRequest, type Caller, type TokenVerifier } from './auth';
import { registerFrontDoor } from './front-door';
import { RateLimiter } from './rate-limit';
import { ResponseCache } from './response-cache';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';

/**
 * The front door on a bare Fastify server with one echo route per prefix: what a request carries
 * when it reaches its handler (caller, token verdict) and what the door answers by itself.
 */

const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const ada: Extract<Caller, { kind: 'user' }> = {
  kind: 'user',
  userId: 'u-ada',
  tokenId: 't-ada',
  user: { id: 'u-ada', displayName: 'Ada', email: 'ada@example.com', photoURL: null },
};

describe('front door', () => {
  let server: FastifyInstance;
  let ready: boolean;
  let clock: ManualClock;
  let verified: string[];
  let verifierFails: boolean;
  let revoked: Set<string>;

  const tokens: TokenVerifier = {
    async verify(hash) {
      verified.push(hash);
      if (verifierFails) throw new Error('read store down');
      return hash === hashToken('tok-ada') && !revoked.has(hash) ? ada : null;
    },
  };

  /** The same door with a larger request budget, to see the failure budget alone. */
  async function freshServer(perMinute: number): Promise<FastifyInstance> {
    await server.close();
    const fresh = Fastify({ logger: false, genReqId: () => 'req-1' });
    registerFrontDoor(fresh, {
      prefix: '/v1',
      rateLimiter: new RateLimiter(perMinute, clock),
      authFailures: new RateLimiter(2, clock),
      tokens,
      adminTokenHash: hashToken(ADMIN_TOKEN),
      isReady: () => ready,
    });
    fresh.get('/v1/echo', async (request: unknown) => ({
      caller: (request as AuthenticatedRequest).caller,
      tokenRejected: (request as AuthenticatedRequest).tokenRejected,
    }));
    await fresh.ready();
    return fresh;
  }

  beforeEach(async () => {
    ready = true;
    verified = [];
    revoked = new Set();
    verifierFails = false;
    clock = new ManualClock(new Date('2026-11-22T10:00:30.000Z'));
    server = Fastify({ logger: false, genReqId: () => 'req-1' });
    registerFrontDoor(server, {
      prefix: '/v1',
      rateLimiter: new RateLimiter(3, clock),
      authFailures: new RateLimiter(2, clock),
      tokens,
      adminTokenHash: hashToken(ADMIN_TOKEN),
      isReady: () => ready,
      servedWhileStarting: ['/health', '/docs'],
    });
    const echo = async (request: unknown) => {
      const { caller, tokenRejected } = request as AuthenticatedRequest;
      return { caller, tokenRejected };
    };
    server.get('/v1/echo', echo);
    server.get('/v1/things/:thingId', echo);
    server.get('/health', echo);
    server.get('/healthy', echo);
    server.get('/health/x', echo);
    server.get('/docs', echo);
    server.get('/docs/ui.css', echo);
    server.get('/sites/:siteId/*', echo);
    await server.ready();
  });
  afterEach(() => server.close());

  const get = (url: string, token?: string) =>
    server.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('given a user token, then the handler sees the user with the request id, and the rate-limit headers are set', async () => {
    const response = await get('/v1/echo', 'tok-ada');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ caller: { ...ada, requestId: 'req-1' }, tokenRejected: false });
    expect(response.headers).toMatchObject({
      'x-request-id': 'req-1',
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': String(Date.parse('2026-11-22T10:01:00.000Z') / 1000),
    });
  });

  it('given the admin token, then the handler sees the administrator without asking the token verifier', async () => {
    const response = await get('/v1/echo', ADMIN_TOKEN);
    expect(response.json()).toEqual({ caller: { kind: 'admin', requestId: 'req-1' }, tokenRejected: false });
    expect(verified).toEqual([]);
  });

  it('given an unknown token, then the handler sees no caller and a rejected token; given none, neither', async () => {
    expect((await get('/v1/echo', 'tok-revoked')).json()).toEqual({ caller: null, tokenRejected: true });
    expect((await get('/v1/echo')).json()).toEqual({ caller: null, tokenRejected: false });
    expect((await get('/v1/echo', 'tok-ada')).json()).toMatchObject({ caller: { userId: 'u-ada' } });
  });

  it('given a malformed Authorization header, then it counts as no token', async () => {
    const response = await server.inject({ method: 'GET', url: '/v1/echo', headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(response.json()).toEqual({ caller: null, tokenRejected: false });
    expect(verified).toEqual([]);
  });

  it('given the verifier fails, then the answer is a 500 in the error envelope, not a hung request', async () => {
    verifierFails = true;
    const response = await get('/v1/echo', 'tok-ada');
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: { code: 500, message: 'internal error' } });
  });

  it('given the fourth request of a verified token in one window, then 429 with Retry-After until the window ends; the next window starts afresh', async () => {
    // The token's first request, before it is known valid, counts against the address.
    expect((await get('/v1/echo', 'tok-ada')).headers['x-ratelimit-remaining']).toBe('2');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get('/v1/echo', 'tok-ada')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await get('/v1/echo', 'tok-ada');
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.json()).toEqual({ error: { code: 429, message: 'rate limit of 3 requests per minute exceeded' } });
    // Another caller (here: no token, so by address, which has one request left) has its own budget.
    expect((await get('/v1/echo')).statusCode).toBe(200);
    clock.advance(30_000);
    expect((await get('/v1/echo', 'tok-ada')).statusCode).toBe(200);
  });

  it('given a made-up token on every request, then they all count against the client address', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get('/v1/echo', `made-up-${i}`)).statusCode);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    // The third is refused by the failure budget, the fourth by the address's request budget.
    expect(statuses.slice(2)).toEqual([429, 429]);
    expect((await get('/v1/echo')).statusCode).toBe(429);
  });

  it('given a token once verified valid, then it has a budget of its own, apart from the address', async () => {
    await get('/v1/echo', 'tok-ada');
    for (let i = 0; i < 3; i++) expect((await get('/v1/echo', 'tok-ada')).statusCode).toBe(200);
    expect((await get('/v1/echo')).headers['x-ratelimit-remaining']).toBe('1');
  });

  it('given a verified token that is then revoked, then the next request is refused and it counts against the address again', async () => {
    await get('/v1/echo', 'tok-ada');
    await get('/v1/echo', 'tok-ada');
    revoked.add(hashToken('tok-ada'));
    expect((await get('/v1/echo', 'tok-ada')).json()).toEqual({ caller: null, tokenRejected: true });
    expect(verified).toHaveLength(3);
    // The address already spent one request (the token's first): the next one by address is its second.
    expect((await get('/v1/echo', 'tok-ada')).headers['x-ratelimit-remaining']).toBe('1');
  });

  it('given more rejected tokens from an address than its failure budget, then 429 with Retry-After and no lookup, until the window ends', async () => {
    server = await freshServer(100);
    expect((await get('/v1/echo', 'guess-1')).json()).toEqual({ caller: null, tokenRejected: true });
    expect((await get('/v1/echo', 'guess-2')).json()).toEqual({ caller: null, tokenRejected: true });
    const lookups = verified.length;
    const refused = await get('/v1/echo', 'guess-3');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.json()).toEqual({ error: { code: 429, message: 'too many rejected tokens from this address: at most 2 per minute' } });
    expect(verified).toHaveLength(lookups);
    // Requests without a token are no guesses; nor is the admin token.
    expect((await get('/v1/echo')).statusCode).toBe(200);
    expect((await get('/v1/echo', ADMIN_TOKEN)).statusCode).toBe(200);
    clock.advance(30_000);
    expect((await get('/v1/echo', 'guess-4')).json()).toEqual({ caller: null, tokenRejected: true });
  });

  it('given the failure budget of an address is spent, then a token verified before still works from it', async () => {
    server = await freshServer(100);
    await get('/v1/echo', 'tok-ada');
    await get('/v1/echo', 'guess-1');
    await get('/v1/echo', 'guess-2');
    expect((await get('/v1/echo', 'guess-3')).statusCode).toBe(429);
    expect((await get('/v1/echo', 'tok-ada')).json()).toMatchObject({ caller: { userId: 'u-ada' } });
  });

  it.each([
    ['a C1 control in a query value', '/v1/echo?title=a%C2%85b', /^query parameter title must be well-formed Unicode/],
    ['NUL in a query name', '/v1/echo?a%00=1', /^query parameter names must be well-formed Unicode/],
    ['a C0 control in a path parameter', '/v1/things/a%1Bb', /^path parameter thingId must be well-formed Unicode/],
    ['DEL in a repeated query value', '/v1/echo?x=1&x=%7F', /^query parameter x must be/],
    ['a query value whose escapes encode a lone surrogate', '/v1/echo?title=%ED%A0%80', /^the query string must be well-formed Unicode/],
    ['a query value whose escapes are not UTF-8 at all', '/v1/echo?title=%FF', /^the query string must be well-formed Unicode/],
    ['a query parameter named __proto__', '/v1/echo?__proto__=1', /^query parameter __proto__ is not allowed/],
    ['a query parameter named constructor', '/v1/echo?constructor=1', /^query parameter constructor is not allowed/],
    ['a query parameter named toString', '/v1/echo?toString=x', /^query parameter toString is not allowed/],
  ])('given %s, then 400 naming it', async (_label, url, message) => {
    const response = await get(url, 'tok-ada');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 400, message: expect.stringMatching(message) } });
    expect(verified).toEqual([]);
  });

  it('given the read models are still being rebuilt, then the prefix answers 503 with Retry-After and the paths served while starting are served', async () => {
    ready = false;
    const refused = await get('/v1/echo', 'tok-ada');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-request-id']).toBe('req-1');
    expect(verified).toEqual([]);
    expect((await get('/health')).statusCode).toBe(200);
    expect((await get('/health?verbose=1')).statusCode).toBe(200);
    expect((await get('/docs')).statusCode).toBe(200);
  });

  it('given the read models are still being rebuilt, then a path outside the prefix that is not served while starting answers 503 too', async () => {
    ready = false;
    const refused = await get('/sites/site-1/guide');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({
      error: { code: 503, message: 'the service is starting: read models are being rebuilt from the event log' },
    });
    // A name that only begins like a served path is not one, nor is a path below it (the sites' catch-all would answer it).
    expect((await get('/healthy')).statusCode).toBe(503);
    expect((await get('/health/x')).statusCode).toBe(503);
    expect((await get('/docs/ui.css')).statusCode).toBe(503);
    ready = true;
    expect((await get('/sites/site-1/guide')).statusCode).toBe(200);
  });

  it('given a path outside the prefix, then only the request id is added: no rate limit, no token lookup', async () => {
    const response = await get('/health', 'tok-ada');
    expect(response.json()).toEqual({ caller: null, tokenRejected: false });
    expect(response.headers['x-request-id']).toBe('req-1');
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    expect(verified).toEqual([]);
  });
});

describe('front door with the response cache', () => {
  let server: FastifyInstance;
  let store: MemoryReadStore;
  let handled: number;
  let verified: number;
  let status: number;
  /** Set to hold the handler after its first read, until released. */
  let gate: Promise<void> | null;

  /** Tokens are documents of `tokens` keyed by their hash, as the read-model verifier reads them. */
  const tokens: TokenVerifier = {
    async verify(hash) {
      verified++;
      return (await store.collection('tokens').get(hash)) ? ada : null;
    },
  };

  beforeEach(async () => {
    handled = 0;
    verified = 0;
    status = 200;
    gate = null;
    store = new MemoryReadStore();
    await store.collection('tokens').put({ _id: hashToken('tok-ada') });
    await store.collection('docs').put({ _id: 'd1', title: 'One' });
    await store.collection('docs').put({ _id: 'd2', title: 'Two' });
    server = Fastify({ logger: false });
    const responses = new ResponseCache(store);
    registerFrontDoor(server, {
      prefix: '/v1',
      rateLimiter: new RateLimiter(1000, new ManualClock()),
      tokens,
      adminTokenHash: hashToken(ADMIN_TOKEN),
      isReady: () => true,
      responses,
    });
    const answer = (read: () => Promise<unknown>) => async (request: FastifyRequest, reply: FastifyReply) => {
      handled++;
      const { caller } = request as unknown as AuthenticatedRequest;
      if (!caller) return reply.status(401).send({ error: 'no caller' });
      const first = await read();
      if (gate) await gate;
      void reply.status(status).header('etag', '"1"');
      return { handled, user: caller.kind === 'user' ? caller.userId : caller.kind, url: request.url, read: first };
    };
    const getDoc = answer(() => store.collection('docs').get('d1'));
    server.get('/v1/cached', { config: { cachedRead: true } }, getDoc);
    server.get(
      '/v1/cached-list',
      { config: { cachedRead: true } },
      answer(async () => (await store.collection('docs').find({}, { count: false })).items),
    );
    server.get('/v1/plain', getDoc);
    await server.ready();
  });
  afterEach(async () => {
    await server.close();
    await store.close();
  });

  const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
    server.inject({ method: 'GET', url, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

  it('given a repeated GET of a cached route with nothing written, then the second answer comes from the cache: same body and ETag, no handler, no token lookup', async () => {
    const first = await get('/v1/cached', 'tok-ada');
    const second = await get('/v1/cached', 'tok-ada');
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe('"1"');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    // The first request counted against the address (the token was not known valid yet), the second against the token.
    expect(second.headers['x-ratelimit-remaining']).toBe('999');
    expect(second.headers['x-request-id']).toBeDefined();
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect([handled, verified]).toEqual([1, 1]);
  });

  it('given a write to what a get did not read (another document, another collection), then its cached answer is still served', async () => {
    await get('/v1/cached', 'tok-ada');
    await store.collection('docs').update('d2', { $set: { title: 'Two, again' } });
    await store.collection('elsewhere').put({ _id: 'x' });
    expect((await get('/v1/cached', 'tok-ada')).json()).toMatchObject({ handled: 1 });
  });

  it('given a write to the document a get read, then its cached answer is not served: the handler answers with the new document', async () => {
    await get('/v1/cached', 'tok-ada');
    await store.collection('docs').update('d1', { $set: { title: 'One, renamed' } });
    expect((await get('/v1/cached', 'tok-ada')).json()).toMatchObject({ handled: 2, read: { title: 'One, renamed' } });
  });

  it('given a document added to the collection a list queried, then its cached answer is not served', async () => {
    await get('/v1/cached-list', 'tok-ada');
    await store.collection('docs').put({ _id: 'd3', title: 'Three' });
    const fresh = await get('/v1/cached-list', 'tok-ada');
    expect(fresh.json()).toMatchObject({ handled: 2 });
    expect((fresh.json() as { read: unknown[] }).read).toHaveLength(3);
  });

  it('given the token revoked after an answer was cached, then that answer is not served: the token is refused', async () => {
    await get('/v1/cached', 'tok-ada');
    await store.collection('tokens').delete(hashToken('tok-ada'));
    expect((await get('/v1/cached', 'tok-ada')).statusCode).toBe(401);
  });

  it('given a write to what a handler already read while it computes its answer, then that answer is served but not kept', async () => {
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    const pending = get('/v1/cached', 'tok-ada');
    while (handled === 0) await new Promise((resolve) => setImmediate(resolve));
    await store.collection('docs').update('d1', { $set: { title: 'One, meanwhile' } });
    release();
    expect((await pending).statusCode).toBe(200);
    gate = null;
    expect((await get('/v1/cached', 'tok-ada')).json()).toMatchObject({ handled: 2, read: { title: 'One, meanwhile' } });
  });

  it('given another token, another URL or another query, then answers are not shared', async () => {
    await get('/v1/cached', 'tok-ada');
    expect((await get('/v1/cached', ADMIN_TOKEN)).json()).toMatchObject({ handled: 2, user: 'admin' });
    expect((await get('/v1/cached?limit=1', 'tok-ada')).json()).toMatchObject({ handled: 3, url: '/v1/cached?limit=1' });
    expect((await get('/v1/cached', 'tok-unknown')).statusCode).toBe(401);
    expect((await get('/v1/cached', 'tok-unknown')).statusCode).toBe(401);
    expect(handled).toBe(5);
  });

  it('given Cache-Control: no-cache, then the handler runs and its answer refreshes the cache', async () => {
    await get('/v1/cached', 'tok-ada');
    expect((await get('/v1/cached', 'tok-ada', { 'cache-control': 'no-cache' })).json()).toMatchObject({ handled: 2 });
    expect((await get('/v1/cached', 'tok-ada')).json()).toMatchObject({ handled: 2 });
  });

  it('given a route not marked cached, a non-200 answer or a method other than GET, then nothing is kept', async () => {
    await get('/v1/plain', 'tok-ada');
    expect((await get('/v1/plain', 'tok-ada')).json()).toMatchObject({ handled: 2 });
    status = 203;
    await get('/v1/cached', 'tok-ada');
    expect((await get('/v1/cached', 'tok-ada')).json()).toMatchObject({ handled: 4 });
    status = 200;
    await server.inject({ method: 'HEAD', url: '/v1/cached', headers: { authorization: 'Bearer tok-ada' } });
    expect((await get('/v1/cached', 'tok-ada')).json()).toMatchObject({ handled: 6 });
  });
});
