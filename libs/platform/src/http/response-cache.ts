import { RouteConfig } from '@nestjs/platform-fastify';

/**
 * Marks a GET route whose 200 answer is a function of the read models, the caller's token and the
 * URL alone: no clock, no event store, no blob store, no randomness. The front door may then answer
 * a repeated request from the response cache without running the handler.
 */
export const CachedRead = () => RouteConfig({ cachedRead: true });

/** Response headers as Fastify holds them. */
export type ReplyHeaders = Record<string, string | number | string[] | undefined>;

export interface CachedResponse {
  payload: string;
  /** The headers the handler set (ETag, content type); per-request ones are set afresh. */
  headers: ReplyHeaders;
}

/** Headers the front door or Fastify set for each request anew: never replayed from the cache. */
const PER_REQUEST = new Set(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-length']);

/**
 * Answers of @CachedRead routes, valid while the read store's content version stands.
 *
 * Sound because the read side is a pure function of the log: at one content version, the same
 * token and URL get the same answer, including whether the token is still valid (revoking it is a
 * read-model change). Any committed change moves the version and empties the cache at once, so
 * under writes it only costs a lookup; it pays off for repeated reads between writes (polling
 * clients, dashboards). Only stores that know their version (the embedded one) support it; with a
 * database written by a separate projector the version is null and nothing is cached.
 *
 * Bounded in entries and in bytes; large answers (long lists) are not kept.
 */
export class ResponseCache {
  private entries = new Map<string, CachedResponse>();
  private bytes = 0;
  private version: number | null = null;

  constructor(
    private readonly contentVersion: () => number | null,
    private readonly limits = { entries: 10_000, bytes: 32 * 1024 * 1024, entryBytes: 256 * 1024 },
  ) {}

  /** The version a request starts under; null when nothing can be cached. */
  currentVersion(): number | null {
    const version = this.contentVersion();
    if (version !== this.version) this.reset(version);
    return version;
  }

  get(key: string): CachedResponse | undefined {
    return this.currentVersion() === null ? undefined : this.entries.get(key);
  }

  /** Keeps an answer computed under `version`, unless the contents changed meanwhile. */
  set(key: string, version: number, payload: string, headers: ReplyHeaders): void {
    if (this.currentVersion() !== version || payload.length > this.limits.entryBytes) return;
    if (this.entries.size >= this.limits.entries || this.bytes + payload.length > this.limits.bytes) this.reset(version);
    const kept: ReplyHeaders = {};
    for (const name of Object.keys(headers)) if (!PER_REQUEST.has(name)) kept[name] = headers[name];
    this.bytes += payload.length - (this.entries.get(key)?.payload.length ?? 0);
    this.entries.set(key, { payload, headers: kept });
  }

  get size(): number {
    return this.entries.size;
  }

  private reset(version: number | null): void {
    this.entries = new Map();
    this.bytes = 0;
    this.version = version;
  }
}
