import Fastify, { type FastifyInstance } from 'fastify';
import { ManualClock } from '../clock';
import { hashToken, type AuthenticatedRequest, type Caller, type TokenVerifier } from './auth';
import { registerFrontDoor } from './front-door';
import { RateLimiter } from './rate-limit';

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
