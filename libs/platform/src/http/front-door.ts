import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, hashToken, type AuthenticatedRequest, type TokenVerifier } from './auth';
import { ApiError, sendError } from './error-envelope';
import { fieldPath, isAcceptableText, isPrototypeMemberName, TEXT_RULE } from './input-text';
import { systemClock } from '../clock';
import { RateLimiter, type RateLimitDecision } from './rate-limit';
import type { ReadSet, ResponseCache } from './response-cache';

/** Rejected tokens a client address may send per minute (AUTH_FAILURES_PER_MINUTE). */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 30;

export interface FrontDoorOptions {
  /** Requests under this prefix are gated, rate limited and authenticated; every request gets a request id. */
  prefix: string;
  rateLimiter: RateLimiter;
  /**
   * Rejected tokens per client address: past its budget, an address's unverified tokens are refused
   * (429) without a lookup. Default: DEFAULT_AUTH_FAILURES_PER_MINUTE on the system clock.
   */
  authFailures?: RateLimiter;
  tokens: TokenVerifier;
  /** SHA-256 of ADMIN_TOKEN. */
  adminTokenHash: string;
  /**
   * False while the read models are being rebuilt at start: every path answers 503 meanwhile, the
   * prefix and the published sites alike, except `servedWhileStarting`.
   */
  isReady: () => boolean;
  /**
   * Paths that answer while the read models are rebuilt (health, metrics, the API's documentation),
   * each exactly: any path below one of them may reach the published sites' catch-all route, and so
   * the stores.
   */
  servedWhileStarting?: readonly string[];
  /** Answers of @CachedRead routes; none cached when absent. */
  responses?: ResponseCache;
}

/** What the front door notes on a request for the response cache, when the answer may be kept. */
interface CacheableRequest {
  responseCacheKey: string | null;
  /** What the answer read, recorded while the token is checked and the handler runs. */
  responseCacheReads: ReadSet | null;
}

/**
 * Everything a request goes through before its route handler, in one Fastify `onRequest` hook:
 * the `X-Request-Id` response header, the start-up gate (503 + Retry-After), the rate limit
 * (`X-RateLimit-*`, 429 + Retry-After), the text rule for path parameters and query values (400),
 * the response cache (response-cache.ts) and token verification. The hook only finds out who is
 * calling (`request.caller`, or `request.tokenRejected`); whether a route needs a token or the
 * admin token is the AuthGuard's decision, since only Nest knows the route's metadata.
 *
 * One hook rather than a hook each plus an asynchronous Nest guard: each stage is cheap, but the
 * stages and the promise hops between them were a third of a GET's cost (the API benchmark, docs/architecture.md, Benchmarks).
 *
 * Rate limits: a token has a budget of its own only once it has been verified valid; any other
 * token counts against the client address, so a made-up token per request buys no fresh budget.
 * Rejected tokens also count against the address's failure budget (`authFailures`): once it is
 * spent, unverified tokens from the address are refused with 429 before any lookup, so tokens
 * cannot be guessed at speed.
 */
