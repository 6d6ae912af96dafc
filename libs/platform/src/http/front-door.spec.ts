import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ManualClock } from '../clock';
import { hashToken, type AuthenticatedRequest, type Caller, type TokenVerifier } from './auth';
import { registerFrontDoor } from './front-door';
import { RateLimiter } from './rate-limit';
import { ResponseCache } from './response-cache';

/**
 * The front door on a bare Fastify server with one echo route per prefix: what a request carries
 * when it reaches its handler (caller, token verdict) and what the door answers by itself.
 */

const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const ada: Extract<Caller, { kind: 'user' }> = { kind: 'user', userId: 'u-ada', tokenId: 't-ada', user: { id: 'u-ada', displayName: 'Ada', email: 'ada@example.com', photoURL: null } };

describe('front door', () => {
  let server: FastifyInstance;
  let ready: boolean;
  let clock: ManualClock;
  let verified: string[];
  let verifierFails: boolean;

  const tokens: TokenVerifier = {
    async verify(hash) {
      verified.push(hash);
      if (verifierFails) throw new Error('read store down');
      return hash === hashToken('tok-ada') ? ada : null;
    },
  };

  beforeEach(async () => {
    ready = true;
    verified = [];
    verifierFails = false;
    clock = new ManualClock(new Date('2026-11-22T10:00:30.000Z'));
    server = Fastify({ logger: false, genReqId: () => 'req-1' });
    registerFrontDoor(server, { prefix: '/v1', rateLimiter: new RateLimiter(3, clock), tokens, adminTokenHash: hashToken(ADMIN_TOKEN), isReady: () => ready });
    const echo = async (request: unknown) => {
      const { caller, tokenRejected } = request as AuthenticatedRequest;
      return { caller, tokenRejected };
    };
    server.get('/v1/echo', echo);
    server.get('/health', echo);
    await server.ready();
  });
  afterEach(() => server.close());

  const get = (url: string, token?: string) => server.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('given a user token, then the handler sees the user with the request id, and the rate-limit headers are set', async () => {
    const response = await get('/v1/echo', 'tok-ada');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ caller: { ...ada, requestId: 'req-1' }, tokenRejected: false });
    expect(response.headers).toMatchObject({ 'x-request-id': 'req-1', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': String(Date.parse('2026-11-22T10:01:00.000Z') / 1000) });
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

  it('given the fourth request of a token in one window, then 429 with Retry-After until the window ends; the next window starts afresh', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get('/v1/echo', 'tok-ada')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await get('/v1/echo', 'tok-ada');
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.json()).toEqual({ error: { code: 429, message: 'rate limit of 3 requests per minute exceeded' } });
    // Another caller (here: no token, so by address) has its own budget.
    expect((await get('/v1/echo')).statusCode).toBe(200);
    clock.advance(30_000);
    expect((await get('/v1/echo', 'tok-ada')).statusCode).toBe(200);
  });

  it('given the read models are still being rebuilt, then the prefix answers 503 with Retry-After and other paths are served', async () => {
    ready = false;
    const refused = await get('/v1/echo', 'tok-ada');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-request-id']).toBe('req-1');
    expect(verified).toEqual([]);
    expect((await get('/health')).statusCode).toBe(200);
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
  let version: number;
  let handled: number;
  let verified: number;
  let status: number;

  const tokens: TokenVerifier = {
    async verify(hash) {
      verified++;
      return hash === hashToken('tok-ada') ? ada : null;
    },
  };

  beforeEach(async () => {
    version = 1;
    handled = 0;
    verified = 0;
    status = 200;
    server = Fastify({ logger: false });
    const responses = new ResponseCache(() => version);
    registerFrontDoor(server, { prefix: '/v1', rateLimiter: new RateLimiter(1000, new ManualClock()), tokens, adminTokenHash: hashToken(ADMIN_TOKEN), isReady: () => true, responses });
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      handled++;
      const { caller } = request as unknown as AuthenticatedRequest;
      if (!caller) return reply.status(401).send({ error: 'no caller' });
      void reply.status(status).header('etag', `"${version}"`);
      return { handled, user: caller.kind === 'user' ? caller.userId : caller.kind, url: request.url };
    };
    server.get('/v1/cached', { config: { cachedRead: true } }, handler);
    server.get('/v1/plain', handler);
    await server.ready();
  });
  afterEach(() => server.close());

  const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
    server.inject({ method: 'GET', url, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

  it('given a repeated GET of a cached route at one content version, then the second answer comes from the cache: same body and ETag, no handler, no token lookup', async () => {
    const first = await get('/v1/cached', 'tok-ada');
    const second = await get('/v1/cached', 'tok-ada');
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe('"1"');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['x-ratelimit-remaining']).toBe('998');
    expect(second.headers['x-request-id']).toBeDefined();
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect([handled, verified]).toEqual([1, 1]);
  });

  it('given the contents change, then the next GET runs the handler again', async () => {
    await get('/v1/cached', 'tok-ada');
    version = 2;
    const fresh = await get('/v1/cached', 'tok-ada');
    expect(fresh.json()).toMatchObject({ handled: 2 });
    expect(fresh.headers.etag).toBe('"2"');
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
