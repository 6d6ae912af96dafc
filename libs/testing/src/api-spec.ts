/**
 * The real service in process, for specifications of whole flows: built with `createService` on
 * a temporary DATA_DIR (embedded stores), projections started and caught up, requests injected
 * into Fastify (no socket), and the event log readable so a test can assert what a request appended.
 *
 *   const api = await apiSpec();
 *   const ada = await api.createUser('Ada');
 *   const since = await api.position();
 *   expect((await api.request('DELETE', `/v1/collections/${id}`, { token: ada.token })).status).toBe(204);
 *   expect(await api.appendedEvents(since)).toEqual([expect.objectContaining({ type: 'CollectionDeleted' })]);
 *   await api.close();
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, type Service } from '#composition/api/app';
import type { EventMetadata, LogPosition } from '#event-store/event-store.port';
import { loadConfig } from '#platform/config';

export const DEFAULT_ADMIN_TOKEN = 'admin-token-for-in-process-specs-0123456789';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when the answer is not JSON. */
  body: any;
  text: string;
}

export interface RequestOptions {
  token?: string;
  /** Serialized as JSON. */
  body?: unknown;
  /** Sent as is (`contentType` defaults to JSON). */
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** The client's address (rate limits without a valid token count per address). */
  remoteAddress?: string;
}

export interface ApiRequest extends RequestOptions {
  method: string;
  url: string;
}

/** An event of the log, as a test compares it. */
export interface AppendedEvent {
  type: string;
  streamId: string;
  revision: number;
  position: LogPosition;
  data: any;
  metadata: EventMetadata;
}

export interface ApiSpecOptions {
  /** Service variables (README, configuration), over the defaults: silent logs, a rate limit no test reaches, a 30 s read-your-writes wait, a 60 s conversion budget. */
  env?: Record<string, string>;
  adminToken?: string;
}

export interface ApiSpec {
  service: Service;
  adminToken: string;
  /** PUBLIC_URL: the base of every `urls.*` member and of the SAML service URLs. */
  publicUrl: string;
  request(method: string, url: string, options?: RequestOptions): Promise<ApiResponse>;
  /** `POST /v1/admin/users` with the admin token: a user and their token. */
  createUser(displayName?: string): Promise<{ id: string; token: string; email: string }>;
  /** The log's head now (null while empty): pass it to `appendedEvents` after the requests. */
  position(): Promise<LogPosition | null>;
  /**
   * Events appended after `since`, in log order, once the log is quiet (read models and anything
   * reacting to events have caught up with its head). `streamId` narrows to streams it names.
   */
  appendedEvents(since: LogPosition | null, filter?: { streamId?: string | RegExp }): Promise<AppendedEvent[]>;
  /** Resolves once the projections have applied every event in the log and nothing new arrives. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

let users = 0;

export async function apiSpec(options: ApiSpecOptions = {}): Promise<ApiSpec> {
  const adminToken = options.adminToken ?? DEFAULT_ADMIN_TOKEN;
  const dataDir = mkdtempSync(join(tmpdir(), 'api-spec-'));
  // A write waits for the read models longer than in production, and a content write may convert
  // for longer (the pool's first task starts its threads): on a busy test machine a few seconds of
  // starvation must not turn into a read that misses its own write, or a write refused as too slow.
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '10000000',
    READ_YOUR_WRITES_TIMEOUT_MS: '30000',
    CONTENT_CONVERSION_TIME_MS: '60000',
    ...options.env,
  });
  let service: Service;
  try {
    service = await createService({ config, adminToken });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const runner = service.runtime.runner;
  if (!runner) throw new Error('apiSpec needs embedded stores, where the service runs its own projections');
  await runner.start();
  await runner.whenCaughtUp();
  const events = service.runtime.stores.events;

  async function request(
    method: string,
    url: string,
    { token, body, rawBody, contentType, headers, remoteAddress }: RequestOptions = {},
  ): Promise<ApiResponse> {
    const sent: Record<string, string> = { ...headers };
    if (token !== undefined) sent.authorization = `Bearer ${token}`;
    let payload: string | Buffer | undefined;
    if (rawBody !== undefined) payload = rawBody;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) sent['content-type'] = contentType ?? 'application/json';
    const response = await service.app.inject({
      method: method as 'GET',
      url,
      headers: sent,
      ...(remoteAddress ? { remoteAddress } : {}),
      ...(payload !== undefined ? { payload } : {}),
    });
    let parsed: unknown = response.body;
    if (String(response.headers['content-type'] ?? '').includes('json') && response.body !== '') {
      try {
        parsed = JSON.parse(response.body);
      } catch {
        parsed = response.body;
      }
    }
    return { status: response.statusCode, headers: response.headers as ApiResponse['headers'], body: parsed, text: response.body };
  }

  async function settled(): Promise<void> {
    // Something reacting to an event may append more: wait until the head stops moving.
    for (let head = await events.headPosition(); ;) {
      if (head !== null && !(await runner!.waitFor(head, 10_000)))
        throw new Error(`the projections did not reach log position ${head} within 10 s`);
      const now = await events.headPosition();
      if (now === head) return;
      head = now;
    }
  }

  return {
    service,
    adminToken,
    publicUrl: config.publicUrl,
    request,
    settled,
    async createUser(displayName = 'Someone') {
      const n = ++users;
      const email = `user${n}-${Date.now()}@example.com`;
      const created = await request('POST', '/v1/admin/users', { token: adminToken, body: { email, displayName } });
      if (created.status !== 201) throw new Error(`creating a user answered ${created.status}: ${created.text}`);
      return { id: created.body.user.id, token: created.body.token, email };
    },
    position: () => events.headPosition(),
    async appendedEvents(since, filter = {}) {
      await settled();
      const appended: AppendedEvent[] = [];
      for (let after = since ?? undefined; ;) {
        const page = await events.readAll({ after, maxCount: 1000 });
        if (page.length === 0) break;
        for (const { type, streamId, revision, position, data, metadata } of page)
          appended.push({ type, streamId, revision, position, data, metadata });
        after = page[page.length - 1].position;
      }
      const wanted = filter.streamId;
      if (wanted === undefined) return appended;
      return appended.filter((event) => (typeof wanted === 'string' ? event.streamId === wanted : wanted.test(event.streamId)));
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
