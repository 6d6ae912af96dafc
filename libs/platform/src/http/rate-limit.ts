import type { Clock } from '../clock';

export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** End of the current window, epoch seconds. */
  resetAt: number;
}

/**
 * Per-caller rate limiting over fixed one-minute windows, keyed by the front door: by token (its
 * hash) when it is one already verified valid, otherwise by client address. State is per process: with N API replicas
 * the effective limit is N times higher, which docs/api/conventions.md states.
 */
export class RateLimiter {
  private windows = new Map<string, { used: number }>();
  private currentWindow = 0;

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  take(key: string): RateLimitDecision {
    const start = this.roll();
    let window = this.windows.get(key);
    if (!window) {
      window = { used: 0 };
      this.windows.set(key, window);
    }
    const allowed = window.used < this.perMinute;
    if (allowed) window.used += 1;
    return { allowed, remaining: Math.max(0, this.perMinute - window.used), resetAt: (start + 60_000) / 1000 };
  }

  /** What `take` would decide for `key`, without taking from its budget. */
  peek(key: string): RateLimitDecision {
    const start = this.roll();
    const used = this.windows.get(key)?.used ?? 0;
    return { allowed: used < this.perMinute, remaining: Math.max(0, this.perMinute - used), resetAt: (start + 60_000) / 1000 };
  }

  /** The start of the current window; a new window forgets every old counter at once, so memory stays bounded by one minute of callers. */
  private roll(): number {
    const now = this.clock.now().getTime();
    const start = now - (now % 60_000);
    if (start !== this.currentWindow) {
      this.windows = new Map();
      this.currentWindow = start;
    }
    return start;
  }

  /** Seconds until the current window ends (at least 1), for `Retry-After`. */
  retryAfter(decision: RateLimitDecision): number {
    return Math.max(1, Math.ceil(decision.resetAt - this.clock.now().getTime() / 1000));
  }
}
