import type { Clock } from '#platform/clock';
import { ApiError } from '#platform/http/error-envelope';

const WINDOW_MS = 60_000;

/**
 * Failed SAML logins per client address, counted in process: past `perMinute` failures within a
 * minute of an address's first one, its ACS requests answer 429 (with Retry-After) until the
 * minute is over. Guessing at the ACS (forged, replayed or refused responses) then costs the
 * guesser minutes, while the API-wide rate limit stays generous for everything else. Memory is
 * bounded: at most `maxAddresses` are tracked, the oldest windows going first.
 */
export class SamlFailureLimiter {
  /** In the order windows started (an address whose window restarts moves to the end). */
  private readonly windows = new Map<string, { startedAt: number; failures: number }>();

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
    private readonly maxAddresses = 10_000,
  ) {}

  /** 429 when the address has used up its failures for now. */
  check(address: string): void {
    const now = this.clock.now().getTime();
    const window = this.current(address, now);
    if (window && window.failures >= this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000));
      throw new ApiError(
        429,
        `too many failed SAML logins from this address (at most ${this.perMinute} a minute); retry in ${retryAfter} seconds`,
        {
          'Retry-After': String(retryAfter),
        },
      );
    }
  }

  recordFailure(address: string): void {
    const now = this.clock.now().getTime();
    const window = this.current(address, now);
    if (window) {
      window.failures += 1;
      return;
    }
    this.evict(now);
    this.windows.set(address, { startedAt: now, failures: 1 });
  }

  private current(address: string, now: number) {
    const window = this.windows.get(address);
    if (window && now - window.startedAt < WINDOW_MS) return window;
    if (window) this.windows.delete(address);
    return undefined;
  }

  /** Drops windows that are over (they are first), then the oldest ones while the map is full. */
  private evict(now: number): void {
    for (const [address, window] of this.windows) {
      if (now - window.startedAt < WINDOW_MS && this.windows.size < this.maxAddresses) break;
      this.windows.delete(address);
    }
  }

  /** Addresses tracked (for tests of the bound). */
  get size(): number {
    return this.windows.size;
  }
}

export const SAML_FAILURE_LIMITER = Symbol('SAML_FAILURE_LIMITER');
