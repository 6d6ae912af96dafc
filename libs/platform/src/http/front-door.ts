import type { FastifyInstance } from 'fastify';
import { bearerToken, hashToken, type AuthenticatedRequest, type TokenVerifier } from './auth';
import { ApiError, sendError } from './error-envelope';
import type { RateLimiter } from './rate-limit';
import type { ResponseCache } from './response-cache';

export interface FrontDoorOptions {
  /** Requests under this prefix are gated, rate limited and authenticated; every request gets a request id. */
  prefix: string;
  rateLimiter: RateLimiter;
  tokens: TokenVerifier;
  /** SHA-256 of ADMIN_TOKEN. */
  adminTokenHash: string;
  /** False while the read models are being rebuilt at start: the prefix answers 503 meanwhile. */
  isReady: () => boolean;
  /** Answers of @CachedRead routes; none cached when absent. */
  responses?: ResponseCache;
}

/** What the front door notes on a request for the response cache, when the answer may be kept. */
interface CacheableRequest {
  responseCacheKey: string | null;
  responseCacheVersion: number;
}

/**
 * Everything a request goes through before its route handler, in one Fastify `onRequest` hook:
 * the `X-Request-Id` response header, the start-up gate (503 + Retry-After), the rate limit
 * (`X-RateLimit-*`, 429 + Retry-After), the response cache (response-cache.ts) and token
 * verification. The hook only finds out who is
 * calling (`request.caller`, or `request.tokenRejected`); whether a route needs a token or the
 * admin token is the AuthGuard's decision, since only Nest knows the route's metadata.
 *
 * One hook rather than a hook each plus an asynchronous Nest guard: each stage is cheap, but the
 * stages and the promise hops between them were a third of a GET's cost (issue 3's benchmark).
 */
export function registerFrontDoor(fastify: FastifyInstance, options: FrontDoorOptions): void {
  const { prefix, rateLimiter, tokens, adminTokenHash, isReady, responses } = options;
  // Declared up front so that every request object keeps one shape (V8 hidden class).
  fastify.decorateRequest('caller', null);
  fastify.decorateRequest('tokenRejected', false);
  fastify.decorateRequest('responseCacheKey', null);
  fastify.decorateRequest('responseCacheVersion', 0);
  const limit = String(rateLimiter.perMinute);
  const hashes = new TokenHashes();

  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (!request.url.startsWith(prefix)) return done();
    if (!isReady()) {
      return sendError(reply, new ApiError(503, 'the service is starting: read models are being rebuilt from the event log', { 'Retry-After': '1' }), request.id);
    }
    const token = bearerToken(request.headers.authorization);
    const hash = token === null ? null : hashes.of(token);
    const decision = rateLimiter.take(hash === null ? `a:${request.ip}` : `t:${hash}`);
    void reply.header('x-ratelimit-limit', limit).header('x-ratelimit-remaining', String(decision.remaining)).header('x-ratelimit-reset', String(decision.resetAt));
    if (!decision.allowed) {
      const retryAfter = String(rateLimiter.retryAfter(decision));
      return sendError(reply, new ApiError(429, `rate limit of ${limit} requests per minute exceeded`, { 'Retry-After': retryAfter }), request.id);
    }
    if (responses !== undefined && request.method === 'GET' && (request.routeOptions.config as { cachedRead?: boolean }).cachedRead === true) {
      const version = responses.currentVersion();
      if (version !== null) {
        // Checked before the token: at an unchanged version, a token that was valid still is.
        const key = `${hash ?? '-'} ${request.url}`;
        const hit = bypassesCache(request.headers['cache-control']) ? undefined : responses.get(key);
        if (hit !== undefined) return void reply.headers(hit.headers).send(hit.payload);
        (request as unknown as CacheableRequest).responseCacheKey = key;
        (request as unknown as CacheableRequest).responseCacheVersion = version;
      }
    }
    if (hash === null) return done();
    const authenticated = request as unknown as AuthenticatedRequest;
    // Digests of 256-bit secrets: comparing them in variable time reveals nothing usable about a token.
    if (hash === adminTokenHash) {
      authenticated.caller = { kind: 'admin', requestId: request.id };
      return done();
    }
    tokens.verify(hash).then(
      (user) => {
        if (user) authenticated.caller = { kind: 'user', userId: user.userId, tokenId: user.tokenId, user: user.user, requestId: request.id };
        else authenticated.tokenRejected = true;
        done();
      },
      (error: unknown) => sendError(reply, error, request.id),
    );
  });

  if (responses !== undefined) {
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const { responseCacheKey, responseCacheVersion } = request as unknown as CacheableRequest;
      if (responseCacheKey !== null && reply.statusCode === 200 && typeof payload === 'string') {
        responses.set(responseCacheKey, responseCacheVersion, payload, reply.getHeaders());
      }
      done(null, payload);
    });
  }
}

/** `Cache-Control: no-cache` (or `no-store`, `max-age=0`) asks for a fresh answer, which then refreshes the cache. */
function bypassesCache(header: string | string[] | undefined): boolean {
  return header !== undefined && /no-cache|no-store|max-age=0/i.test(String(header));
}

/**
 * SHA-256 of the bearer tokens seen lately, so that a busy client's token is hashed once rather than
 * on every request. Bounded; forgotten all at once when full. It holds tokens the process sees on
 * every request anyway, and never decides validity: the token read model does, on every request.
 */
class TokenHashes {
  private hashes = new Map<string, string>();
  constructor(private readonly capacity = 10_000) {}

  of(token: string): string {
    let hash = this.hashes.get(token);
    if (hash === undefined) {
      if (this.hashes.size >= this.capacity) this.hashes = new Map();
      hash = hashToken(token);
      this.hashes.set(token, hash);
    }
    return hash;
  }
}
