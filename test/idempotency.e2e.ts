/**
 * `Idempotency-Key` on POST through HTTP against the embedded service (docs/api/conventions.md,
 * Retrying a POST): a retry answers the first request's answer without running it again, another
 * request with the key is 422, a retry while the first runs 409, a malformed key 400, keys of
 * different callers are independent, and the record survives the service being killed. Zip imports
 * are fetched from a local HTTP server, which can hold an answer back to keep an import running.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strToU8, zipSync } from 'fflate';
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

let service: RunningService;
let site: Server;
let siteUrl: string;
let ada: string;
let bob: string;
let organizationId: string;
/** How often the service fetched each path of the site. */
const fetches = new Map<string, number>();
/** The `/held…` paths answer once this is called. */
let releaseHeld: () => void = () => {};

const ZIP = Buffer.from(
  zipSync({
    'SUMMARY.md': strToU8('# Summary\n\n* [Intro](README.md)\n* [Setup](setup.md)\n'),
    'README.md': strToU8('# Intro\n\nHello.\n'),
    'setup.md': strToU8('# Setup\n\nSetting things up.\n'),
  }),
);

let keys = 0;
/** A fresh key, as a Structured Field String. */
const newKey = () => `"retry-${Date.now()}-${++keys}"`;

const post = (token: string, path: string, body: unknown, key?: string) =>
  service.request('POST', path, { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

function expectSame(retry: Response, first: Response): void {
  expect({ status: retry.status, body: retry.body }).toEqual({ status: first.status, body: first.body });
  expect(retry.headers['idempotent-replayed']).toBe('true');
}

async function spaceTitles(): Promise<string[]> {
  const response = await service.request('GET', `/v1/orgs/${organizationId}/spaces?limit=1000`, { token: ada });
  expect(response.status).toBe(200);
  return response.body.items.map((space: { title: string }) => space.title);
}

async function createSpace(title: string): Promise<string> {
  const response = await post(ada, `/v1/orgs/${organizationId}/spaces`, { title });
  expect(response.status).toBe(201);
  return response.body.id;
}

beforeAll(async () => {
  site = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const send = () => response.writeHead(200, { 'content-type': 'application/zip' }).end(ZIP);
    if (path === '/book.zip' || path === '/again.zip') return send();
    if (path.startsWith('/held')) {
      releaseHeld = () => {
        releaseHeld = () => {};
        send();
      };
      return;
    }
    response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  service = await startService({ env: { IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' } });
  ada = (await service.createUser('ada@idempotency.example', 'Ada')).token;
  bob = (await service.createUser('bob@idempotency.example', 'Bob')).token;
  const organization = await post(ada, '/v1/orgs', { title: 'Retries' });
  expect(organization.status).toBe(201);
  organizationId = organization.body.id;
}, 60_000);

afterAll(async () => {
  releaseHeld();
  await cleanUpServices();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

describe('a POST with an Idempotency-Key', () => {
  it('sent twice, answers the first answer again and creates one resource', async () => {
    const key = newKey();
    const first = await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 'Once' }, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 'Once' }, key);
    expectSame(retry, first);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect((await spaceTitles()).filter((title) => title === 'Once')).toHaveLength(1);
  });

  it('with another body, answers 422 and runs nothing', async () => {
    const key = newKey();
    expect((await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 'First body' }, key)).status).toBe(201);
    expectError(await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 'Second body' }, key), 422, /Idempotency-Key/);
    expect(await spaceTitles()).not.toContain('Second body');
  });

  it('on another path, answers 422', async () => {
    const key = newKey();
    expect((await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 'Path one' }, key)).status).toBe(201);
    expectError(await post(ada, `/v1/orgs/${organizationId}/collections`, { title: 'Path one' }, key), 422);
  });

  it('that failed with a client error, answers the same error again', async () => {
    const key = newKey();
    const first = await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 42 }, key);
    expectError(first, 400);
    expectSame(await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 42 }, key), first);
  });

  it('of two callers, is two keys: each runs its own request', async () => {
    const key = newKey();
    const adas = await post(ada, '/v1/orgs', { title: 'Shared key' }, key);
    const bobs = await post(bob, '/v1/orgs', { title: 'Shared key' }, key);
    expect([adas.status, bobs.status]).toEqual([201, 201]);
    expect(bobs.headers['idempotent-replayed']).toBeUndefined();
    expect(bobs.body.id).not.toBe(adas.body.id);
    // Bob's other body under the same key is not compared with Ada's request.
    expectSame(await post(bob, '/v1/orgs', { title: 'Shared key' }, key), bobs);
  });

  it.each([
    ['empty', '""'],
    ['over 255 characters', `"${'k'.repeat(256)}"`],
    ['not a quoted string', 'unquoted-key'],
    ['not ASCII', '"clé"'],
  ])('given a key %s, answers 400 and runs nothing', async (_case, key) => {
    expectError(await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: `Malformed ${_case}` }, key), 400, /Idempotency-Key/);
    expect(await spaceTitles()).not.toContain(`Malformed ${_case}`);
  });

  it('is optional: without it, each POST runs', async () => {
    await createSpace('Twice');
    await createSpace('Twice');
    expect((await spaceTitles()).filter((title) => title === 'Twice')).toHaveLength(2);
  });
});