export function registerFrontDoor(fastify: FastifyInstance, options: FrontDoorOptions): void {
  const { prefix, rateLimiter, tokens, adminTokenHash, isReady, responses } = options;
  const startingPaths = new Set(options.servedWhileStarting ?? []);
  const servedWhileStarting = (url: string): boolean => {
    const end = url.indexOf('?');
    return startingPaths.has(end === -1 ? url : url.slice(0, end));
  };
  const authFailures = options.authFailures ?? new RateLimiter(DEFAULT_AUTH_FAILURES_PER_MINUTE, systemClock);
  // Declared up front so that every request object keeps one shape (V8 hidden class).
  fastify.decorateRequest('caller', null);
  fastify.decorateRequest('tokenRejected', false);
  fastify.decorateRequest('responseCacheKey', null);
  fastify.decorateRequest('responseCacheReads', null);
  const limit = String(rateLimiter.perMinute);
  const verified = new VerifiedTokens();

  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      // Node's own answer to this is an empty 400; the server is told to let it through to here.
      void reply.header('connection', 'close');
      return sendError(reply, new ApiError(400, 'an HTTP/1.1 request needs a Host header'), request.id);
    }
    const inPrefix = request.url.startsWith(prefix);
    // Read models being rebuilt would answer with the past (a published page not projected yet is a
    // 404), and the replay has the stores to itself meanwhile (it may unmap their files).
    if (!isReady() && (inPrefix || !servedWhileStarting(request.url))) {
      return sendError(
        reply,
        new ApiError(503, 'the service is starting: read models are being rebuilt from the event log', { 'Retry-After': '1' }),
        request.id,
      );
    }
    if (!inPrefix) return done();
    const token = bearerToken(request.headers.authorization);
    const known = token === null ? undefined : verified.hashOf(token);
    const decision = rateLimiter.take(known === undefined ? `a:${request.ip}` : `t:${known}`);
    void reply
      .header('x-ratelimit-limit', limit)
      .header('x-ratelimit-remaining', String(decision.remaining))
      .header('x-ratelimit-reset', String(decision.resetAt));
    if (!decision.allowed) {
      const retryAfter = String(rateLimiter.retryAfter(decision));
      return sendError(
        reply,
        new ApiError(429, `rate limit of ${limit} requests per minute exceeded`, { 'Retry-After': retryAfter }),
        request.id,
      );
    }
    const problem = requestTextProblem(request.params, request.query, request.url);
    if (problem !== null) return sendError(reply, new ApiError(400, problem), request.id);
    const hash = token === null ? null : (known ?? hashToken(token));
    if (
      responses?.enabled === true &&
      request.method === 'GET' &&
      (request.routeOptions.config as { cachedRead?: boolean }).cachedRead === true
    ) {
      // Checked before the token: the token's verification is in the answer's read set, so while
      // the entry stands, a token that was valid still is.
      const key = `${hash ?? '-'} ${request.url}`;
      const hit = bypassesCache(request.headers['cache-control']) ? undefined : responses.get(key);
      if (hit !== undefined) return void reply.headers(hit.headers).send(hit.payload);
      const reads = responses.begin();
      (request as unknown as CacheableRequest).responseCacheKey = key;
      (request as unknown as CacheableRequest).responseCacheReads = reads;
      return responses.track(reads, () => authenticate(token, hash, known !== undefined, request, reply, done));
    }
    authenticate(token, hash, known !== undefined, request, reply, done);
  });

  /** Finds out who calls (`request.caller`, or `request.tokenRejected`), then lets the request on. */
  function authenticate(
    token: string | null,
    hash: string | null,
    known: boolean,
    request: FastifyRequest,
    reply: FastifyReply,
    done: () => void,
  ): void {
    if (token === null || hash === null) return done();
    const authenticated = request as unknown as AuthenticatedRequest;
    // Digests of 256-bit secrets: comparing them in variable time reveals nothing usable about a token.
    if (hash === adminTokenHash) {
      verified.remember(token, hash);
      authenticated.caller = { kind: 'admin', requestId: request.id };
      return done();
    }
    const failures = request.ip;
    if (!known) {
      const budget = authFailures.peek(failures);
      if (!budget.allowed) return refuseGuessing(reply, budget, request.id);
    }
    tokens.verify(hash).then(
      (user) => {
        if (user) {
          verified.remember(token, hash);
          authenticated.caller = { kind: 'user', userId: user.userId, tokenId: user.tokenId, user: user.user, requestId: request.id };
          return done();
        }
        // Revoked or unknown: the token loses its own budget and counts as a failure of the address.
        verified.forget(token);
        authenticated.tokenRejected = true;
        const failure = authFailures.take(failures);
        if (!failure.allowed) return refuseGuessing(reply, failure, request.id);
        done();
      },
      (error: unknown) => sendError(reply, error, request.id),
    );
  }

  function refuseGuessing(reply: Parameters<typeof sendError>[0], budget: RateLimitDecision, requestId: string): void {
    const retryAfter = String(authFailures.retryAfter(budget));
    sendError(
      reply,
      new ApiError(429, `too many rejected tokens from this address: at most ${authFailures.perMinute} per minute`, {
        'Retry-After': retryAfter,
      }),
      requestId,
    );
  }

  if (responses?.enabled === true) {
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const cacheable = request as unknown as CacheableRequest;
      const { responseCacheKey, responseCacheReads } = cacheable;
      if (responseCacheKey !== null && responseCacheReads !== null) {
        cacheable.responseCacheReads = null;
        if (reply.statusCode === 200 && typeof payload === 'string')
          responses.keep(responseCacheKey, responseCacheReads, payload, reply.getHeaders());
        else responses.abandon(responseCacheReads);
      }
      done(null, payload);
    });
    fastify.addHook('onRequestAbort', (request, done) => {
      const cacheable = request as unknown as CacheableRequest;
      if (cacheable.responseCacheReads !== null) responses.abandon(cacheable.responseCacheReads);
      cacheable.responseCacheReads = null;
      done();
    });
  }
}

