import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkBudgetExceeded, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { WorkerPool } from '#platform/untrusted-work/worker-pool';
import { fetchDocument } from './openapi.fetch';
import { processSource, type ProcessingDeps } from './openapi.processing';

const SPEC = '{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{}}';
const limits = { allowPrivateNetworks: true, timeMs: 300, maxBytes: 10_000, maxRedirects: 2, maxExternalDocuments: 2 };
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { code: string }) => error.code,
  );
const pool = new WorkerPool({ threads: 1, memoryMb: 128, timeMs: 10_000, queueLimit: 8, queueTimeMs: 60_000 });
afterAll(() => pool.close());
const deps = (store: ProcessingDeps['blobs'], newId: string, more: Partial<ProcessingDeps> = {}): ProcessingDeps => ({
  blobs: store,
  limits,
  newId: () => newId,
  work: pool,
  timeMs: 10_000,
  ...more,
});

/** An in-memory blob store. */
function blobs() {
  const stored = new Map<string, Buffer>();
  return {
    stored,
    async put(content: Buffer | Uint8Array | NodeJS.ReadableStream) {
      const bytes = Buffer.from(content as Buffer);
      const hash = createHash('sha256').update(bytes).digest('hex');
      stored.set(hash, bytes);
      return { hash, size: bytes.length };
    },
    async read(hash: string) {
      return stored.get(hash)!;
    },
  };
}

describe('fetching and processing a source', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/spec.json') response.writeHead(200, { 'content-type': 'application/json' }).end(SPEC);
      else if (request.url === '/moved') response.writeHead(301, { location: '/spec.json' }).end();
      else if (request.url?.startsWith('/hop')) response.writeHead(302, { location: `/hop${Number(request.url.slice(4)) + 1}` }).end();
      else if (request.url === '/slow') setTimeout(() => response.end(SPEC), 2000).unref();
      else if (request.url === '/never') request.on('close', () => response.end());
      else response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  });

  it('a redirect is followed, and the final URL is where the document came from', async () => {
    // The first fetch of the run: a loaded machine may take longer than the short limit the time-out test needs.
    expect(await fetchDocument(`${base}/moved`, { ...limits, timeMs: 10_000 })).toMatchObject({
      url: `${base}/spec.json`,
      contentType: 'application/json',
    });
  });

  it('more redirects than the limit is FETCH_TOO_MANY_REDIRECTS', async () => {
    expect(await failureOf(fetchDocument(`${base}/hop0`, limits))).toBe('FETCH_TOO_MANY_REDIRECTS');
  });

  it('a loopback address is refused unless private networks are allowed', async () => {
    expect(await failureOf(fetchDocument(`${base}/spec.json`, { ...limits, allowPrivateNetworks: false }))).toBe('FETCH_REFUSED');
  });

  it('a server slower than the time limit is FETCH_TIMEOUT', async () => {
    expect(await failureOf(fetchDocument(`${base}/slow`, limits))).toBe('FETCH_TIMEOUT');
  });

  it('a 404 is FETCH_HTTP_ERROR; a closed port is FETCH_UNREACHABLE; a file URL is refused', async () => {
    expect(await failureOf(fetchDocument(`${base}/missing`, limits))).toBe('FETCH_HTTP_ERROR');
    expect(await failureOf(fetchDocument('http://127.0.0.1:1/spec.json', limits))).toBe('FETCH_UNREACHABLE');
    expect(await failureOf(fetchDocument('file:///etc/passwd', limits))).toBe('FETCH_REFUSED');
  });

  it('a URL source is fetched, parsed, and its raw bytes and parsed document stored as blobs', async () => {
    const store = blobs();
    const outcome = await processSource({ kind: 'url', url: `${base}/spec.json` }, deps(store, 'v1'));
    expect(outcome).toMatchObject({
      ok: true,
      versionId: 'v1',
      rawSize: SPEC.length,
      contentType: 'application/json',
      sourceURL: `${base}/spec.json`,
    });
    if (!outcome.ok) throw new Error('not processed');
    expect(store.stored.get(outcome.rawHash)!.toString()).toBe(SPEC);
    expect(JSON.parse(store.stored.get(outcome.documentHash)!.toString())).toMatchObject({ openapi: '3.0.3' });
  });

  it('the same text twice gives the same document hash (one version)', async () => {
    const store = blobs();
    const text = await store.put(Buffer.from(SPEC));
    const first = await processSource({ kind: 'text', ...text }, deps(store, 'v1'));
    const second = await processSource({ kind: 'text', ...text }, deps(store, 'v2'));
    expect(first.ok && second.ok && first.documentHash === second.documentHash).toBe(true);
  });

  it('an invalid text source is a failed outcome, not an exception', async () => {
    const store = blobs();
    const text = await store.put(Buffer.from('openapi: 3.0.3\npaths: {}\n'));
    expect(await processSource({ kind: 'text', ...text }, deps(store, 'v1'))).toMatchObject({ ok: false, errorCode: 'INVALID_SPEC' });
  });

  it('a source whose parsing runs over the time budget is a failed outcome, PROCESSING_BUDGET_EXCEEDED', async () => {
    const store = blobs();
    // Its one external reference never answers, and the fetch's own limit is longer than the budget.
    const spec = {
      openapi: '3.0.3',
      info: { title: 'T', version: '1' },
      paths: { '/a': { get: { responses: { '200': { $ref: `${base}/never` } } } } },
    };
    const text = await store.put(Buffer.from(JSON.stringify(spec)));
    expect(
      await processSource({ kind: 'text', ...text }, deps(store, 'v1', { limits: { ...limits, timeMs: 60_000 }, timeMs: 1500 })),
    ).toEqual({
      ok: false,
      errorCode: 'PROCESSING_BUDGET_EXCEEDED',
      message: 'parsing and validating the OpenAPI document took longer than its budget of 1.5 s',
    });
  });

  it('while the pool refuses work because its queue is full, the source waits for a place', async () => {
    const store = blobs();
    const text = await store.put(Buffer.from(SPEC));
    let refusals = 0;
    const busyOnce: UntrustedWork = {
      run: (task, input, budget) =>
        refusals++ === 0 ? Promise.reject(new WorkBudgetExceeded('queue', 'busy')) : pool.run(task, input, budget),
    };
    expect(await processSource({ kind: 'text', ...text }, deps(store, 'v1', { work: busyOnce, queueWaitMs: 10 }))).toMatchObject({
      ok: true,
      versionId: 'v1',
    });
    expect(refusals).toBe(2);
  });
});
