import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock';
import { hashToken, bearerToken } from './auth';
import { sendError, ApiError } from './error-envelope';

/**
 * Per-caller rate limiting over fixed one-minute windows: by token (its hash) when one is sent,
 * otherwise by client address. Every `/v1` response carries `X-RateLimit-Limit`,
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds); past the limit the answer is
 * 429 with `Retry-After`. State is per process: with N API replicas the effective limit is N times
 * higher, which the README states.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; used: number }>();
  private currentWindow = 0;

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  take(key: string): { allowed: boolean; remaining: number; resetAt: number } {
    const now = this.clock.now().getTime();
    const start = now - (now % 60_000);
    if (start !== this.currentWindow) {
      // A new window: forget every old counter at once, so memory stays bounded by one minute of callers.
      this.windows = new Map();
      this.currentWindow = start;
    }
    let window = this.windows.get(key);
    if (!window) {
      window = { start, used: 0 };
      this.windows.set(key, window);
    }
    const allowed = window.used < this.perMinute;
    if (allowed) window.used += 1;
    return { allowed, remaining: Math.max(0, this.perMinute - window.used), resetAt: (start + 60_000) / 1000 };
  }

  register(fastify: FastifyInstance, prefix = '/v1'): void {
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!request.url.startsWith(prefix)) return done();
      const token = bearerToken(request.headers.authorization);
      // The hash is kept on the request so the auth guard does not compute it again.
      const tokenHash = token ? hashToken(token) : undefined;
      if (tokenHash) (request as { tokenHash?: string }).tokenHash = tokenHash;
      const key = tokenHash ? `t:${tokenHash}` : `a:${request.ip}`;
      const { allowed, remaining, resetAt } = this.take(key);
      void reply.headers({
        'x-ratelimit-limit': String(this.perMinute),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(resetAt),
      });
      if (!allowed) {
        const retryAfter = Math.max(1, Math.ceil(resetAt - this.clock.now().getTime() / 1000));
        sendError(reply, new ApiError(429, `rate limit of ${this.perMinute} requests per minute exceeded`, { 'Retry-After': String(retryAfter) }), request.id);
        return;
      }
      done();
    });
  }
}