describe('a zip import with an Idempotency-Key', () => {
  it('retried, imports once', async () => {
    const spaceId = await createSpace('Zip once');
    const key = newKey();
    const body = { source: 'zip', url: `${siteUrl}/book.zip` };
    const first = await post(ada, `/v1/spaces/${spaceId}/content/import`, body, key);
    expect(first.status).toBe(200);
    expectSame(await post(ada, `/v1/spaces/${spaceId}/content/import`, body, key), first);
    expect(fetches.get('/book.zip')).toBe(1);
    const pages = await service.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: ada });
    expect(pages.body.pages.map((page: { title: string }) => page.title)).toEqual(['Intro', 'Setup']);
  });

  it('retried while the first still runs, answers 409 and runs nothing', async () => {
    const spaceId = await createSpace('Zip running');
    const key = newKey();
    const body = { source: 'zip', url: `${siteUrl}/held.zip` };
    const heldRequested = new Promise<void>((resolve) => {
      const listener = (request: { url?: string }) => {
        if (request.url?.startsWith('/held.zip')) {
          site.off('request', listener);
          resolve();
        }
      };
      site.on('request', listener);
    });
    const first = post(ada, `/v1/spaces/${spaceId}/content/import`, body, key);
    await heldRequested;
    expectError(await post(ada, `/v1/spaces/${spaceId}/content/import`, body, key), 409, /still being processed/);
    releaseHeld();
    const answer = await first;
    expect(answer.status).toBe(200);
    expectSame(await post(ada, `/v1/spaces/${spaceId}/content/import`, body, key), answer);
    expect(fetches.get('/held.zip')).toBe(1);
  });
});

describe('after the service was killed and started again', () => {
  const completed = { key: newKey(), answer: null as Response | null };
  const interrupted = { key: newKey(), spaceId: '', body: {} };

  beforeAll(async () => {
    completed.answer = await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 'Before the crash' }, completed.key);
    expect(completed.answer.status).toBe(201);
    // An import held at its download while the service is killed: its key stays in progress.
    interrupted.spaceId = await createSpace('Import at the crash');
    interrupted.body = { source: 'zip', url: `${siteUrl}/held-at-the-crash.zip` };
    const requested = new Promise<void>((resolve) => site.once('request', () => resolve()));
    const lost = post(ada, `/v1/spaces/${interrupted.spaceId}/content/import`, interrupted.body, interrupted.key).catch(() => null);
    await requested;
    await service.kill();
    await lost;
    releaseHeld();
    await service.restart();
  }, 90_000);

  it('a retry of a completed request answers the recorded answer', async () => {
    expectSame(await post(ada, `/v1/orgs/${organizationId}/spaces`, { title: 'Before the crash' }, completed.key), completed.answer!);
    expect((await spaceTitles()).filter((title) => title === 'Before the crash')).toHaveLength(1);
  });

  it('a retry of a request cut short by the crash answers 409, not a second run', async () => {
    expectError(await post(ada, `/v1/spaces/${interrupted.spaceId}/content/import`, interrupted.body, interrupted.key), 409, /interrupted/);
  });
});
