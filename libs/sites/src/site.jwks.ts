import type { Clock } from '#platform/clock';

/** How long a fetched key set is used, how long a failure is remembered, and how many URLs are kept. */
export interface KeySetCacheLimits {
  cacheMs: number;
  failureMs: number;
  maxUrls: number;
}

/**
 * The key sets of JWKS URLs, each fetched at most once at a time: readers arriving while a URL's set
 * is being fetched wait for that one fetch, a fetched set is used for `cacheMs`, and a failed fetch
 * is remembered for `failureMs` (its readers are refused meanwhile) so that a key server that is
 * down, slow or hostile is not asked again by every request. Bounded in URLs (oldest forgotten).
 */
export class KeySetCache<K> {
  private readonly entries = new Map<string, { until: number; outcome: Promise<K> }>();

  constructor(
    private readonly fetch: (url: string) => Promise<K>,
    private readonly limits: KeySetCacheLimits,
    private readonly clock: Clock,
  ) {}

  get(url: string): Promise<K> {
    const now = this.clock.now().getTime();
    const entry = this.entries.get(url);
    if (entry && entry.until > now) return entry.outcome;
    if (entry) this.entries.delete(url);
    // Until it settles, the fetch stands for the URL: every reader meanwhile shares it.
    const fresh = { until: Number.POSITIVE_INFINITY, outcome: Promise.resolve(url).then(this.fetch) };
    fresh.outcome.then(
      () => (fresh.until = this.clock.now().getTime() + this.limits.cacheMs),
      () => (fresh.until = this.clock.now().getTime() + this.limits.failureMs),
    );
    while (this.entries.size >= this.limits.maxUrls) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(url, fresh);
    return fresh.outcome;
  }
}
