import { resolve } from 'node:path';
import { defaultThreads } from './untrusted-work/worker-pool';

/** Everything the service reads from its environment, validated once at start. */
export interface AppConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Absolute base of every `urls.*` member, without a trailing slash. */
  publicUrl: string;
  adminToken: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Absent: embedded LMDB. */
  eventStoreUrl: string | undefined;
  /** Absent: embedded in-memory read models and filesystem blobs. */
  mongodbUrl: string | undefined;
  /** How long a write waits for its events to reach the read models before answering anyway. */
  readYourWritesTimeoutMs: number;
  /** Requests per minute per token (or per address without one). */
  rateLimitPerMinute: number;
  /** Rejected bearer tokens per minute per client address before the address is refused (429). */
  authFailuresPerMinute: number;
  /** Requests per minute per client address to the published sites (`/sites/*` and sites' hostnames; SITES_RATE_LIMIT_PER_MINUTE). */
  sitesRateLimitPerMinute: number;
  /** Reverse proxies in front of the service whose X-Forwarded-For is trusted for the client address; 0: none. */
  trustProxyHops: number;
  /** Largest accepted request body in bytes. */
  bodyLimitBytes: number;
  /**
   * Largest append to the event log, in bytes of JSON (data + metadata of every event of one append):
   * KurrentDB refuses appends over its maximum append size (1 MiB by default), so both modes refuse
   * larger batches (docs/architecture.md, Event store limits). Same default as the event store's own.
   */
  eventBatchLimitBytes: number;
  /**
   * Heap target of a replay, in MiB (REPLAY_HEAP_MB, default 384): while projections replay the log
   * (a rebuild, a first start, catching up from far behind), the heap is collected whenever it holds
   * more than this or 1.5 times what survived the last collection (`ReplayHeap`).
   */
  replayHeapMb: number;
  /**
   * File pages of a replay, in MiB (REPLAY_MAPPED_MB, default 128; embedded mode): while a rebuild,
   * or the catch-up at start, replays the log, the stores unmap their files whenever more than this
   * of their pages are resident (`ReplayMappedPages`).
   */
  replayMappedMb: number;
  /**
   * Read-model files up to this size, in MiB (READ_MODEL_SYNC_CHECK_MB, default 64; embedded mode),
   * have their checksum compared before the start goes on; larger ones on a worker thread while the
   * service serves (`ReadModelFile.open`).
   */
  readModelSyncCheckMb: number;
  /** Failed SAML logins (any 4xx from the ACS) per minute per client address before the address is refused (429). */
  samlFailedLoginsPerMinute: number;
  /** DNS servers (`ip` or `ip:port`) used for domain verification; empty: the system's. */
  dnsServers: string[];
  /**
   * Whether content imports and file uploads by URL may fetch from private, loopback and link-local
   * addresses. Off by default: the service must not be a way into the network it runs in.
   */
  importAllowPrivateNetworks: boolean;
  /**
   * Whether integration deliveries (development tunnels) and integration scripts' fetches may reach
   * private, loopback and link-local addresses (INTEGRATIONS_ALLOW_PRIVATE_NETWORKS). Off by default.
   */
  integrationsAllowPrivateNetworks: boolean;
  /** Whether sites' visitor-authentication key sets (JWKS URLs) may be fetched from private, loopback and link-local addresses (SITES_ALLOW_PRIVATE_NETWORKS). Off by default. */
  sitesAllowPrivateNetworks: boolean;
  /**
   * Whether fetching OpenAPI specs (their URL, redirects and external `$ref`s) may reach private,
   * loopback and link-local addresses (OPENAPI_ALLOW_PRIVATE_NETWORKS). Off by default.
   */
  openapiAllowPrivateNetworks: boolean;
  /** Fetching one OpenAPI document, redirects included (OPENAPI_FETCH_TIMEOUT_MS, default 10 s). */
  openapiFetchTimeoutMs: number;
  /** Parsing, bundling and validating one OpenAPI source on a worker thread, its external `$ref`s fetched included (OPENAPI_PROCESSING_TIME_MS, default 20 s). */
  openapiProcessingTimeMs: number;
  /** Largest OpenAPI document fetched or given, in bytes (OPENAPI_MAX_BYTES, default 5 MiB). */
  openapiMaxBytes: number;
  /** Redirects followed when fetching an OpenAPI document (OPENAPI_MAX_REDIRECTS, default 5). */
  openapiMaxRedirects: number;
  /** Worker threads of the untrusted-work pool (UNTRUSTED_WORK_THREADS, default: the cores, 2 to 4). */
  untrustedWorkThreads: number;
  /** Heap of each of its threads in MiB (UNTRUSTED_WORK_MEMORY_MB, default 256). */
  untrustedWorkMemoryMb: number;
  /** Time budget of a task that names none of its own, in ms (UNTRUSTED_WORK_TIME_MS, default 10 s). */
  untrustedWorkTimeMs: number;
  /** Tasks that may wait for a thread (UNTRUSTED_WORK_QUEUE, default 64); more are refused with 503. */
  untrustedWorkQueue: number;
  /** Converting the markdown and HTML of one content write or import, all its pages together, on the pool, in ms (CONTENT_CONVERSION_TIME_MS, default 10 s); past it the write answers 422. */
  contentConversionTimeMs: number;
  /** Bytes of all the files one content write or import stores together (CONTENT_UPLOAD_MAX_BYTES, default 100 MiB); past it the write answers 413. */
  contentUploadMaxBytes: number;
  /** INTEGRATION_SECRETS_KEY: 32 bytes as 64 hex characters or base64, the service's secrets key (sealing integrations' secrets, deriving sites' visitor-token keys); absent, embedded mode keeps a generated key in DATA_DIR. */
  integrationSecretsKey: string | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const publicUrl = (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  try {
    const url = new URL(publicUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got '${publicUrl}'`);
  }
  const logLevel = (env.LOG_LEVEL || 'info') as AppConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  return {
    port,
    host,
    dataDir: resolve(env.DATA_DIR || './data'),
    publicUrl,
    adminToken,
    logLevel,
    eventStoreUrl: env.EVENTSTORE_URL || undefined,
    mongodbUrl: env.MONGODB_URL || undefined,
    readYourWritesTimeoutMs: integer(env, 'READ_YOUR_WRITES_TIMEOUT_MS', 5000, 0, 600_000),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1, 10_000_000),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 30, 1, 10_000_000),
    sitesRateLimitPerMinute: integer(env, 'SITES_RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
    trustProxyHops: integer(env, 'TRUST_PROXY_HOPS', 0, 0, 10),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    eventBatchLimitBytes: integer(env, 'EVENT_BATCH_LIMIT_BYTES', 1024 * 1024 - 64 * 1024, 64 * 1024, 16 * 1024 * 1024),
    replayHeapMb: integer(env, 'REPLAY_HEAP_MB', 384, 64, 1024 * 1024),
    replayMappedMb: integer(env, 'REPLAY_MAPPED_MB', 128, 1, 1024 * 1024),
    readModelSyncCheckMb: integer(env, 'READ_MODEL_SYNC_CHECK_MB', 64, 0, 1024 * 1024 * 1024),
    samlFailedLoginsPerMinute: integer(env, 'SAML_FAILED_LOGINS_PER_MINUTE', 20, 1, 1_000_000),
    importAllowPrivateNetworks: flag(env, 'IMPORT_ALLOW_PRIVATE_NETWORKS'),
    integrationsAllowPrivateNetworks: flag(env, 'INTEGRATIONS_ALLOW_PRIVATE_NETWORKS'),
    sitesAllowPrivateNetworks: flag(env, 'SITES_ALLOW_PRIVATE_NETWORKS'),
    openapiAllowPrivateNetworks: flag(env, 'OPENAPI_ALLOW_PRIVATE_NETWORKS'),
    openapiFetchTimeoutMs: integer(env, 'OPENAPI_FETCH_TIMEOUT_MS', 10_000, 1, 600_000),
    openapiProcessingTimeMs: integer(env, 'OPENAPI_PROCESSING_TIME_MS', 20_000, 100, 600_000),
    openapiMaxBytes: integer(env, 'OPENAPI_MAX_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    openapiMaxRedirects: integer(env, 'OPENAPI_MAX_REDIRECTS', 5, 0, 20),
    integrationSecretsKey: env.INTEGRATION_SECRETS_KEY || undefined,
    untrustedWorkThreads: integer(env, 'UNTRUSTED_WORK_THREADS', defaultThreads(), 1, 64),
    untrustedWorkMemoryMb: integer(env, 'UNTRUSTED_WORK_MEMORY_MB', 256, 32, 16 * 1024),
    untrustedWorkTimeMs: integer(env, 'UNTRUSTED_WORK_TIME_MS', 10_000, 100, 600_000),
    untrustedWorkQueue: integer(env, 'UNTRUSTED_WORK_QUEUE', 64, 1, 100_000),
    contentConversionTimeMs: integer(env, 'CONTENT_CONVERSION_TIME_MS', 10_000, 100, 600_000),
    contentUploadMaxBytes: integer(env, 'CONTENT_UPLOAD_MAX_BYTES', 100 * 1024 * 1024, 1024, 10 * 1024 * 1024 * 1024),
    dnsServers: (env.DNS_SERVERS ?? '')
      .split(',')
      .map((server) => server.trim())
      .filter((server) => server !== ''),
  };
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer in ${min}..${max}, got '${raw}'`);
  }
  return value;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