/** `Cache-Control: no-cache` (or `no-store`, `max-age=0`) asks for a fresh answer, which then refreshes the cache. */
function bypassesCache(header: string | string[] | undefined): boolean {
  return header !== undefined && /no-cache|no-store|max-age=0/i.test(String(header));
}

/**
 * Path parameters and query values (and names) that break the text rule (input-text.ts), and query
 * parameters named like `Object.prototype` members, as a 400 message naming the parameter, or
 * null. Bodies are checked by their parser.
 */
export function requestTextProblem(params: unknown, query: unknown, url = ''): string | null {
  // The query parser keeps a value whose escapes are not UTF-8 (`%ED%A0%80`, a lone surrogate) as its
  // raw text rather than refusing it: refused here, so that no handler sees text the client did not mean.
  const queryStart = url.indexOf('?');
  if (queryStart !== -1 && url.includes('%', queryStart) && !isPercentEncodedUtf8(url.slice(queryStart + 1))) {
    return `the query string ${TEXT_RULE} (its %-escapes must encode UTF-8)`;
  }
  if (params !== null && typeof params === 'object') {
    for (const name in params) {
      const value = (params as Record<string, unknown>)[name];
      if (typeof value === 'string' && !isAcceptableText(value)) return `path parameter ${name} ${TEXT_RULE}`;
    }
  }
  if (query !== null && typeof query === 'object') {
    for (const name in query) {
      if (!isAcceptableText(name)) return `query parameter names ${TEXT_RULE}`;
      if (isPrototypeMemberName(name)) return `query parameter ${name} is not allowed`;
      const value = (query as Record<string, unknown>)[name];
      const values = Array.isArray(value) ? value : [value];
      for (const each of values)
        if (typeof each === 'string' && !isAcceptableText(each)) return `query parameter ${fieldPath([name])} ${TEXT_RULE}`;
    }
  }
  return null;
}

/**
 * The bearer tokens verified valid lately, with their SHA-256, so that a busy client's token is
 * hashed once rather than on every request and has a rate-limit budget of its own. Only tokens the
 * verifier accepted get in, so made-up tokens neither fill it nor earn a budget. Bounded; forgotten
 * all at once when full. It never decides validity: the verifier does, on every request, and a
 * token it rejects is dropped at once.
 */
class VerifiedTokens {
  private hashes = new Map<string, string>();
  constructor(private readonly capacity = 10_000) {}

  hashOf(token: string): string | undefined {
    return this.hashes.get(token);
  }

  remember(token: string, hash: string): void {
    if (this.hashes.has(token)) return;
    if (this.hashes.size >= this.capacity) this.hashes = new Map();
    this.hashes.set(token, hash);
  }

  forget(token: string): void {
    this.hashes.delete(token);
  }
}

function isPercentEncodedUtf8(queryString: string): boolean {
  try {
    decodeURIComponent(queryString);
    return true;
  } catch {
    return false;
  }
}
